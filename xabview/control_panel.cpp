#include "control_panel.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSocketNotifier>
#include <QVBoxLayout>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <xab/control_protocol.h>
#include <xab/filter.h>

#include <cerrno>
#include <cstring>

namespace xab::view {

ControlPanel::ControlPanel(const QString& socketPath, QWidget* parent)
    : QDockWidget("Control", parent), path_(socketPath) {
  setObjectName("controlPanel");
  auto* body = new QWidget;
  auto* box = new QVBoxLayout(body);
  statusLabel_ = new QLabel;
  statusLabel_->setObjectName("controlStatus");
  statusLabel_->setWordWrap(true);
  box->addWidget(statusLabel_);
  list_ = new QListWidget;
  list_->setObjectName("controlWaiting");
  list_->setToolTip("Tasks held before a PVM call: the call each is about to make");
  box->addWidget(list_);

  struct Item {
    const char* name;
    const char* text;
    QKeySequence key;
    void (ControlPanel::*slot)();
  };
  const Item items[] = {
      {"stepTask", "Step task", QKeySequence(Qt::Key_F10), &ControlPanel::stepSelected},
      {"stepAll", "Step all", QKeySequence(Qt::SHIFT | Qt::Key_F10), &ControlPanel::stepAll},
      {"continue", "Continue", QKeySequence(Qt::Key_F5), &ControlPanel::continueRun},
      {"stop", "Stop", QKeySequence(Qt::SHIFT | Qt::Key_F5), &ControlPanel::stopRun},
      {"runToBreak", "Run to breakpoint", QKeySequence(Qt::Key_F8), &ControlPanel::runToBreakpoint},
  };
  auto* buttons = new QHBoxLayout;
  for (const Item& it : items) {
    auto* a = new QAction(it.text, this);
    a->setObjectName(it.name);
    a->setShortcut(it.key);
    a->setShortcutContext(Qt::ApplicationShortcut);
    a->setToolTip(QString("%1 (%2)").arg(it.text, it.key.toString()));
    connect(a, &QAction::triggered, this, it.slot);
    actions_.append(a);
    auto* b = new QPushButton(it.text);
    b->setObjectName(QString(it.name) + "Button");
    b->setToolTip(a->toolTip());
    connect(b, &QPushButton::clicked, a, &QAction::trigger);
    buttons->addWidget(b);
  }
  box->addLayout(buttons);
  auto* breakRow = new QHBoxLayout;
  breakRow->addWidget(new QLabel("Break on"));
  breakKind_ = new QComboBox;
  breakKind_->setObjectName("controlBreakKind");
  breakKind_->addItems({XAB_CONTROL_CALL, XAB_CONTROL_TAG, XAB_CONTROL_TASK});
  breakKind_->setToolTip("Hold every task before a call of this name, before a call with this tag (a send's or a "
                         "receive's), or this task before any communicating call");
  breakRow->addWidget(breakKind_);
  breakValue_ = new QLineEdit("barrier");
  breakValue_->setObjectName("controlBreakValue");
  breakValue_->setToolTip("call: a PVM call name as in the trace (send, recv, barrier, spawn, ...); tag: a number; "
                          "task: a tid as in the trace (t40002), or empty for the selected held task");
  breakRow->addWidget(breakValue_);
  auto* add = new QPushButton("Add");
  add->setObjectName("controlBreakAddButton");
  connect(add, &QPushButton::clicked, this, &ControlPanel::addBreakpoint);
  breakRow->addWidget(add);
  box->addLayout(breakRow);
  auto* listRow = new QHBoxLayout;
  breakList_ = new QListWidget;
  breakList_->setObjectName("controlBreaks");
  breakList_->setToolTip("Breakpoints: \"Run to breakpoint\" (F8) continues until a task meets one");
  breakList_->setMaximumHeight(90);
  listRow->addWidget(breakList_);
  auto* remove = new QPushButton("Remove");
  remove->setObjectName("controlBreakRemoveButton");
  connect(remove, &QPushButton::clicked, this, &ControlPanel::removeBreakpoint);
  listRow->addWidget(remove, 0, Qt::AlignTop);
  box->addLayout(listRow);
  auto* filterRow = new QHBoxLayout;  // filtering at the source, changed live
  filterRow->addWidget(new QLabel("Omit"));
  filterPack_ = new QCheckBox(XAB_FILTER_NAME_PACK);
  filterPack_->setObjectName("controlFilterPack");
  filterPack_->setToolTip("Pack and unpack records: the pack/unpack check then skips the messages concerned");
  filterRow->addWidget(filterPack_);
  filterClock_ = new QCheckBox(XAB_FILTER_NAME_CLOCK);
  filterClock_->setObjectName("controlFilterClock");
  filterClock_->setToolTip("Clock records while running (the start and end exchanges stay)");
  filterRow->addWidget(filterClock_);
  filterTarget_ = new QComboBox;
  filterTarget_->setObjectName("controlFilterTarget");
  filterTarget_->addItems({"all tasks", "selected task"});
  filterTarget_->setToolTip("Every task that sends to abmon, or the held task selected above");
  filterRow->addWidget(filterTarget_);
  auto* setFilterButton = new QPushButton("Set filter");
  setFilterButton->setObjectName("controlFilterButton");
  setFilterButton->setToolTip("Tell the task(s) which families of records to omit from now on (filtering at the "
                              "source); their filter records say so in the trace");
  connect(setFilterButton, &QPushButton::clicked, this, &ControlPanel::setFilter);
  filterRow->addWidget(setFilterButton);
  box->addLayout(filterRow);
  setWidget(body);

  retry_.setInterval(1000);
  connect(&retry_, &QTimer::timeout, this, &ControlPanel::tryConnect);
  status_ = "connecting to " + path_;
  tryConnect();
  retry_.start();
  refresh();
}

ControlPanel::~ControlPanel() {
  if (fd_ >= 0) ::close(fd_);
}

// abmon may start after xabview (or be restarted): try every second.
void ControlPanel::tryConnect() {
  if (fd_ >= 0) return;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  QByteArray p = path_.toLocal8Bit();
  if (fd < 0 || p.size() >= static_cast<qsizetype>(sizeof addr.sun_path)) {
    if (fd >= 0) ::close(fd);
    return;
  }
  std::memcpy(addr.sun_path, p.constData(), static_cast<std::size_t>(p.size()));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return;
  }
  fd_ = fd;
  retry_.stop();
  notifier_ = new QSocketNotifier(fd_, QSocketNotifier::Read, this);
  connect(notifier_, &QSocketNotifier::activated, this, &ControlPanel::onReadable);
  status_ = "connected to " + path_ + "; waiting for abmon";
  refresh();
}

