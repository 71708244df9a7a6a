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

}  // namespace xab::view::test
