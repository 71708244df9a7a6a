// Every item model of xab_viewmodels under QAbstractItemModelTester, fed
// the way the viewer feeds them: snapshots that grow, a replay position
// that moves, a filter that changes.
#include "activity.h"
#include "analysis_pace.h"
#include "event_log_model.h"
#include "panel_models.h"
#include "row_set.h"
#include "support.h"
#include "task_table_model.h"

#include <catch2/catch.hpp>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

namespace {

// The trace cut after `lines` lines: what a live reader would have seen.
std::shared_ptr<ViewSnapshot> prefixSnapshot(const std::string& path, int lines) {
  auto whole = loadTraceFile(path);
  std::string text;
  {
    FILE* f = std::fopen(path.c_str(), "r");
    REQUIRE(f);
    char buf[4096];
    int n = 0;
    while (n < lines && std::fgets(buf, sizeof buf, f)) {
      text += buf;
      ++n;
    }
    std::fclose(f);
  }
  auto s = snapshotOfText(text);
  s->inputEnded = false;
  return s;
}

// Drives a ViewState through growth, steps, filters and back to live.
void exercise(ViewState& state, const std::string& path) {
  state.setSnapshot(prefixSnapshot(path, 8));
  state.setSnapshot(prefixSnapshot(path, 20));
  state.setSnapshot(snapshotOf(path));
  state.step(-5);
  state.step(2);
  state.setPosition(0);
  state.setPosition(state.size());
  state.setLive(true);
}

}  // namespace

TEST_CASE("task table model: one row per task, words follow the replay position") {
  ViewState state;
  TaskTableModel model(&state);
  ModelChecker checker(&model);
  exercise(state, dataPath("cholesky_hang.trace"));
  CHECK(model.rowCount() == 4);
  CHECK(model.columnCount() == TaskTableModel::ColumnCount);
  auto doing = [&](int row) { return model.data(model.index(row, TaskTableModel::DoingCol), Qt::DisplayRole).toString(); };
  CHECK(model.data(model.index(0, TaskTableModel::TaskCol), Qt::DisplayRole).toString() == "(cholhost, 0)");
  CHECK(doing(0).startsWith("blocked in recv(src any, tag 16040)"));
  CHECK(model.data(model.index(0, 0), Qt::BackgroundRole).isValid());  // blocked rows stand out
  state.setPosition(2);  // abmon.start, the host's mytid
  CHECK(doing(0) == "enrolled in PVM");
  CHECK(doing(1) == "not started");
  CHECK(model.data(model.index(1, TaskTableModel::RecordsCol), Qt::DisplayRole).toInt() == 0);
  CHECK(checker.messages().isEmpty());
}