void ControlPanel::disconnectSocket(const QString& why) {
  if (fd_ < 0) return;
  delete notifier_;
  notifier_ = nullptr;
  ::close(fd_);
  fd_ = -1;
  greeted_ = false;
  in_.clear();
  sent_.clear();
  waiting_.clear();
  breaks_.clear();  // abmon clears a leaving client's breakpoints
  status_ = why + "; reconnecting to " + path_;
  retry_.start();
  refresh();
}

void ControlPanel::onReadable() {
  char chunk[4096];
  ssize_t n = ::read(fd_, chunk, sizeof chunk);
  if (n < 0 && errno == EINTR) return;
  if (n <= 0) {
    disconnectSocket("abmon closed the control connection");
    return;
  }
  in_.append(chunk, n);
  for (qsizetype nl; fd_ >= 0 && (nl = in_.indexOf('\n')) >= 0;) {
    QString line = QString::fromUtf8(in_.left(nl)).trimmed();
    in_.remove(0, nl + 1);
    handleLine(line);
  }
}

// What follows a line's first words `words` and their space.
static QString afterWord(const QString& line, const char* words) { return line.mid(qstrlen(words) + 1); }

// "t40002 seq 3 call send peer t40001 tag 16004" -> tid, "send peer t40001 tag 16004 (3)".
static std::pair<QString, QString> heldOf(const QString& rest) {
  QStringList w = rest.split(' ', Qt::SkipEmptyParts);
  if (w.size() < 5) return {};
  return {w[0], w.mid(4).join(' ') + " (" + w[2] + ")"};
}

