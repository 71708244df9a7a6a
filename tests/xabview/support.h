// Helpers shared by the xabview tests.
#pragma once

#include "diagram_painter.h"
#include "snapshot.h"
#include "view_state.h"

#include <QAbstractItemModel>
#include <QImage>
#include <QString>
#include <QStringList>

#include <functional>

#include <memory>
#include <string>

namespace xab::view::test {

std::string dataPath(const std::string& name);
// A snapshot of a whole trace file (errors included), input ended.
std::shared_ptr<ViewSnapshot> snapshotOf(const std::string& path);
std::shared_ptr<ViewSnapshot> snapshotOfText(std::string_view text);
// A master (t40002) kept waiting by its workers (a, 0) from 1.0 s to 1.1 s
// and (b, 0) from 1.1 s to 3.0 s after 1000 s, each computing until it
// sends: late senders whose causes are known (the Why-slow tab's tests).
std::string lateWorkersTrace();
// A ring of `tasks` tasks in milliseconds, in abmon's order (each round's records batch by
// batch): each computes 3 ms (task i: i ms more every third round), sends
// to its right and waits for its left neighbour's message.
std::string slowRingTrace(int rounds, int tasks);
// The whole diagram of `state` painted into `img` (white first); its layout.
DiagramLayout paintDiagramInto(QImage& img, const ViewState& state, DiagramStats* stats = nullptr);
// The first task with this name and instance.
TaskIndex taskNamed(const ViewSnapshot& s, std::string_view name, int instance);

// Attaches a QAbstractItemModelTester to `model`; its complaints land in
// messages() (a Qt message handler), so a test can CHECK there are none.
class ModelChecker {
 public:
  explicit ModelChecker(QAbstractItemModel* model);
  ~ModelChecker();
  QStringList messages() const;
 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A trace file that grows as abmon would write it while a program runs:
// the header and two tasks' first records (master t40002, worker t40003),
// then whatever records the test appends, `stepNs` apart in time.
class GrowingTrace {
 public:
  // `startNs`: the first record's time (0: a fixed day in the past).
  explicit GrowingTrace(const QString& path, long long stepNs = 1'000'000, long long startNs = 0);
  ~GrowingTrace();
  GrowingTrace(const GrowingTrace&) = delete;
  GrowingTrace& operator=(const GrowingTrace&) = delete;
  // One record ("t40003 initsend enc=0 rc=1": tid, event, fields), written at once.
  void rec(const std::string& rest);
  // `n` records of the worker, in one write.
  void workerCalls(int n = 1);
  int records() const { return records_; }

 private:
  std::string line(const std::string& rest);
  void write(const std::string& s);
  int fd_ = -1;
  long long stepNs_;
  long long t_ = 1763680000'100000000LL;
  int records_ = 0;
};

// Runs the Qt event loop until done() holds; false after `ms` (a safety
// net for a broken build, not a timing check).
bool waitUntil(const std::function<bool()>& done, int ms = 20000);

}  // namespace xab::view::test