TEST_CASE("task table model: the CPU column, each task's CPU and waiting-for-a-CPU share of its life up to the position") {
  ViewState state;
  TaskTableModel model(&state);
  ModelChecker checker(&model);
  state.setSnapshot(snapshotOf(dataPath("why_overload.trace")));
  const Trace& trace = *state.snapshot()->trace;
  const int busy = static_cast<int>(*trace.findTask(0x80002)), quick = static_cast<int>(*trace.findTask(0x40003)),
            master = static_cast<int>(*trace.findTask(0x40002));
  auto cpu = [&](int row) { return model.data(model.index(row, TaskTableModel::CpuCol), Qt::DisplayRole).toString(); };
  state.setPosition(state.size());
  // node1's worker, 1000.1 s to 1003.1 s: 0.7 s of CPU, 2.3 s ready without one.
  CHECK(cpu(busy) == "23 %, 77 % waiting");
  CHECK(model.data(model.index(busy, TaskTableModel::CpuCol), Qt::ToolTipRole).toString().contains("(76.7 %)"));
  CHECK(cpu(quick) == "88 %, 1 % waiting");  // vm's: 0.88 s of its 1.0 s
  CHECK(cpu(master).isEmpty());              // never sampled
  REQUIRE(cpuShareAt(state, static_cast<TaskIndex>(busy)));
  CHECK(cpuShareAt(state, static_cast<TaskIndex>(busy))->alive == 3'000'000'000);
  // Replayed to vm's worker's exit (1001.1 s): between node1's samples at
  // 1001 s (0.3 s, 0.6 s) and 1002 s (0.5 s, 1.4 s), 0.32 s and 0.68 s in 1.0 s.
  std::size_t at = 0;
  state.setPosition(at);
  while (at < state.size() && state.cursorTime() < 1001'100'000'000) state.setPosition(++at);
  REQUIRE(state.cursorTime() == 1001'100'000'000);
  CHECK(cpu(busy) == "32 %, 68 % waiting");
  state.setPosition(3);  // before the worker's first record
  CHECK(cpu(busy).isEmpty());
  // A trace without samples: the column is empty.
  state.setSnapshot(snapshotOf(dataPath("cholesky_hang.trace")));
  state.setPosition(state.size());
  for (int row = 0; row < model.rowCount(); ++row) CHECK(cpu(row).isEmpty());
  CHECK(checker.messages().isEmpty());
}

namespace {

// A RowSet of n positions holds exactly the rows `kept` (sorted).
void checkRows(const RowSet& rows, const std::vector<std::size_t>& kept, std::size_t n) {
  REQUIRE(rows.covered() == n);
  REQUIRE(rows.size() == kept.size());
  for (std::size_t r = 0; r < kept.size(); ++r) REQUIRE(rows.positionOf(r) == kept[r]);
  for (std::size_t p = 0; p <= n + 1; ++p) {
    const auto below = static_cast<std::size_t>(std::lower_bound(kept.begin(), kept.end(), p) - kept.begin());
    REQUIRE(rows.rowsBefore(p) == below);
    REQUIRE(rows.contains(p) == std::binary_search(kept.begin(), kept.end(), p));
  }
}

}  // namespace

TEST_CASE("event log model: every record, filterable, rows appended as records arrive") {
  ViewState state;
  EventLogModel model(&state);
  ModelChecker checker(&model);
  exercise(state, dataPath("cholesky_hang.trace"));
  REQUIRE(model.rowCount() == 33);
  CHECK(model.data(model.index(32, EventLogModel::EventCol), Qt::DisplayRole).toString() == "recv.begin");
  CHECK(model.data(model.index(0, EventLogModel::TaskCol), Qt::DisplayRole).toString() == "abmon");
  // The fields, cut short in a narrow column, are whole in the tool tip.
  for (int r : {1, 20, 32}) {
    const QString fields = model.data(model.index(r, EventLogModel::FieldsCol), Qt::DisplayRole).toString();
    CHECK_FALSE(fields.isEmpty());
    CHECK(model.data(model.index(r, EventLogModel::FieldsCol), Qt::ToolTipRole).toString() == fields);
  }

  EventFilter byTag;
  byTag.tag = 16004;
  state.setFilter(byTag);
  CHECK(model.rowCount() == 3);  // the three nodes' sends
  for (int r = 0; r < 3; ++r)
    CHECK(model.data(model.index(r, EventLogModel::EventCol), Qt::DisplayRole).toString() == "send");

  EventFilter byTask;
  byTask.tasks.insert(taskNamed(*state.snapshot(), "cholhost", 0));
  state.setFilter(byTask);
  CHECK(model.rowCount() == 7);
  std::size_t last = model.positionOfRow(6);
  CHECK(model.rowOfPosition(last) == 6);
  CHECK(model.rowOfPosition(0) == -1);  // abmon.start is not the host's

  EventFilter byCall;
  byCall.kind = Kind::PKFLOAT;
  state.setFilter(byCall);
  CHECK(model.rowCount() == 3);

  // Filtered rows still grow with the input.
  state.setFilter(byTask);
  state.setSnapshot(prefixSnapshot(dataPath("cholesky_hang.trace"), 30));
  state.setFilter(byTask);
  int before = model.rowCount();
  state.setSnapshot(snapshotOf(dataPath("cholesky_hang.trace")));
  CHECK(model.rowCount() > before);
  CHECK(checker.messages().isEmpty());
}

TEST_CASE("event log rows: the positions kept, as a list of them would say, on either side of the switch") {
  // Filters that keep nearly all (the default: libab's records out),
  // nearly none, and half, appended in pieces as snapshots come.
  for (unsigned every : {50u, 2u, 1u, 0u}) {
    INFO("every " << every);
    RowSet rows;
    std::vector<std::size_t> kept;
    std::size_t n = 0;
    for (std::size_t piece : {0, 7, 300, 1, 2000}) {
      std::vector<bool> keep(piece);
      for (std::size_t i = 0; i < piece; ++i) {
        const std::size_t p = n + i;
        const bool dropped = every == 0 ? p % 7 != 3 : p % every == 0;  // every 0: keep one in seven
        keep[i] = !dropped;
        if (!dropped) kept.push_back(p);
      }
      rows.append(keep);
      n += piece;
      checkRows(rows, kept, n);
    }
    // The shorter side is kept: a filter that drops one in fifty holds a
    // fiftieth of the positions.
    if (every == 50) CHECK(rows.memoryBytes() <= (n / 50 + 64) * sizeof(std::uint32_t));
  }
}

TEST_CASE("event log rows: a later window's shift drops the rows before its cut, moves the rest, adds the carried in front") {
  // The same filters, with cuts: the rows after each equal those of the
  // new window's positions filtered whole (position q of the window is
  // run position start + q, its first `carried` another rule's).
  for (unsigned every : {50u, 2u, 1u, 0u}) {
    INFO("every " << every);
    auto rowAt = [&](std::size_t run) { return every == 0 ? run % 7 == 3 : run % every != 0; };
    auto carriedRow = [&](std::size_t i) { return i % 3 != 1; };
    RowSet rows;
    std::size_t start = 0, carried = 0, n = 0;  // the window: run positions [start + carried, start + n), carried in front
    auto keepOf = [&](std::size_t q) { return q < carried ? carriedRow(q) : rowAt(start + q); };
    std::uint32_t shuffle = 12345;
    for (int step = 0; step < 40; ++step) {
      shuffle = shuffle * 1103515245u + 12345u;
      if (step % 3 == 2 && n > carried + 2) {
        // A cut keeps from a record past the carried ones on, and carries new ones.
        const std::size_t firstKept = carried + 1 + (shuffle >> 8) % (n - carried - 1);
        const std::size_t newCarried = std::min<std::size_t>((shuffle >> 4) % 5, firstKept);
        const std::size_t shift = firstKept - newCarried;
        std::vector<bool> front(newCarried);
        for (std::size_t i = 0; i < newCarried; ++i) front[i] = carriedRow(i);
        rows.shift(firstKept, shift, front);
        start += shift;
        carried = newCarried;
        n -= shift;
      } else {
        const std::size_t piece = (shuffle >> 8) % 900;
        std::vector<bool> keep(piece);
        for (std::size_t i = 0; i < piece; ++i) keep[i] = keepOf(n + i);
        rows.append(keep);
        n += piece;
      }
      std::vector<std::size_t> kept;
      for (std::size_t q = 0; q < n; ++q)
        if (keepOf(q)) kept.push_back(q);
      checkRows(rows, kept, n);
    }
  }
}

TEST_CASE("barrier models: instances, last arriver, totals per task") {
  ViewState state;
  BarrierWaitModel instances(&state);
  BarrierTotalsModel totals(&state);
  ModelChecker c1(&instances), c2(&totals);
  exercise(state, dataPath("barrier.trace"));
  REQUIRE(instances.rowCount() == 2);
  CHECK(instances.data(instances.index(0, BarrierWaitModel::GroupCol), Qt::DisplayRole).toString() == "w");
  CHECK(instances.data(instances.index(0, BarrierWaitModel::LastCol), Qt::DisplayRole).toString() == "(worker, 2)");
  CHECK(instances.data(instances.index(0, BarrierWaitModel::TasksCol), Qt::DisplayRole).toString() == "3 of 3");
  CHECK(instances.data(instances.index(0, BarrierWaitModel::LateCol), Qt::DisplayRole).toString() == "500.0 ms");
  CHECK(instances.data(instances.index(0, 0), Qt::ToolTipRole).toString().contains("(worker, 0): waited 600.0 ms"));
  REQUIRE(totals.rowCount() == 3);
  CHECK(totals.data(totals.index(0, BarrierTotalsModel::WaitCol), Qt::DisplayRole).toString() == "700.0 ms");
  CHECK(c1.messages().isEmpty());
  CHECK(c2.messages().isEmpty());
}

TEST_CASE("message models: the matrix per pair, the queue of messages not yet received") {
  ViewState state;
  MessageMatrixModel matrix(&state);
  PendingQueueModel pending(&state);
  ModelChecker c1(&matrix), c2(&pending);
  exercise(state, dataPath("cholesky_hang.trace"));
  const ViewSnapshot& s = *state.snapshot();
  int host = static_cast<int>(taskNamed(s, "cholhost", 0));
  int node1 = static_cast<int>(taskNamed(s, "cholnode", 1));
  REQUIRE(matrix.rowCount() == 4);
  CHECK(matrix.data(matrix.index(host, node1), Qt::DisplayRole).toInt() == 1);  // the mcast
  matrix.setMetric(MessageMatrixModel::Metric::Bytes);
  CHECK(matrix.data(matrix.index(host, node1), Qt::DisplayRole).toInt() == 32);
  CHECK(matrix.headerData(host, Qt::Vertical, Qt::DisplayRole).toString().startsWith("(cholhost, 0)"));
  // At the end the host has three tag-16004 messages queued, 32 bytes each.
  REQUIRE(pending.rowCount() == 3);
  for (int r = 0; r < 3; ++r) {
    CHECK(pending.data(pending.index(r, PendingQueueModel::ReceiverCol), Qt::DisplayRole).toString() == "(cholhost, 0)");
    CHECK(pending.data(pending.index(r, PendingQueueModel::TagCol), Qt::DisplayRole).toString() == "16004");
    CHECK(pending.data(pending.index(r, PendingQueueModel::BytesCol), Qt::DisplayRole).toInt() == 32);
  }
  // Right after the mcast, before any node received it, it is queued for all three.
  std::size_t mcastAt = 0;
  for (std::size_t p = 0; p < s.size(); ++p)
    if (s.eventAt(p).kind == Kind::MCAST) mcastAt = p;
  state.setPosition(mcastAt + 1);
  CHECK(pending.rowCount() == 3);
  CHECK(pending.data(pending.index(0, PendingQueueModel::TagCol), Qt::DisplayRole).toString() == "16001");
  CHECK(c1.messages().isEmpty());
  CHECK(c2.messages().isEmpty());
}

TEST_CASE("message matrix: follows the replay position, one step at a time, and at the end it is the model's pair table") {
  ViewState state;
  MessageMatrixModel matrix(&state);
  ModelChecker checker(&matrix);
  state.setSnapshot(snapshotOf(dataPath("mismatch.trace")));
  const ViewSnapshot& s = *state.snapshot();
  int producer = static_cast<int>(taskNamed(s, "producer", 0)), consumer = static_cast<int>(taskNamed(s, "consumer", 0));
  auto cell = [&](MessageMatrixModel::Metric m) {
    matrix.setMetric(m);
    return matrix.data(matrix.index(producer, consumer), Qt::DisplayRole).toString();
  };
  using M = MessageMatrixModel::Metric;
  // Where the two sends and the two receives are in the arrival order.
  std::vector<std::size_t> sends, recvs;
  for (std::size_t p = 0; p < s.size(); ++p) {
    const Event& e = s.eventAt(p);
    if (e.kind == Kind::SEND) sends.push_back(p);
    if (e.kind == Kind::RECV && !e.isBegin()) recvs.push_back(p);
  }
  REQUIRE(sends.size() == 2);
  REQUIRE(recvs.size() == 2);
  REQUIRE(sends[1] < recvs[0]);  // the producer's records arrived first

  state.setPosition(0);
  CHECK(cell(M::Count).isEmpty());
  qulonglong last = 0;
  for (std::size_t p = 1; p <= s.size(); ++p) {
    state.step(1);  // exactly as the Step button
    REQUIRE(state.position() == p);
    qulonglong n = cell(M::Count).toULongLong();
    CHECK(n >= last);  // stepping forward never takes a message back
    last = n;
    // The position shows records [0, p): a message counts once its send is shown.
    qulonglong sentByNow = (p > sends[0]) + (p > sends[1]);
    CHECK(n == sentByNow);
    CHECK(cell(M::Bytes).toULongLong() == 32 * sentByNow);
    // Bandwidth needs a receive: none before the first is shown.
    if (p <= recvs[0]) CHECK(cell(M::Bandwidth) == (sentByNow ? "0.00" : ""));
    else CHECK(cell(M::Bandwidth).toDouble() > 0);
  }
  // At the end: the model's own pair table, for every metric.
  const PairStats& all = s.messages().pairs.at({static_cast<TaskIndex>(producer), static_cast<TaskIndex>(consumer)});
  CHECK(cell(M::Count).toULongLong() == all.count);
  CHECK(cell(M::Bytes).toULongLong() == all.bytes);
  CHECK(cell(M::Bandwidth) == QString::number(all.bandwidth() / 1e6, 'f', 2));
  CHECK(matrix.data(matrix.index(producer, consumer), Qt::ToolTipRole).toString().contains("2 messages, 64 bytes"));
  // Stepping back takes them away again.
  state.setPosition(sends[1]);
  CHECK(cell(M::Count) == "1");
  state.setPosition(sends[0]);
  CHECK(cell(M::Count).isEmpty());
  CHECK(checker.messages().isEmpty());
}

TEST_CASE("message matrix: a message never received counts as sent to its named destination, without bandwidth") {
  ViewState state;
  MessageMatrixModel matrix(&state);
  ModelChecker checker(&matrix);
  exercise(state, dataPath("cholesky_hang.trace"));
  const ViewSnapshot& s = *state.snapshot();
  auto host = taskNamed(s, "cholhost", 0), node1 = taskNamed(s, "cholnode", 1);
  auto at = pairsAt(s, s.size());
  const PairAt& p = at.at({node1, host});  // the tag-16004 result the host never took
  CHECK(p.count == 1);
  CHECK(p.bytes == 32);
  CHECK(p.receivedBytes == 0);
  CHECK(p.bandwidth() == 0);
  CHECK(s.messages().pairs.count({node1, host}) == 0);  // the model counts received messages only
  CHECK(matrix.data(matrix.index(static_cast<int>(node1), static_cast<int>(host)), Qt::DisplayRole).toInt() == 1);
  CHECK(pairsAt(s, 0).empty());
  CHECK(checker.messages().isEmpty());
}

namespace {

// The matrix and the queue as the definitions say, from the messages and
// the trace's records (slow): what pairsAt and pendingAt must agree with.
struct Reference {
  PairMatrix pairs;
  std::vector<PendingEntry> pending;
};

Reference reference(const ViewSnapshot& s, std::size_t position) {
  Reference out;
  const Trace& tr = *s.trace;
  for (std::uint32_t i = 0; i < s.messages().messages.size(); ++i) {
    const Message& m = s.messages().messages[i];
    if (tr.event(m.send).seq >= position) continue;
    for (const MessageReceive& r : m.receives) {
      const Event& e = tr.event(r.recv);
      auto bytes = static_cast<std::uint64_t>(std::max(e.get(Key::Bytes) > 0 ? e.get(Key::Bytes) : m.bytes, 0));
      PairAt& p = out.pairs[{m.sender, r.recv.task}];
      ++p.count;
      p.bytes += bytes;
      if (e.seq < position) {
        p.receivedBytes += bytes;
        p.transit += std::max<TimeNs>(e.time - m.time, 0);
      } else {
        out.pending.push_back({r.recv.task, i});
      }
    }
    for (Tid d : m.unreceived) {
      auto r = tr.findTask(d);
      if (!r) continue;
      PairAt& p = out.pairs[{m.sender, *r}];
      ++p.count;
      p.bytes += static_cast<std::uint64_t>(std::max(m.bytes, 0));
      out.pending.push_back({*r, i});
    }
  }
  std::stable_sort(out.pending.begin(), out.pending.end(),
                   [](const PendingEntry& a, const PendingEntry& b) { return a.receiver < b.receiver; });
  return out;
}

}  // namespace

TEST_CASE("pair matrix and pending queue at every position agree with the definitions") {
  for (const char* file : {"cholesky_hang.trace", "mismatch.trace", "mcast.trace", "barrier.trace"}) {
    INFO(file);
    auto s = snapshotOf(dataPath(file));
    for (std::size_t p = 0; p <= s->size(); ++p) {
      INFO("position " << p);
      Reference want = reference(*s, p);
      PairMatrix got = pairsAt(*s, p);
      REQUIRE(got.size() == want.pairs.size());
      for (const auto& [key, w] : want.pairs) {
        REQUIRE(got.count(key));
        const PairAt& g = got.at(key);
        CHECK(g.count == w.count);
        CHECK(g.bytes == w.bytes);
        CHECK(g.receivedBytes == w.receivedBytes);
        CHECK(g.transit == w.transit);
      }
      auto pending = pendingAt(*s, p);
      REQUIRE(pending.size() == want.pending.size());
      for (std::size_t i = 0; i < pending.size(); ++i) {
        CHECK(pending[i].receiver == want.pending[i].receiver);
        CHECK(pending[i].message == want.pending[i].message);
      }
    }
  }
}

TEST_CASE("Doing now names peers as (name, instance), and says when a peer's records arrive later") {
  // The master's batch arrives before the worker's: in arrival order it
  // sends to and hears from a task whose first record is yet to come.
  const std::string text =
      "#xab-trace 1 abmon=t40001 host=vm pid=4242 start=1763680000.000000000\n"
      "1763680000.100000000 1763680000.100000000 t40002 mytid rc=t40002 name=master parent=none\n"
      "1763680000.200000000 1763680000.200000000 t40002 send dst=t40003 tag=1 bytes=4 serial=1 rc=0\n"
      "1763680000.500000000 1763680000.500000000 t40002 recv src=t40003 tag=2 bytes=4 serial=2 rc=1\n"
      "1763680000.150000000 1763680000.150000000 t40003 mytid rc=t40003 name=worker parent=t40002\n"
      "1763680000.300000000 1763680000.300000000 t40003 recv src=t40002 tag=1 bytes=4 serial=1 rc=1\n"
      "1763680000.400000000 1763680000.400000000 t40003 send dst=t40002 tag=2 bytes=4 serial=2 rc=0\n";
  ViewState state;
  state.setSnapshot(snapshotOfText(text));
  const TaskIndex master = taskNamed(*state.snapshot(), "master", 0);
  const TaskIndex worker = taskNamed(*state.snapshot(), "worker", 0);
  state.setPosition(2);
  QString sent = describeTask(state, master).text;
  INFO(sent.toStdString());
  CHECK(sent.contains("to (worker, 0)"));
  CHECK_FALSE(sent.contains("t40003"));
  CHECK(describeTask(state, worker).text == "not started");
  CHECK(sent.contains("records arrive later"));
  state.setPosition(3);
  QString got = describeTask(state, master).text;
  INFO(got.toStdString());
  CHECK(got.contains("from (worker, 0)"));
  CHECK(got.contains("records arrive later"));
  state.setPosition(state.size());
  CHECK_FALSE(describeTask(state, master).text.contains("later"));
  CHECK(describeTask(state, worker).text.contains("to (master, 0)"));
}

TEST_CASE("barrier chart's content: a bar per task, one use's waits or each task's total") {
  auto s = snapshotOf(dataPath("barrier.trace"));
  BarrierChartData use = barrierChartData(*s, 0);
  CHECK(use.title == "Barrier `w` use 0: each task's wait (last to arrive in orange)");
  REQUIRE(use.bars.size() == 3);
  CHECK(use.bars[0].label == "(worker, 0)");
  CHECK(use.bars[0].value == "600.0 ms");
  CHECK(use.bars[2].label == "(worker, 2)");
  CHECK(use.bars[2].value == "100.0 ms");
  CHECK(use.bars[2].last);
  CHECK_FALSE(use.bars[0].last);
  CHECK(use.most == use.bars[0].wait);
  BarrierChartData totals = barrierChartData(*s, -1);
  CHECK(totals.title == "Total barrier wait per task (select a barrier above for one instance)");
  REQUIRE(totals.bars.size() == 3);
  CHECK(totals.bars[0].value == "700.0 ms");
  CHECK(std::none_of(totals.bars.begin(), totals.bars.end(), [](const BarrierBar& b) { return b.last; }));
  CHECK(barrierChartData(*s, 2).title == totals.title);  // no such use: the totals
  BarrierChartData none = barrierChartData(*snapshotOf(dataPath("two-hosts.trace")), -1);
  CHECK(none.title == "No barrier in this trace (yet): nothing waited in pvm_barrier.");
  CHECK(none.bars.empty());
}

TEST_CASE("input panel's text: the failure, the source, malformed lines, the hosts") {
  CHECK(inputReportLines(nullptr, "no such file") == QStringList{"Cannot read the input: no such file"});
  auto bad = snapshotOfText(
      "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1763680000.0\n"
      "1763680001.000000000 1763680001.000000000 t40002 mytid rc=t40002 name=m host=vm parent=none lang=c pid=5\n"
      "this is no record\n");
  QStringList lines = inputReportLines(bad.get(), {});
  REQUIRE_FALSE(lines.isEmpty());
  CHECK(lines[0].startsWith("Source: "));
  CHECK(std::any_of(lines.begin(), lines.end(), [](const QString& l) { return l.startsWith("line 3: "); }));
  CHECK_FALSE(lines.contains("No malformed lines."));
  CHECK_FALSE(lines.contains("Hosts (how the records were collected):"));  // one host, no relay
  QStringList hosts = inputReportLines(snapshotOf(dataPath("two-hosts.trace")).get(), {});
  CHECK(hosts.contains("No malformed lines."));
  CHECK(hosts.contains("Hosts (how the records were collected):"));
  CHECK(std::any_of(hosts.begin(), hosts.end(),
                    [](const QString& l) { return l.startsWith("node1: ") && l.contains("by its relay"); }));
}

TEST_CASE("the next analysis rests twice the last one's time, but not after a cut or a dropped one") {
  using namespace std::chrono_literals;
  AnalysisPace pace;
  const auto t0 = AnalysisPace::Clock::now();
  CHECK(pace.rested(t0));  // none yet
  pace.finished(1000, t0, false);
  CHECK_FALSE(pace.rested(t0 + 1999ms));
  CHECK(pace.rested(t0 + 2000ms));
  // A cut: the window analysed is gone, the new one is analysed at once.
  pace.restart();
  CHECK(pace.rested(t0 + 1ms));
  // One that ran across a cut and was dropped owes no rest either; the
  // next one that is shown does.
  pace.finished(3000, t0 + 5s, true);
  CHECK(pace.rested(t0 + 5s));
  pace.finished(500, t0 + 6s, false);
  CHECK_FALSE(pace.rested(t0 + 6s + 999ms));
  CHECK(pace.rested(t0 + 7s));
}