void ControlPanel::handleLine(const QString& line) {
  if (!greeted_) {
    greeted_ = line == XAB_CONTROL_GREETING;
    if (line.startsWith(XAB_CONTROL_BUSY)) return disconnectSocket("abmon has another control client");
    status_ = greeted_ ? "stopped: tasks wait before each communicating call" : "not an abmon control socket";
    if (greeted_) request(XAB_CONTROL_LIST);
  } else if (line.startsWith(XAB_CONTROL_EVENT_WAIT " ")) {
    auto [tid, what] = heldOf(afterWord(line, XAB_CONTROL_EVENT_WAIT));
    if (!tid.isEmpty()) waiting_[tid] = what;
  } else if (line.startsWith(XAB_CONTROL_EVENT_GONE " ")) {
    waiting_.remove(afterWord(line, XAB_CONTROL_EVENT_GONE).trimmed().section(' ', 0, 0));  // "TID [host NAME HOW]"
  } else if (line.startsWith(XAB_CONTROL_WAIT " ")) {
    auto [tid, what] = heldOf(afterWord(line, XAB_CONTROL_WAIT));
    if (!tid.isEmpty()) listing_[tid] = what;
  } else if (line.startsWith(XAB_CONTROL_FILTER " ")) {
    filterTold_ << afterWord(line, XAB_CONTROL_FILTER);  // "TID WORDS", before filter's "ok COUNT"
  } else if (line.startsWith(XAB_CONTROL_OK) || line.startsWith(XAB_CONTROL_ERROR)) {
    QString req = sent_.isEmpty() ? QString() : sent_.takeFirst();
    if (line.startsWith(XAB_CONTROL_ERROR)) status_ = req + ": " + line;
    else if (req == XAB_CONTROL_LIST) waiting_ = listing_;
    else if (req == XAB_CONTROL_STEP " " XAB_CONTROL_ALL) waiting_.clear();
    else if (req.startsWith(XAB_CONTROL_STEP " ")) waiting_.remove(afterWord(req, XAB_CONTROL_STEP));
    else if (req.startsWith(XAB_CONTROL_BREAK " ") && !breaks_.contains(afterWord(req, XAB_CONTROL_BREAK)))
      breaks_.append(afterWord(req, XAB_CONTROL_BREAK));
    else if (req.startsWith(XAB_CONTROL_CLEAR " ")) breaks_.removeAll(afterWord(req, XAB_CONTROL_CLEAR));
    else if (req == XAB_CONTROL_CONTINUE) {
      waiting_.clear();
      status_ = "running to the next breakpoint";
    } else if (req == XAB_CONTROL_STOP) status_ = "stopped: tasks wait before each communicating call";
    else if (req.startsWith(XAB_CONTROL_FILTER " "))
      status_ = filterTold_.isEmpty() ? "filter: no task sends to abmon yet"
                                      : "filter set: " + filterTold_.join(", ");
    listing_.clear();
    filterTold_.clear();
  }
  refresh();
}

void ControlPanel::request(const QString& line) {
  if (!connected() && line != XAB_CONTROL_LIST) return;
  QByteArray bytes = (line + "\n").toUtf8();
  if (::send(fd_, bytes.constData(), static_cast<std::size_t>(bytes.size()), MSG_NOSIGNAL) != bytes.size()) {
    disconnectSocket("writing to abmon failed");
    return;
  }
  sent_.append(line);
}

