// Under a memory budget, live: at each cut the event log's rows, its Call
// box's counts and the Output tab move what they read to the new window
// and read only what the cut brought (the records carried across it) and
// the new records; what they show equals what fresh views of the same
// snapshot show, whatever the filter, across one cut or several, the past
// read again and back.
#include "output_panel.h"
#include "panels.h"
#include "support.h"

#include <QComboBox>
#include <QPlainTextEdit>
#include <QTemporaryDir>

#include <xab/model/source.h>

#include <catch2/catch.hpp>

#include <fstream>

using namespace xab;
using namespace xab::view;

namespace {

// `tasks` tasks in a ring, round after round: each sends (tags 1 to 3 in
// turn), now and then prints a line and writes libab's cost and flush
// records, and waits in a receive; a last task (the sleeper) waits in one
// receive from the start to the end, so each cut carries its begin across
// with abmon's start and the ring's receives open at the cut.
std::string ringWithSleeper(int rounds, int tasks) {
  std::string out = "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1763680000.000000000\n";
  long long us = 0;
  auto line = [&](int task, const std::string& rest) {
    ++us;
    char time[48];
    const long long s = 1763680001 + us / 1'000'000;
    std::snprintf(time, sizeof time, "%lld.%06lld000", s, us % 1'000'000);
    out += std::string(time) + " " + time + " t" + std::to_string(40001 + task) + " " + rest + "\n";
  };
  auto tid = [](int task) { return "t" + std::to_string(40002 + task); };
  line(0, "abmon.start version=2 batch=512 flush_ms=200");
  for (int i = 0; i <= tasks; ++i)
    line(i + 1, "mytid rc=" + tid(i) + " name=" + (i < tasks ? "ring" : "sleeper") + " host=vm parent=none lang=c pid=" +
                    std::to_string(100 + i));
  line(tasks + 1, "recv.begin src=any tag=99");
  for (int r = 0; r < rounds; ++r) {
    const std::string tag = std::to_string(1 + r % 3);
    for (int i = 0; i < tasks; ++i) {
      line(i + 1, "initsend enc=0 rc=1");
      line(i + 1, "send dst=" + tid((i + 1) % tasks) + " tag=" + tag + " bytes=8 serial=" + std::to_string(r + 1) + " rc=0");
      if ((r + i) % 4 == 0) line(i + 1, "output stream=stdout text=round%20" + std::to_string(r) + "%20of%20" + std::to_string(i));
      if ((r + i) % 5 == 0) line(i + 1, "cost burst=8 total_ns=0 rc=100");
      line(i + 1, "recv.begin src=any tag=" + tag);
    }
    for (int i = 0; i < tasks; ++i) {
      line(i + 1, "recv src=" + tid((i + tasks - 1) % tasks) + " tag=" + tag + " bytes=8 serial=" + std::to_string(r + 1) +
                      " rc=2");
      if ((r + i) % 7 == 0) line(i + 1, "flush dur_ns=1000 blocked=0 own_ns=10 own_calls=1 rc=4");
    }
  }
  line(1, "send dst=" + tid(tasks) + " tag=99 bytes=8 serial=" + std::to_string(rounds + 1) + " rc=0");
  line(tasks + 1, "recv src=" + tid(0) + " tag=99 bytes=8 serial=" + std::to_string(rounds + 1) + " rc=2");
  for (int i = 0; i <= tasks; ++i) line(i + 1, "exit rc=0");
  return out;
}

// The views under test, for one filter, fed every snapshot.
struct Views {
  ViewState state;
  EventLogPanel log{&state};
  OutputPanel output{&state};
  explicit Views(const EventFilter& f) { state.setFilter(f); }
  // Records each view read so far.
  std::uint64_t rowsRead() const { return log.model()->recordsRead(); }
  std::uint64_t countsRead() const { return log.callCounts().recordsRead(); }
  std::uint64_t outputRead() const { return output.recordsRead(); }
};

QStringList callTexts(const EventLogPanel& log) {
  auto* box = log.findChild<QComboBox*>("logCall");
  REQUIRE(box);
  QStringList out;
  for (int i = 0; i < box->count(); ++i) out << box->itemText(i);
  return out;
}

// What `v` shows equals what fresh views of its snapshot show.
void checkSameAsFresh(Views& v, const EventFilter& f) {
  Views fresh(f);
  fresh.state.setSnapshot(v.state.snapshotPtr());
  const EventLogModel& a = *v.log.model();
  const EventLogModel& b = *fresh.log.model();
  REQUIRE(a.rowCount() == b.rowCount());
  int differ = -1;  // the first row of another record
  for (int r = 0; r < a.rowCount() && differ < 0; ++r)
    if (a.positionOfRow(r) != b.positionOfRow(r)) differ = r;
  CHECK(differ == -1);
  for (int r : {0, a.rowCount() / 2, a.rowCount() - 1}) {
    if (r < 0) continue;
    for (int c = 0; c < EventLogModel::ColumnCount; ++c)
      CHECK(a.data(a.index(r, c), Qt::DisplayRole) == b.data(b.index(r, c), Qt::DisplayRole));
  }
  CHECK(callTexts(v.log) == callTexts(fresh.log));
  CHECK(v.output.lines() == fresh.output.lines());
  const auto* p = v.output.findChild<QPlainTextEdit*>("outputText");
  const auto* q = fresh.output.findChild<QPlainTextEdit*>("outputText");
  REQUIRE(p);
  REQUIRE(q);
  CHECK(p->placeholderText() == q->placeholderText());
}

std::vector<EventFilter> filters(const ViewSnapshot& s) {
  std::vector<EventFilter> out(6);
  out[1].libabRecords = true;                                // every record: no rows kept
  out[2].tasks.insert(test::taskNamed(s, "sleeper", 0));     // a task whose one record is carried
  out[3].tasks.insert(test::taskNamed(s, "ring", 2));
  out[4].kind = Kind::RECV;                                  // the ring's receive begins are carried
  out[5].tag = 2;
  out[5].libabRecords = true;
  return out;  // out[0]: the default, libab's records left out
}

// A budget's window over `text`, read in small pieces: `each(source)`
// after each piece.
void readWindowed(const std::string& text, std::uint64_t window, double keep,
                  const std::function<void(TraceSource&)>& each, QTemporaryDir& dir) {
  const QString path = dir.filePath("run.trace");
  {
    std::ofstream out(path.toStdString());
    out << text;
  }
  SourceOptions o;
  o.maxRecords = window;
  o.keepShare = keep;
  o.pieceBytes = 64 << 10;
  o.indexEvery = 4096;
  TraceSource source(path.toStdString(), o);
  REQUIRE(source.error().empty());
  while (source.next() != SourceStep::Ended) each(source);
  each(source);
}

// What a view may read at most for snapshot `s` after one of `seen`
// records of the window starting at `start`: the carried and new records
// of a later window, the new ones of the same, else the whole window.
std::uint64_t mayRead(const ViewSnapshot& s, std::uint64_t start, std::uint64_t seen, bool wasHistory) {
  if (const auto shift = s.shiftFrom(start, seen, wasHistory)) return shift->carried + (s.size() - (seen - shift->shift));
  if (s.windowStart() == start && s.fromHistory == wasHistory && s.size() >= seen) return s.size() - seen;
  return s.size();
}

// Views of every filter fed the same snapshots, each checked against fresh
// views of it, and what each read against what it may.
struct Feed {
  std::vector<std::unique_ptr<Views>> views;
  std::vector<EventFilter> fs;
  std::uint64_t start = 0, seen = 0;
  bool history = false;
  int moved = 0;  // snapshots the views moved to from an earlier window
  void show(const std::shared_ptr<ViewSnapshot>& s) {
    if (views.empty()) {
      fs = filters(*s);
      for (const EventFilter& f : fs) views.push_back(std::make_unique<Views>(f));
    }
    moved += s->shiftFrom(start, seen, history).has_value();
    const std::uint64_t bound = mayRead(*s, start, seen, history);
    INFO("window from " << s->windowStart() << ", " << s->size() << " records, carried " << s->trace->cut().carried
                        << (s->fromHistory ? " (the past)" : "") << "; before: from " << start << ", " << seen
                        << " seen; may read " << bound);
    for (std::size_t i = 0; i < views.size(); ++i) {
      INFO("filter " << i);
      Views& v = *views[i];
      const std::uint64_t rows = v.rowsRead(), counts = v.countsRead(), output = v.outputRead();
      v.state.setSnapshot(s);
      CHECK(v.rowsRead() - rows <= bound);
      CHECK(v.countsRead() - counts <= bound + CallCounts::kBlock);
      CHECK(v.outputRead() - output <= bound);
      checkSameAsFresh(v, fs[i]);
    }
    start = s->windowStart();
    seen = s->size();
    history = s->fromHistory;
  }
};

}  // namespace

