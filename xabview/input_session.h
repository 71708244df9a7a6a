// input_session.h -- the input being shown, and File > Open / Open Recent.
//
// One TraceLoader at a time reads the input into the shared ViewState.
// open() stops it and starts another on the new file, the view state
// cleared (no records, live, no filter or selection); snapshots still on
// their way from the old loader are dropped.  Every file opened (the
// command line's too) heads the recent files list, kept in QSettings
// ("xab", "xabview", key recentFiles, 8 at most).
#pragma once

#include "trace_loader.h"
#include "view_state.h"

#include <QObject>
#include <QStringList>

#include <memory>
#include <optional>

class QMenu;
class QMainWindow;

namespace xab::view {

class InputSession : public QObject {
  Q_OBJECT
 public:
  InputSession(ViewState* state, TraceLoader::Options options, QObject* parent = nullptr);
  ~InputSession() override;
  TraceLoader* loader() const { return loader_.get(); }
  QString path() const { return options_.path; }
  void start();
  void stop();
  // Whether opened files go in the recent list (not in scripted runs).
  void setRemember(bool on) { remember_ = on; }
  // Open... (Ctrl+O, a dialog) and Open Recent at the top of the window's
  // File menu.  Not while the input is standard input: the program writing
  // it (tee, abmon) would wait for a reader.
  void addFileActions(QMainWindow* window);

  static QStringList recentFiles();
  static constexpr int kRecentMax = 8;

 public slots:
  void open(const QString& path);
  void setTimeBase(bool rawTime, bool compensate);
  // Under a memory budget: the records around time t read again from the
  // input and shown instead of the live window (which goes on reading
  // behind them) until backToLive() or the replay's Live.
  void showHistory(xab::TimeNs t);
  void backToLive();

 signals:
  void opened(const QString& path);     // a new input, before its first records
  void loadFailed(const QString& message);
  void historyShown(bool shown);        // records of the past shown, or the live window again

 private:
  void remember(const QString& path);
  void fillRecent();

  ViewState* state_;
  TraceLoader::Options options_;
  std::unique_ptr<TraceLoader> loader_;
  unsigned generation_ = 0;  // snapshots of an older loader are not shown
  QMenu* recent_ = nullptr;
  bool remember_ = true;
  // The past is shown (showHistory): the live snapshots wait in latestLive_.
  bool historyShown_ = false;
  SnapshotPtr latestLive_;
  std::optional<TimeNs> historyTime_;  // the time asked for, until its records come
};

}  // namespace xab::view
