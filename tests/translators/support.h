// What the translator tests share: data files, goldens, running commands.
#pragma once

#include <xab/translators/io.h>

#include <string>

namespace xab::tr::test {

std::string dataPath(const std::string& name);   // tests/translators/data/NAME
std::string binPath(const std::string& name);    // ${CMAKE_BINARY_DIR}/bin/NAME
std::string readFile(const std::string& path);   // "" if it cannot be read
std::string tempDir();                           // a fresh directory per call

// Compares text to data/golden/NAME; with XAB_REGEN_GOLDEN set in the
// environment, writes it there instead (review the diff by eye).
void checkGolden(const std::string& name, const std::string& text);

struct Run {
  int exit = -1;
  std::string out, err;
};
// Runs a shell command line; stdout and stderr are captured separately.
Run run(const std::string& commandLine);

std::shared_ptr<const Trace> loadData(const std::string& name);

}  // namespace xab::tr::test
