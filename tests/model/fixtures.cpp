#include "fixtures.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

namespace xab::test {

std::string dataPath(const std::string& name) { return std::string(XAB_MODEL_DATA) + "/" + name; }

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::shared_ptr<const Trace> loadFixture(const std::string& name) {
  LoadResult r = loadTraceFile(dataPath(name));
  INFO(name << ": " << r.fatal);
  REQUIRE(r.fatal.empty());
  REQUIRE(r.errorCount == 0);
  REQUIRE(r.trace);
  return r.trace;
}

TaskIndex taskNamed(const Trace& trace, std::string_view name, int instance) {
  for (TaskIndex t = 0; t < trace.taskCount(); ++t)
    if (trace.taskName(t) == name && trace.task(t).instance == instance) return t;
  FAIL("no task (" << name << ", " << instance << ")");
  return 0;
}

}  // namespace xab::test