void ControlPanel::stepSelected() {
  QListWidgetItem* item = list_->currentItem();
  if (!item && list_->count() == 1) item = list_->item(0);
  if (item) request(XAB_CONTROL_STEP " " + item->data(Qt::UserRole).toString());
}

void ControlPanel::stepAll() { request(XAB_CONTROL_STEP " " XAB_CONTROL_ALL); }
void ControlPanel::continueRun() { request(XAB_CONTROL_CONTINUE); }
void ControlPanel::stopRun() { request(XAB_CONTROL_STOP); }

// The families ticked, for the selected held task or every task; abmon's
// answer (the tasks told, or an error) goes to the status line.
void ControlPanel::setFilter() {
  QString words;
  if (filterPack_->isChecked()) words += XAB_FILTER_NAME_PACK;
  if (filterClock_->isChecked()) words += QString(words.isEmpty() ? "" : ",") + XAB_FILTER_NAME_CLOCK;
  if (words.isEmpty()) words = XAB_FILTER_NAME_NONE;
  QString target = XAB_CONTROL_ALL;
  if (filterTarget_->currentIndex() == 1) {
    QListWidgetItem* item = list_->currentItem();
    if (!item) {
      status_ = "filter: select a held task first";
      refresh();
      return;
    }
    target = item->data(Qt::UserRole).toString();
  }
  request(XAB_CONTROL_FILTER " " + target + " " + words);
}

QString ControlPanel::breakInFields() const {
  QString kind = breakKind_->currentText(), value = breakValue_->text().trimmed();
  if (kind == XAB_CONTROL_TASK && value.isEmpty() && list_->currentItem()) value = list_->currentItem()->data(Qt::UserRole).toString();
  if (value.isEmpty() || value.contains(' ')) return {};
  return kind + " " + value;
}

// abmon checks the value: a bad one is answered with an error, shown.
void ControlPanel::addBreakpoint() {
  QString b = breakInFields();
  if (!b.isEmpty() && !breaks_.contains(b)) request(XAB_CONTROL_BREAK " " + b);
}

void ControlPanel::removeBreakpoint() {
  if (QListWidgetItem* item = breakList_->currentItem()) request(XAB_CONTROL_CLEAR " " + item->text());
}

void ControlPanel::runToBreakpoint() {
  addBreakpoint();
  request(XAB_CONTROL_CONTINUE);
  status_ = "running to the next breakpoint";
}

void ControlPanel::selectTask(const QString& tid) {
  for (int i = 0; i < list_->count(); ++i)
    if (list_->item(i)->data(Qt::UserRole).toString() == tid) list_->setCurrentRow(i);
}

QStringList ControlPanel::waiting() const {
  QStringList out;
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it) out << it.key() + " " + it.value();
  return out;
}

QString ControlPanel::statusText() const { return status_; }

// The list keeps the selected task selected when it is still held.
void ControlPanel::refresh() {
  QString selected = list_->currentItem() ? list_->currentItem()->data(Qt::UserRole).toString() : QString();
  list_->clear();
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
    auto* item = new QListWidgetItem(it.key() + "  →  " + it.value(), list_);
    item->setData(Qt::UserRole, it.key());
    if (it.key() == selected) list_->setCurrentItem(item);
  }
  QString selectedBreak = breakList_->currentItem() ? breakList_->currentItem()->text() : QString();
  breakList_->clear();
  breakList_->addItems(breaks_);
  for (int i = 0; i < breakList_->count(); ++i)
    if (breakList_->item(i)->text() == selectedBreak) breakList_->setCurrentRow(i);
  statusLabel_->setText(status_ + (waiting_.isEmpty() ? QString() : QString("; %1 held").arg(waiting_.size())));
  for (QAction* a : actions_) a->setEnabled(connected());
  emit changed();
}

}  // namespace xab::view
