// control_panel.h -- stepping the live program from xabview:
// a client of abmon's control socket (abmon --control PATH; the protocol
// is in docs/abmon.md, "Control mode").  Shows which call each held task
// is about to make; steps the selected task or all, continues, stops, and
// runs to breakpoints on call names, tags and tasks (a list of them, added
// and removed in the panel), and sets what the tasks omit (filtering at the
// source: pack, clock) for the selected task or all.  Talks to abmon only, never to the
// trace: the diagram shows the stepped calls as they come through the pipe.
#pragma once

#include <QDockWidget>
#include <QMap>
#include <QStringList>
#include <QTimer>

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QSocketNotifier;

namespace xab::view {

class ControlPanel : public QDockWidget {
  Q_OBJECT
 public:
  explicit ControlPanel(const QString& socketPath, QWidget* parent = nullptr);
  ~ControlPanel() override;

  bool connected() const { return fd_ >= 0 && greeted_; }
  // The held tasks, "t40002 send peer t40001 tag 16004 (3)" (3: the
  // task's ask number), in tid order.
  QStringList waiting() const;
  QString statusText() const;
  // Step selected, step all, continue, stop, run to breakpoint (with keys).
  QList<QAction*> controlActions() const { return actions_; }
  void selectTask(const QString& tid);
  // The breakpoints abmon has taken, "call barrier", "tag 16004", "task t40002".
  QStringList breakpoints() const { return breaks_; }

 public slots:
  void stepSelected();
  void stepAll();
  void continueRun();
  void stopRun();
  void runToBreakpoint();  // adds the breakpoint in the fields (if any), continues
  void addBreakpoint();    // the kind and value in the fields (task: the selected one if empty)
  void removeBreakpoint(); // the selected breakpoint
  void setFilter();        // the families ticked, omitted from now on by all tasks or the selected one

 signals:
  void changed();  // the held tasks or the connection changed

 private:
  void tryConnect();
  void disconnectSocket(const QString& why);
  void onReadable();
  void handleLine(const QString& line);
  void request(const QString& line);
  void refresh();

  QString path_;
  int fd_ = -1;
  bool greeted_ = false;
  QSocketNotifier* notifier_ = nullptr;
  QByteArray in_;
  QStringList sent_;                  // requests not answered yet, oldest first
  QMap<QString, QString> waiting_;    // tid -> "call peer tag"
  QMap<QString, QString> listing_;    // a list answer being read
  QString status_;
  QTimer retry_;
  QLabel* statusLabel_ = nullptr;
  QListWidget* list_ = nullptr;
  QString breakInFields() const;  // "KIND VALUE", or empty
  QComboBox* breakKind_ = nullptr;
  QLineEdit* breakValue_ = nullptr;
  QListWidget* breakList_ = nullptr;
  QStringList breaks_;
  QList<QAction*> actions_;
  QCheckBox* filterPack_ = nullptr;
  QCheckBox* filterClock_ = nullptr;
  QComboBox* filterTarget_ = nullptr;
  QStringList filterTold_;  // a filter answer's "TID WORDS" lines being read
};

}  // namespace xab::view