TEST_CASE("cut views: after each cut the event log, its call counts and the output move what they read and read only what is new") {
  const std::string text = ringWithSleeper(3000, 6);
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  Feed feed;
  std::uint64_t lastRun = 0;
  int snapshots = 0;
  std::optional<std::uint64_t> selectedRun;  // the run position of the record held selected
  Event selectedEvent;
  readWindowed(text, 30000, 0.5, [&](TraceSource& source) {
    const TraceReader& reader = source.reader();
    // A snapshot every 6,000 records or so, as the loader takes them.
    if (reader.runRecords() < lastRun + 6000 && !source.ended()) return;
    lastRun = reader.runRecords();
    auto s = buildSnapshot(reader.snapshot());
    ++snapshots;
    INFO("snapshot " << snapshots);
    feed.show(s);
    // A record held selected stays the same record while the window holds
    // it, and its row is the same as a fresh view's.
    Views& held = *feed.views[3];
    if (selectedRun && *selectedRun >= s->trace->cut().position) {
      REQUIRE(held.state.selected());
      CHECK(*held.state.selected() + s->windowStart() == *selectedRun);
      const Event e = s->eventAt(*held.state.selected());
      CHECK(e.time == selectedEvent.time);
      CHECK(e.kind == selectedEvent.kind);
      Views fresh(feed.fs[3]);
      fresh.state.setSnapshot(s);
      const int row = held.log.model()->rowOfPosition(*held.state.selected());
      CHECK(row >= 0);
      CHECK(row == fresh.log.model()->rowOfPosition(*held.state.selected()));
    }
    // Select a record of the filter's in the newest quarter: a later cut keeps it.
    const EventLogModel& m = *held.log.model();
    const std::size_t pick = m.positionOfRow(m.rowAtOrBefore(s->size() - s->size() / 4));
    held.state.select(pick);
    selectedRun = s->windowStart() + pick;
    selectedEvent = s->eventAt(pick);
  }, dir);
  CHECK(feed.moved >= 3);  // cuts the views moved across, not only read again
  CHECK(snapshots >= 10);
}

