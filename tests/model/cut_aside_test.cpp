// A cut made aside (TraceReader::cutAside): the window made on a thread of
// its own while reading goes on is the window cut(from) makes with the same
// records read after it, whatever was read meanwhile.  (A source that cuts
// aside: window_test.)
#include "fixtures.h"

#include <xab/model/barriers.h>
#include <xab/model/builder.h>
#include <xab/traceformat/record.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

using namespace xab;
using xab::test::dataPath;
using xab::test::readFile;

namespace {

std::vector<std::string_view> linesOf(std::string_view text) {
  std::vector<std::string_view> out;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    end = end == std::string_view::npos ? text.size() : end + 1;
    out.push_back(text.substr(at, end - at));
    at = end;
  }
  return out;
}

// Everything a reader of the window can ask of it, as text: each task's
// records (with their seqs and run positions) and what the task table,
// the cut and the monitor records say.
std::string describe(const Trace& t) {
  std::string s;
  auto add = [&s](auto... v) {
    ((s += std::to_string(v), s += ' '), ...);
    s += '\n';
  };
  const TraceCut& c = t.cut();
  add(t.eventCount(), t.monitorEvents().size(), t.taskCount(), c.position, c.time, c.dropped, c.carried, c.cut,
      t.firstTime(), t.lastTime());
  for (std::uint32_t q = 0; q < c.carried; ++q) add(q, t.runPosition(q));
  for (TaskIndex k = 0; k < t.taskCount(); ++k) {
    const TaskInfo& i = t.task(k);
    add(i.tid, i.firstTime, i.lastTime, static_cast<int>(i.exit), i.exitTime, i.exitPosition, i.status);
    const CutTask& ct = t.cutTask(k);
    add(ct.dropped, ct.until, ct.lastSerial, ct.sentUnnumbered);
    for (const InFlightAtCut& f : t.inFlightAtCut(i.tid)) add(f.to, f.from, f.tag, f.count);
    for (std::uint32_t j = 0; j < t.events(k).size(); ++j) {
      const Event e = t.events(k)[j];
      s += std::to_string(e.seq) + ' ' + std::to_string(t.runPosition(e.seq)) + ' ' +
           std::to_string(e.present) + ' ';
      text::appendRecord(s, toRecord(t, k, j, false));
      s += '\n';
    }
  }
  for (std::size_t m = 0; m < t.monitorEvents().size(); ++m) {
    const Event& e = t.monitorEvents()[m];
    add(t.monitorTid(m), e.seq, static_cast<int>(e.kind), e.time);
  }
  std::map<Tid, std::vector<Event>> clocks(t.referenceClocks().begin(), t.referenceClocks().end());
  for (const auto& [tid, ev] : clocks)
    for (const Event& e : ev) add(tid, e.seq, e.time);
  // The barrier uses counted before the cut, as the analyses read them.
  const BarrierAnalysis b = analyzeBarriers(t);
  add(b.instances.size());
  for (const auto& x : b.instances) add(x.visits.size(), x.count, x.use, x.beforeCut);
  return s;
}

// Lines [0, mark) read, a cut at `keep` records before the newest, the
// rest of the lines read: once with cut(), once with cutAside() put in
// place only after the rest was read.
void compareAt(const std::vector<std::string_view>& lines, std::size_t mark, std::uint64_t keep) {
  TraceReader sync, aside;
  for (std::size_t i = 0; i < mark; ++i) sync.feed(lines[i]), aside.feed(lines[i]);
  const std::uint64_t now = sync.runRecords();
  const std::uint64_t from = now - std::min(now, keep);
  const std::uint64_t heldBefore = sync.heldRecords();
  sync.cut(from);
  const bool drops = sync.heldRecords() != heldBefore || sync.snapshot()->cut().cut != aside.snapshot()->cut().cut;
  aside.cutAside(from);
  CHECK(aside.cutPending() == drops);
  for (std::size_t i = mark; i < lines.size(); ++i) sync.feed(lines[i]), aside.feed(lines[i]);
  sync.finish();
  aside.finish();
  CHECK(aside.finishCut(true) == drops);
  CHECK_FALSE(aside.cutPending());
  CHECK(aside.heldRecords() == sync.heldRecords());
  CHECK(aside.runRecords() == sync.runRecords());
  const auto a = aside.take(), b = sync.take();
  INFO("mark " << mark << ", keep " << keep);
  CHECK(describe(*a) == describe(*b));
}

// two-hosts.trace with a clock record of its relay after each record from
// the relay's start on: the relay's clock exchanges, kept apart from the
// arrival order (Trace::referenceClocks).
std::string withRelayClocks() {
  std::string out;
  bool relay = false;
  const std::string text = readFile(dataPath("two-hosts.trace"));
  for (std::string_view line : linesOf(text)) {
    out += line;
    relay = relay || line.find("relay.start") != std::string_view::npos;
    if (!relay || line.starts_with("#")) continue;
    const std::string_view times = line.substr(0, line.find(" t"));
    out += std::string(times) + " t80001 clock ref=t40001 ref_s=1763680001 ref_ns=1000000 turn_ns=40 rtt_ns=58282 phase=0 rc=1\n";
  }
  return out;
}

}  // namespace

TEST_CASE("a cut made aside while reading goes on is the cut made in place", "[window]") {
  {
    INFO("two-hosts.trace with its relay's clocks");
    const std::string text = withRelayClocks();
    const auto lines = linesOf(text);
    REQUIRE(loadTraceText(text).trace->referenceClocks().size() == 1);
    for (std::size_t mark = 1; mark <= lines.size(); ++mark)
      for (std::uint64_t keep : {std::uint64_t{0}, std::uint64_t{2}, std::uint64_t{5}}) compareAt(lines, mark, keep);
  }
  for (const char* name : {"cholesky_hang.trace", "barrier.trace", "two-hosts.trace", "handler_hang.trace",
                           "abrun_lost_tail.trace", "mcast.trace"}) {
    INFO(name);
    const std::string text = readFile(dataPath(name));
    const auto lines = linesOf(text);
    const std::size_t step = std::max<std::size_t>(1, lines.size() / 40);
    for (std::size_t mark = 1; mark <= lines.size(); mark += step)
      for (std::uint64_t keep : {std::uint64_t{0}, std::uint64_t{3}, std::uint64_t{40}, std::uint64_t{1} << 40})
        compareAt(lines, mark, keep);
  }
}

TEST_CASE("a cut made aside, then more: a second cut waits for the first, take() for the last", "[window]") {
  const std::string text = readFile(dataPath("cholesky_hang.trace"));
  const auto lines = linesOf(text);
  TraceReader sync, aside;
  const std::size_t third = lines.size() / 3;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    sync.feed(lines[i]);
    aside.feed(lines[i]);
    if (i == third || i == 2 * third) {
      const std::uint64_t from = sync.runRecords() - std::min<std::uint64_t>(sync.runRecords(), 5);
      sync.cut(from);
      aside.cutAside(from);  // the second waits for the first, then is made aside
    }
  }
  CHECK(aside.cutPending());
  const auto a = aside.take(), b = sync.take();
  CHECK(a->cut().cut);
  CHECK(describe(*a) == describe(*b));
}
