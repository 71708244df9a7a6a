#include "support.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QTest>

#include <catch2/catch.hpp>

#include <cstdio>
#include <fcntl.h>
#include <mutex>
#include <unistd.h>

namespace xab::view::test {
namespace {

std::mutex gLock;
QStringList* gSink = nullptr;
QtMessageHandler gPrevious = nullptr;

void handler(QtMsgType type, const QMessageLogContext& ctx, const QString& msg) {
  {
    std::lock_guard<std::mutex> lock(gLock);
    if (gSink && type != QtDebugMsg && type != QtInfoMsg) gSink->append(msg);
  }
  if (gPrevious) gPrevious(type, ctx, msg);
}

std::shared_ptr<ViewSnapshot> finish(LoadResult r, std::string source) {
  REQUIRE(r.trace);
  auto s = buildSnapshot(r.trace);
  s->errors = r.errors;
  s->errorCount = r.errorCount;
  s->fatal = r.fatal;
  s->source = std::move(source);
  s->inputEnded = true;
  return s;
}

}  // namespace

std::string dataPath(const std::string& name) { return std::string(XAB_MODEL_DATA) + "/" + name; }

std::shared_ptr<ViewSnapshot> snapshotOf(const std::string& path) { return finish(loadTraceFile(path), path); }
std::shared_ptr<ViewSnapshot> snapshotOfText(std::string_view text) { return finish(loadTraceText(text), "text"); }

DiagramLayout paintDiagramInto(QImage& img, const ViewState& state, DiagramStats* stats) {
  img.fill(Qt::white);
  QPainter p(&img);
  auto layout = DiagramLayout::make(img.rect(), state);
  const DiagramStats drawn = paintDiagram(p, layout, state);
  if (stats) *stats = drawn;
  return layout;
}

TaskIndex taskNamed(const ViewSnapshot& s, std::string_view name, int instance) {
  for (TaskIndex t = 0; t < s.trace->taskCount(); ++t)
    if (s.trace->taskName(t) == name && s.trace->task(t).instance == instance) return t;
  FAIL("no task " << std::string(name) << " " << instance);
  return 0;
}

struct ModelChecker::Impl {
  QStringList messages;
  std::unique_ptr<QAbstractItemModelTester> tester;
};

ModelChecker::ModelChecker(QAbstractItemModel* model) : impl_(std::make_unique<Impl>()) {
  {
    std::lock_guard<std::mutex> lock(gLock);
    gSink = &impl_->messages;
  }
  gPrevious = qInstallMessageHandler(handler);
  impl_->tester = std::make_unique<QAbstractItemModelTester>(
      model, QAbstractItemModelTester::FailureReportingMode::Warning);
}

ModelChecker::~ModelChecker() {
  impl_->tester.reset();
  qInstallMessageHandler(gPrevious);
  std::lock_guard<std::mutex> lock(gLock);
  gSink = nullptr;
}

QStringList ModelChecker::messages() const {
  std::lock_guard<std::mutex> lock(gLock);
  return impl_->messages;
}

GrowingTrace::GrowingTrace(const QString& path, long long stepNs, long long startNs) : stepNs_(stepNs) {
  fd_ = ::open(path.toLocal8Bit().constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(fd_ >= 0);
  if (startNs) t_ = startNs;
  char header[128];
  std::snprintf(header, sizeof header, "#xab-trace 1 abmon=t40001 host=vm pid=4242 start=%lld.%09lld\n",
                t_ / 1000000000 - 1, t_ % 1000000000);
  write(header);
  rec("t40002 mytid rc=t40002 name=master host=vm parent=none lang=c pid=200");
  rec("t40003 mytid rc=t40003 name=worker host=vm parent=t40002 lang=c pid=201");
}

GrowingTrace::~GrowingTrace() { ::close(fd_); }

void GrowingTrace::rec(const std::string& rest) {
  write(line(rest));
  ++records_;
}

void GrowingTrace::workerCalls(int n) {
  std::string batch;
  for (int i = 0; i < n; ++i) batch += line("t40003 initsend enc=0 rc=1");
  write(batch);
  records_ += n;
}

std::string GrowingTrace::line(const std::string& rest) {
  t_ += stepNs_;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%lld.%09lld %lld.%09lld %s\n", t_ / 1000000000, t_ % 1000000000,
                t_ / 1000000000, t_ % 1000000000, rest.c_str());
  return buf;
}

void GrowingTrace::write(const std::string& s) {
  REQUIRE(::write(fd_, s.data(), s.size()) == static_cast<ssize_t>(s.size()));
}

bool waitUntil(const std::function<bool()>& done, int ms) {
  QElapsedTimer clock;
  clock.start();
  while (!done()) {
    if (clock.elapsed() > ms) return false;
    QTest::qWait(20);
  }
  return true;
}

static std::string atMs(int ms, int task, const std::string& rest) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%d.%09d", 1000 + ms / 1000, (ms % 1000) * 1'000'000);
  return std::string(buf) + " " + buf + " t" + std::to_string(40000 + task) + " " + rest + "\n";
}
static std::string tidOf(int task) { return "t" + std::to_string(40000 + task); }