TEST_CASE("cut views: two cuts between two snapshots move what both kept, or read the window again when none") {
  const std::string text = ringWithSleeper(3000, 6);
  for (const double keep : {0.75, 0.5}) {
    INFO("keeping " << keep << " of the window at each cut");
    QTemporaryDir dir;
    REQUIRE(dir.isValid());
    Feed feed;
    std::uint64_t cutsSeen = 0;
    int twice = 0;
    readWindowed(text, 20000, keep, [&](TraceSource& source) {
      if (source.cuts() < cutsSeen + 2 && !(source.ended() || source.cuts() == 0)) return;
      twice += source.cuts() == cutsSeen + 2;
      cutsSeen = source.cuts();
      feed.show(buildSnapshot(source.reader().snapshot()));
    }, dir);
    CHECK(twice >= 2);
    // Three quarters kept twice leave some of what was seen; a half, none.
    if (keep > 0.5) CHECK(feed.moved >= 2);
    else CHECK(feed.moved == 0);
  }
}

TEST_CASE("cut views: the past read again, then the newest window, are each read whole") {
  const std::string text = ringWithSleeper(1500, 6);
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  Feed feed;
  bool past = false;
  std::uint64_t lastRun = 0;
  readWindowed(text, 20000, 0.5, [&](TraceSource& source) {
    const TraceReader& reader = source.reader();
    if (reader.runRecords() < lastRun + 5000 && !source.ended()) return;
    lastRun = reader.runRecords();
    feed.show(buildSnapshot(reader.snapshot()));
    // Once the window moved on twice, a look at the past: records from
    // before the window, read again from the file (TraceLoader::readHistory).
    if (!past && source.cuts() >= 2) {
      past = true;
      std::string error;
      auto range = source.readRange(3000, 8000, &error);
      INFO(error);
      REQUIRE(range);
      auto s = buildSnapshot(range);
      s->fromHistory = true;
      feed.show(s);
    }
  }, dir);
  CHECK(past);
  CHECK(feed.moved >= 1);  // after coming back, later cuts move again
}

TEST_CASE("cut views: a selected record carried across a cut stays selected at the new window's front and one dropped is not") {
  const std::string text = ringWithSleeper(1000, 6);
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  std::shared_ptr<ViewSnapshot> before, after;
  readWindowed(text, 20000, 0.5, [&](TraceSource& source) {
    if (source.cuts() == 0) before = buildSnapshot(source.reader().snapshot());
    else if (!after) after = buildSnapshot(source.reader().snapshot());
  }, dir);
  REQUIRE(before);
  REQUIRE(after);
  REQUIRE(after->trace->cut().carried > 0);
  // The sleeper's receive, open from the start to the end: carried.
  const TaskIndex sleeper = test::taskNamed(*before, "sleeper", 0);
  std::size_t begin = 0;
  while (begin < before->size() && before->order.taskAt(begin) != sleeper) ++begin;
  REQUIRE(before->eventAt(begin).kind == Kind::MYTID);
  ++begin;
  while (before->order.taskAt(begin) != sleeper) ++begin;
  REQUIRE(before->eventAt(begin).kind == Kind::RECV);
  REQUIRE(before->eventAt(begin).isBegin());
  ViewState state;
  state.setSnapshot(before);
  state.select(begin);
  state.setSnapshot(after);
  REQUIRE(state.selected());
  CHECK(*state.selected() < after->trace->cut().carried);
  CHECK(after->order.taskAt(*state.selected()) == sleeper);
  CHECK(after->eventAt(*state.selected()).time == before->eventAt(begin).time);

  // A record the cut dropped, not carried, whose position less the shift
  // is a carried record's: no longer selected (not that record).
  const std::uint64_t shift = after->windowStart() - before->windowStart();
  std::size_t dropped = static_cast<std::size_t>(shift);
  auto carried = [&](std::size_t p) {
    for (std::uint32_t j = 0; j < after->trace->cut().carried; ++j)
      if (after->trace->runPosition(j) == before->trace->runPosition(static_cast<std::uint32_t>(p))) return true;
    return false;
  };
  while (carried(dropped)) ++dropped;
  REQUIRE(dropped < shift + after->trace->cut().carried);
  ViewState other;
  other.setSnapshot(before);
  other.select(dropped);
  other.setSnapshot(after);
  CHECK_FALSE(other.selected());
}
