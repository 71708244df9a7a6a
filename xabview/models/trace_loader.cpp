#include "trace_loader.h"

#ifdef XAB_HAVE_TRANSLATORS
#include <xab/translators/picl.h>
#endif

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace xab::view {
namespace {

using Clock = std::chrono::steady_clock;

struct Input {
  int fd = -1;
  bool regular = false;  // a regular file: EOF may only mean "not yet written"
  bool owned = false;
  ~Input() {
    if (owned && fd >= 0) ::close(fd);
  }
};

std::string openInput(const QString& path, Input& in) {
  if (path.isEmpty() || path == "-") {
    in.fd = 0;
  } else {
    in.fd = ::open(path.toLocal8Bit().constData(), O_RDONLY | O_CLOEXEC);
    if (in.fd < 0) return path.toStdString() + ": " + std::strerror(errno);
    in.owned = true;
  }
  struct stat st {};
  in.regular = ::fstat(in.fd, &st) == 0 && S_ISREG(st.st_mode);
  return {};
}

}  // namespace

TraceLoader::TraceLoader(Options options, QObject* parent)
    : QObject(parent), options_(std::move(options)) {}

TraceLoader::~TraceLoader() { stop(); }

QString TraceLoader::sourceName() const {
  return options_.path.isEmpty() || options_.path == "-" ? QStringLiteral("stdin") : options_.path;
}

void TraceLoader::start() {
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { run(); });
}

void TraceLoader::stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

void TraceLoader::publish(std::shared_ptr<ViewSnapshot> s) {
  SnapshotPtr frozen = std::move(s);
  // Runs in the GUI thread; dropped if this loader is gone by then.
  QMetaObject::invokeMethod(this, [this, frozen] { emit snapshotReady(frozen); },
                            Qt::QueuedConnection);
}

// A finished file in a format the translators read (PICL): converted in
// one go on this thread.  False when the file is xab's own format.
bool TraceLoader::readForeign() {
#ifdef XAB_HAVE_TRANSLATORS
  std::string path = options_.path.toStdString();
  std::string head(4096, '\0');
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n = ::read(fd, head.data(), head.size());
  ::close(fd);
  if (n <= 0 || !tr::looksLikePicl(std::string_view(head.data(), static_cast<std::size_t>(n)))) return false;
  LoadResult r = tr::loadPiclFile(path);
  if (!r.trace) {
    QString msg = QString::fromStdString(r.fatal);
    QMetaObject::invokeMethod(this, [this, msg] { emit loadFailed(msg); }, Qt::QueuedConnection);
    return true;
  }
  auto s = buildSnapshot(r.trace);
  s->errors = r.errors;
  s->errorCount = r.errorCount;
  s->fatal = r.fatal;
  s->source = path + " (PICL)";
  s->inputEnded = true;
  s->caughtUp = true;
  publish(std::move(s));
  return true;
#else
  return false;
#endif
}

void TraceLoader::run() {
  try {
    Input in;
    if (std::string why = openInput(options_.path, in); !why.empty()) {
      QString msg = QString::fromStdString(why);
      QMetaObject::invokeMethod(this, [this, msg] { emit loadFailed(msg); }, Qt::QueuedConnection);
      return;
    }
    if (in.regular && readForeign()) return;
    TraceReader reader;
    std::string buffer(1 << 20, '\0');
    auto lastPublish = Clock::now();
    double lastBuildMs = 0;
    std::uint64_t publishedEvents = UINT64_MAX, publishedErrors = 0;
    bool ended = false, reportedEnd = false, publishedCaughtUp = false;
    const bool followingFile = in.regular && options_.follow;
    const std::string source = sourceName().toStdString();

    auto snapshotNow = [&](bool caughtUp) {
      // The last snapshot takes the trace: the reader's own copy is not kept.
      auto s = buildSnapshot(ended ? reader.take() : reader.snapshot());
      s->errors = reader.errors();
      s->errorCount = reader.errorCount();
      s->fatal = reader.fatal();
      s->source = source;
      s->bytes = reader.byteCount();
      s->inputEnded = ended;
      s->caughtUp = caughtUp || ended;
      s->followingFile = followingFile;
      publishedCaughtUp = s->caughtUp;
      lastBuildMs = s->buildMs;
      publishedEvents = s->trace->eventCount();
      publishedErrors = reader.errorCount();
      lastPublish = Clock::now();
      publish(std::move(s));
    };

    while (!stopping_ && !ended) {
      pollfd p{in.fd, POLLIN, 0};
      int ready = in.regular ? 1 : ::poll(&p, 1, 100);
      bool atEof = false;
      if (ready > 0) {
        ssize_t n = ::read(in.fd, buffer.data(), buffer.size());
        if (n > 0) {
          reader.feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
        } else if (n == 0) {
          atEof = true;
        } else if (errno != EINTR && errno != EAGAIN) {
          atEof = true;
        }
      } else if (ready < 0 && errno != EINTR) {
        atEof = true;
      }
      if (atEof && (!in.regular || !options_.follow || reader.monitorStopped() ||
                    reader.stoppedReading())) {
        reader.finish();
        ended = true;
      }
      // Nothing more to read right now: a followed file at its current end,
      // or a pipe that stayed quiet for the poll's 100 ms.  The hang panel
      // waits for this before it calls a silence a hang (a big backlog being
      // read is no silence).
      bool caughtUp = atEof || ready == 0;
      bool changed = reader.eventCount() != publishedEvents || reader.errorCount() != publishedErrors ||
                     (caughtUp && !publishedCaughtUp);
      auto since = std::chrono::duration<double, std::milli>(Clock::now() - lastPublish).count();
      // A file being read at full speed publishes rarely (each snapshot costs
      // a full analysis); a pipe publishes often, but never more than half
      // the time goes to analysis.
      double interval = std::max<double>(options_.minIntervalMs, 2 * lastBuildMs);
      if (in.regular && !atEof) interval = std::max(interval, 1500.0);
      if (ended || (atEof && !reportedEnd) || (changed && since >= interval)) {
        snapshotNow(caughtUp);
        if (atEof) reportedEnd = true;
      }
      if (atEof && !ended) {
        reportedEnd = true;
        for (int i = 0; i < 4 && !stopping_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      if (!atEof && in.regular) reportedEnd = false;
    }
  } catch (const std::exception& e) {
    QString msg = QString("reader thread: ") + e.what();
    QMetaObject::invokeMethod(this, [this, msg] { emit loadFailed(msg); }, Qt::QueuedConnection);
  }
}

}  // namespace xab::view
