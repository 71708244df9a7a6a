// libf2x provides every routine libfpvm3 provides: the global functions of
// the two archives, as nm lists them, are the same set (libf2x adds only
// its own xab_f2x_* helpers).  A new libfpvm3 with a new routine fails here.
#include <catch2/catch.hpp>

#include <set>
#include <sstream>
#include <string>

#include "xab/test/process.h"

using namespace xab::test;

namespace {

// Names of the functions (type T) an archive defines.
std::set<std::string> defined_functions(const std::string& archive) {
  auto r = run({"nm", "-g", "--defined-only", archive});
  REQUIRE(r.exit_code == 0);
  std::set<std::string> names;
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string addr, type, name;
    if (ls >> addr >> type >> name && type == "T") names.insert(name);
  }
  return names;
}

}  // namespace

TEST_CASE("libf2x defines every function libfpvm3 defines", "[f2x][unit]") {
  auto fpvm3 = defined_functions(XAB_TEST_LIBFPVM3);
  auto f2x = defined_functions(XAB_TEST_LIBF2X);
  REQUIRE(fpvm3.size() == 69);  // PVM 3.4.6: 63 pvmf*, 4 reduce functions, 2 string helpers
  CHECK(fpvm3.count("pvmfpack_") == 1);
  CHECK(fpvm3.count("pvmsum_") == 1);

  std::set<std::string> missing, extra;
  for (auto& name : fpvm3)
    if (!f2x.count(name)) missing.insert(name);
  for (auto& name : f2x)
    if (!fpvm3.count(name) && name.rfind("xab_f2x_", 0) != 0) extra.insert(name);
  INFO("missing from libf2x: " << Catch::Detail::stringify(missing));
  INFO("unexpected in libf2x: " << Catch::Detail::stringify(extra));
  CHECK(missing.empty());
  CHECK(extra.empty());
}
