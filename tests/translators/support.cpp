#include "support.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace xab::tr::test {

std::string dataPath(const std::string& name) { return std::string(XAB_TR_DATA) + "/" + name; }
std::string binPath(const std::string& name) { return std::string(XAB_TR_BIN) + "/" + name; }

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

namespace {

// Every directory tempDir() made, removed when the test process ends (CTest
// runs one test case per process), so that no run leaves /tmp/xab-tr-* behind.
struct TempDirs {
  std::vector<std::string> made;
  ~TempDirs() {
    std::error_code ignored;
    for (const std::string& d : made) std::filesystem::remove_all(d, ignored);
  }
};
TempDirs gTempDirs;

}  // namespace

std::string tempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "xab-tr-XXXXXX").string();
  REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
  gTempDirs.made.push_back(tmpl);
  return tmpl;
}

void checkGolden(const std::string& name, const std::string& text) {
  const std::string path = dataPath("golden/" + name);
  if (std::getenv("XAB_REGEN_GOLDEN")) {
    std::filesystem::create_directories(dataPath("golden"));
    std::ofstream(path, std::ios::binary) << text;
    WARN("regenerated " << path);
    return;
  }
  INFO("golden " << path << " (XAB_REGEN_GOLDEN=1 rewrites it)");
  REQUIRE(std::filesystem::exists(path));
  CHECK(text == readFile(path));
}

Run run(const std::string& commandLine) {
  std::string dir = tempDir();
  std::string cmd = "(" + commandLine + ") >" + dir + "/out 2>" + dir + "/err";
  int status = std::system(cmd.c_str());
  Run r;
  r.exit = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = readFile(dir + "/out");
  r.err = readFile(dir + "/err");
  std::filesystem::remove_all(dir);
  return r;
}

std::shared_ptr<const Trace> loadData(const std::string& name) {
  LoadResult r = loadTraceFile(dataPath(name));
  INFO(name << ": " << r.fatal);
  REQUIRE(r.trace);
  REQUIRE(r.errorCount == 0);
  return r.trace;
}

}  // namespace xab::tr::test