std::string lateWorkersTrace() {
  std::string t = "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1000.000000000\n";
  t += atMs(0, 2, "mytid rc=t40002 name=master host=vm parent=none lang=c pid=102");
  t += atMs(0, 3, "mytid rc=t40003 name=a host=vm parent=t40002 lang=c pid=103");
  t += atMs(0, 4, "mytid rc=t40004 name=b host=vm parent=t40002 lang=c pid=104");
  t += atMs(1000, 2, "recv.begin src=" + tidOf(3) + " tag=1");
  t += atMs(1100, 3, "send dst=" + tidOf(2) + " tag=1 bytes=4 serial=1 rc=0");
  t += atMs(1100, 2, "recv src=" + tidOf(3) + " tag=1 bytes=4 serial=1 rc=1");
  t += atMs(1100, 2, "recv.begin src=" + tidOf(4) + " tag=1");
  t += atMs(3000, 4, "send dst=" + tidOf(2) + " tag=1 bytes=4 serial=2 rc=0");
  t += atMs(3000, 2, "recv src=" + tidOf(4) + " tag=1 bytes=4 serial=2 rc=1");
  t += atMs(3200, 3, "exit rc=0");
  t += atMs(3200, 4, "exit rc=0");
  t += atMs(3500, 2, "exit rc=0");
  return t;
}

namespace {
constexpr TimeNs kRingMs = 1'000'000;
}  // namespace

std::string slowRingTrace(int rounds, int tasks) {
  std::string out = "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1763680000.000000000\n";
  auto line = [&](TimeNs t, int task, const std::string& rest) {
    char time[48];
    std::snprintf(time, sizeof time, "%lld.%09lld", static_cast<long long>(t / 1'000'000'000),
                  static_cast<long long>(t % 1'000'000'000));
    out += std::string(time) + " " + time + " t" + std::to_string(0x40002 + task) + " " + rest + "\n";
  };
  auto tid = [](int task) {
    char b[16];
    std::snprintf(b, sizeof b, "t%x", 0x40002 + task);
    return std::string(b);
  };
  const TimeNs start = 1763680000LL * 1'000'000'000;
  for (int i = 0; i < tasks; ++i)
    line(start + 1000, i, "mytid rc=" + tid(i) + " name=ring host=vm parent=none lang=c pid=" + std::to_string(100 + i));
  TimeNs t = start + kRingMs;
  for (int r = 0; r < rounds; ++r) {
    TimeNs sent = 0;
    for (int i = 0; i < tasks; ++i) {
      const TimeNs c = t + 3 * kRingMs + (r % 3 == 0 ? i * kRingMs : 0);
      sent = std::max(sent, c);
      line(c, i, "initsend enc=0 rc=1");
      line(c + 1000, i, "send dst=" + tid((i + 1) % tasks) + " tag=7 bytes=8 serial=" + std::to_string(r + 1) + " rc=0");
      line(c + 2000, i, "recv.begin src=any tag=7");
    }
    const TimeNs got = sent + 2 * kRingMs;
    for (int i = 0; i < tasks; ++i)
      line(got + i * 1000, i, "recv src=" + tid((i + tasks - 1) % tasks) + " tag=7 bytes=8 serial=" + std::to_string(r + 1) + " rc=2");
    t = got + tasks * 1000;
  }
  for (int i = 0; i < tasks; ++i) line(t + kRingMs, i, "exit rc=0");
  return out;
}

}  // namespace xab::view::test
