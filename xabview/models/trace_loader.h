// trace_loader.h -- the reader thread.
//
// Reads a trace from a pipe (`abmon | tee evfile | xabview`), a finished
// file, or a file that is still growing, on a thread of its own; parses
// with xab::TraceReader, builds a ViewSnapshot (analyses included) and
// hands it to the GUI thread with snapshotReady().  The GUI never parses
// and never waits for input, so a slow or silent producer cannot freeze
// it.  Anything the parser throws becomes loadFailed(), not a crash.
#pragma once

#include "snapshot.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <thread>

namespace xab::view {

using SnapshotPtr = std::shared_ptr<const ViewSnapshot>;

class TraceLoader : public QObject {
  Q_OBJECT
 public:
  struct Options {
    QString path;              // "" or "-": standard input
    bool follow = true;        // keep reading a regular file as it grows
    int minIntervalMs = 100;   // at most one snapshot per interval (pipes)
  };
  explicit TraceLoader(Options options, QObject* parent = nullptr);
  ~TraceLoader() override;

  void start();
  void stop();  // joins the thread
  QString sourceName() const;

 signals:
  void snapshotReady(xab::view::SnapshotPtr snapshot);
  void loadFailed(QString message);

 private:
  void run();
  bool readForeign();
  void publish(std::shared_ptr<ViewSnapshot> s);

  Options options_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
};

}  // namespace xab::view
