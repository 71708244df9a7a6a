// Loads the hand-written traces in data/.
#pragma once

#include <xab/model/model.h>

#include <string>

namespace xab::test {

std::string dataPath(const std::string& name);
// The bytes of a file, whole.
std::string readFile(const std::string& path);
// Loads data/<name>; fails the test if the file has errors.
std::shared_ptr<const Trace> loadFixture(const std::string& name);
// The task with this name and instance; fails the test if absent.
TaskIndex taskNamed(const Trace& trace, std::string_view name, int instance);

}  // namespace xab::test
