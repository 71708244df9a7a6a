#include "support.h"

#include <QAbstractItemModelTester>

#include <catch2/catch.hpp>

#include <mutex>

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

}  // namespace xab::view::test
