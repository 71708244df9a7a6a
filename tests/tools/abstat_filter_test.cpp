// Filtering at the source under a real pvmd: XAB_FILTER=pack (exported to
// the spawned tasks through PVM_EXPORT) leaves the token ring's trace
// without pack and unpack records, each task's `filter` record says so,
// and abstat says the pack/unpack check was not possible instead of
// reporting nothing.
#include "json.h"

#include "xab/test/private_vm.h"
#include "xab/test/process.h"
#include "xab/test/records.h"

#include <catch2/catch.hpp>

using namespace xab::test;

namespace {

// The ring of 4 under abmon, with `env`; the trace's text.
std::string ringTrace(PrivateVm& vm, const EnvVars& env, const std::string& name) {
  std::string path = vm.dir() + "/" + name;
  auto r = run({bin_dir() + "/abmon", "-q", "-o", path, "--", bin_dir() + "/abstat_pvm_prog", "ring", "4"}, env, 120s);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  return read_file(path);
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("XAB_FILTER=pack: no pack records, a filter record per task, abstat says the check was not possible",
          "[pvm][abmon]") {
  PrivateVm vm;
  const std::string plain = ringTrace(vm, {}, "plain.trace");
  CHECK(count(plain, " pkint ") > 0);  // the ring packs its token
  CHECK(count(plain, " filter ") == 0);

  const std::string text = ringTrace(vm, {{"XAB_FILTER", "pack"}, {"PVM_EXPORT", "XAB_FILTER"}}, "filtered.trace");
  CHECK(count(text, " pkint ") == 0);
  CHECK(count(text, " upkint ") == 0);
  CHECK(count(text, " filter omit=1") == 4);  // the master and its three spawned children
  CHECK(count(text, " send ") == count(plain, " send "));  // everything else is there

  const std::string path = vm.dir() + "/filtered.trace";
  auto report = run({bin_dir() + "/abstat", "--mismatch", path}, {}, 60s);
  CHECK_THAT(report.out, Catch::Contains("not checked: pack records filtered at the source"));
  Json j = parseJson(run({bin_dir() + "/abstat", "--json", path}, {}, 60s).out);
  CHECK(j["mismatch"]["status"].str() == "pack records filtered");
  Json p = parseJson(run({bin_dir() + "/abstat", "--json", vm.dir() + "/plain.trace"}, {}, 60s).out);
  CHECK(p["mismatch"]["status"].str() == "checked");
}

TEST_CASE("XAB_FILTER with a word it does not know filters nothing and says so", "[pvm][abmon]") {
  PrivateVm vm;
  std::string path = vm.dir() + "/bad.trace";
  auto r = run({bin_dir() + "/abmon", "-q", "-o", path, "--", bin_dir() + "/abstat_pvm_prog", "ring", "2"},
               {{"XAB_FILTER", "pack,sends"}}, 120s);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("XAB_FILTER=pack,sends: not a list of pack, clock or none"));
  CHECK(count(read_file(path), " pkint ") > 0);
}
