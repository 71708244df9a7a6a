// abstat --why on real runs of a program of our own with a task made slow
// on purpose (tests/examples/why_slow.c), each under abmon in a private
// virtual machine, against the same program run even: of the waiting the
// slow task adds, at least 90 % must be charged to it.
#include "json.h"

#include "xab/test/private_vm.h"
#include "xab/test/process.h"
#include "xab/test/records.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <unistd.h>

using namespace xab::test;

namespace {

struct Run {
  std::string trace;                // a copy of its trace, kept after the VM has gone
  Json why;                         // abstat --why --json
  std::vector<std::string> spawned; // the tids the master spawned, in order
};

// Runs why_slow ARGS under abmon until `tasks` tasks have exited; abstat
// --why --json of its trace.
Run traced(const std::vector<std::string>& args, std::size_t tasks, const std::string& keep = "") {
  PrivateVm vm;
  std::string path = vm.dir() + "/run.trace";
  Monitor mon(path);
  std::vector<std::string> argv{bin_dir() + "/why_slow"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run(argv, {}, 120s);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(mon.wait_exits(tasks));
  Run out;
  for (const Record& rec : mon.finish())
    if (rec.event == "spawn") out.spawned.push_back(rec.get("tids"));
  auto j = run({bin_dir() + "/abstat", "--why", "--json", path}, {}, 60s);
  INFO(j.err);
  REQUIRE(j.exit_code == 0);
  out.why = parseJson(j.out);
  if (!keep.empty()) {
    out.trace = (std::filesystem::temp_directory_path() / ("xab-why-" + std::to_string(getpid()) + "-" + keep)).string();
    std::filesystem::copy_file(path, out.trace, std::filesystem::copy_options::overwrite_existing);
  }
  return out;
}

// A task's figures in waits.perTask, by tid.
const Json& figures(const Json& j, const std::string& tid) {
  for (const Json& t : j["waits"]["perTask"].arr())
    if (t["task"]["tid"].str() == tid) return t;
  throw std::runtime_error("no task " + tid);
}

}  // namespace

TEST_CASE("abstat --why on a real run: a worker 0.2 s slow each round is the cause of the barrier waits",
          "[pvm][abmon]") {
  // 3 workers, 5 rounds of 20 ms; worker 2 works 200 ms more each round.
  const int n = 3, rounds = 5;
  const double d = 0.2;
  Run even = traced({"barrier", "3", "5", "20", "0"}, n + 1, "even.trace");
  Run slow = traced({"barrier", "3", "5", "20", "200"}, n + 1, "slow.trace");
  REQUIRE(even.spawned.size() == n);
  REQUIRE(slow.spawned.size() == n);
  // The last worker spawned is the slow one.  Each round the other two
  // wait d at the barrier, and the master, waiting for worker 0 all
  // along, waits d more through it.
  const std::string& lateEven = even.spawned.back();
  const std::string& late = slow.spawned.back();
  double injected = slow.why["waits"]["total"].num() - even.why["waits"]["total"].num();
  double attributed = figures(slow.why, late)["rootCost"].num() - figures(even.why, lateEven)["rootCost"].num();
  INFO("injected " << injected << " s, attributed to " << late << " " << attributed << " s");
  INFO("even: " << even.why["whyText"]["causes"].arr().size() << " causes: " << even.why["whyText"]["causes"][0].str());
  INFO("slow: " << slow.why["whyText"]["causes"][0].str());
  for (const Json& x : even.why["waits"]["perTask"].arr()) INFO("even " << x["task"]["tid"].str() << " root " << x["rootCost"].num() << " waited " << x["waited"].num());
  for (const Json& x : slow.why["waits"]["perTask"].arr()) INFO("slow " << x["task"]["tid"].str() << " root " << x["rootCost"].num() << " waited " << x["waited"].num());
  // Less than n * rounds * d: in the even run too the first round's
  // barrier waits for the workers spawned later, and the slow run hides that.
  CHECK(injected >= 0.7 * n * rounds * d);
  CHECK(attributed >= 0.9 * injected);
  REQUIRE_FALSE(slow.why["why"].arr().empty());
  CHECK(slow.why["why"][0]["task"]["tid"].str() == late);
  CHECK(slow.why["why"][0]["pattern"].str() == "barrier");
  // The slow worker decides the run's end: it is on the critical path most.
  double lateOnPath = 0;
  for (const Json& t : slow.why["criticalPath"]["tasks"].arr())
    if (t["task"]["tid"].str() == late) lateOnPath = t["time"].num();
  CHECK(lateOnPath >= rounds * d);
  // The same runs compared: the slow worker's compute comes first, and
  // right after it the barrier waits of the other two that it explains.
  auto r = run({bin_dir() + "/abstat", "--compare", "--json", even.trace, slow.trace}, {}, 60s);
  auto text = run({bin_dir() + "/abstat", "--compare", even.trace, slow.trace}, {}, 60s);
  std::filesystem::remove(even.trace);
  std::filesystem::remove(slow.trace);
  INFO(r.err << text.out);
  REQUIRE(r.exit_code == 0);
  Json c = parseJson(r.out)["compare"];
  CHECK(c["sameShape"].boolean());
  const auto& diffs = c["differences"].arr();
  REQUIRE(diffs.size() >= 3);
  // The slow worker's compute grew by its extra work.
  const Json* compute = nullptr;
  for (const Json& x : diffs)
    if (x["what"].str() == "compute" && x["task"]["tid"].str() == late) compute = &x;
  REQUIRE(compute);
  CHECK((*compute)["delta"].num() >= 0.9 * rounds * d);
  // The two other workers at the barrier, and the master, waiting for
  // worker 0 (late only because it waited at the barrier).  On a loaded
  // machine it may also explain a few ms of other waits: the barrier
  // waits are the ones that grew by the extra work.
  std::size_t barrierWaits = 0;
  for (const Json& e : (*compute)["explains"].arr()) {
    const Json& w = diffs[static_cast<std::size_t>(e.num())];
    INFO("explains " << w["what"].str() << " of " << w["task"]["tid"].str() << " +" << w["delta"].num() << " s");
    if (w["what"].str() == "wait: barrier") {
      ++barrierWaits;
      CHECK(w["delta"].num() >= 0.8 * rounds * d);
    }
    CHECK(w["explainedBy"].num() == static_cast<double>(compute - diffs.data()));
    CHECK(static_cast<std::size_t>(e.num()) > static_cast<std::size_t>(compute - diffs.data()));
  }
  CHECK(barrierWaits == 2);
  CHECK_THAT(text.out, Catch::Contains("compute +") && Catch::Contains("it explains +"));
}

TEST_CASE("abstat --why on a real chain: a late worker makes a second late, the first is charged",
          "[pvm][abmon]") {
  // Worker 0 works 200 ms more each of 5 rounds; worker 1 waits for it,
  // and the master waits for worker 1.
  const int rounds = 5;
  const double d = 0.2;
  Run even = traced({"chain", "5", "20", "0"}, 3);
  Run slow = traced({"chain", "5", "20", "200"}, 3);
  REQUIRE(even.spawned.size() == 2);
  REQUIRE(slow.spawned.size() == 2);
  const std::string& first = slow.spawned[0];
  const std::string& second = slow.spawned[1];
  double injected = slow.why["waits"]["total"].num() - even.why["waits"]["total"].num();
  double attributed = figures(slow.why, first)["rootCost"].num() - figures(even.why, even.spawned[0])["rootCost"].num();
  INFO("injected " << injected << " s, attributed to " << first << " " << attributed << " s");
  CHECK(injected >= 0.7 * 2 * rounds * d);
  CHECK(attributed >= 0.9 * injected);
  CHECK(slow.why["why"][0]["task"]["tid"].str() == first);
  // Worker 1 kept the master waiting, mostly because it waited itself.
  const Json& w1 = figures(slow.why, second);
  CHECK(w1["symptom"].boolean());
  CHECK(w1["passedOn"].num() >= 0.9 * rounds * d);
}
