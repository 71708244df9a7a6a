// TraceReader: splits the byte stream into lines, hands each to the line
// parser, and keeps the errors.
#include <xab/model/reader.h>

#include <xab/model/source.h>

#include "builder.h"
#include "parallel_lines.h"

#include <algorithm>
#include <cstring>
#include <future>
#include <sys/resource.h>
#include <system_error>
#include <unistd.h>

namespace xab {

struct TraceReader::Impl {
  explicit Impl(ReadOptions o) : options(o), parser(builder) {}

  ReadOptions options;
  TraceBuilder builder;
  LineParser parser;
  std::string partial;  // a line not yet ended by '\n'
  std::vector<ReadError> errors;
  std::uint64_t errorCount = 0;
  std::uint64_t lines = 0;
  std::uint64_t bytes = 0;
  std::string fatal;
  bool stopped = false;
  bool discarding = false;  // inside an over-long line
  std::vector<std::string_view> whole;     // a piece's whole lines
  std::unique_ptr<ParallelLines> parallel;  // made for the first piece large enough
  // Lines read on one thread while no header is read (it may follow
  // comments); a trace without one is read on one thread.
  static constexpr std::size_t kHeaderLines = 16;
  bool noSecondThread = false;
  // A cut being made aside (cutAside); last, so that it is waited for
  // before the rest goes.
  std::future<std::shared_ptr<TraceBuilder::CutPlan>> aside;

  void error(std::uint64_t at, std::string reason, bool isFatal) {
    ++errorCount;
    if (errors.size() < options.keepErrors) errors.push_back({at, reason});
    if (isFatal || options.stopOnError) {
      stopped = true;
      fatal = "line " + std::to_string(at) + ": " + reason;
    }
  }

  // The one place the line limit is applied: every line, whether it came
  // in one read or in many, is measured whole (kMaxTraceLine).
  void overLong(std::uint64_t at) {
    error(at, "line longer than " + std::to_string(kMaxTraceLine) + " bytes, skipped", false);
  }

  void line(std::string_view s) {
    ++lines;
    if (discarding) {  // the tail of an over-long line, reported when it passed the limit
      discarding = false;
      return;
    }
    if (s.size() > kMaxTraceLine) {
      overLong(lines);
      return;
    }
    bool isFatal = false;
    std::string why = parser.parse(s, isFatal);
    if (!why.empty()) error(lines, std::move(why), isFatal);
  }

  void feed(std::string_view in) {
    bytes += in.size();
    if (!partial.empty() || discarding) {  // first the end of a line begun before
      const char* nl = static_cast<const char*>(std::memchr(in.data(), '\n', in.size()));
      if (!nl) {
        keepPartial(in);
        return;
      }
      const auto len = static_cast<std::size_t>(nl - in.data());
      if (discarding) {
        line(in.substr(0, len));
      } else if (partial.size() + len > kMaxTraceLine) {
        partial.clear();
        discarding = true;
        overLong(lines + 1);
        line({});
      } else {
        partial.append(in.data(), len);
        line(partial);
        partial.clear();
      }
      in.remove_prefix(len + 1);
    }
    whole.clear();
    for (const char* nl; !in.empty() && (nl = static_cast<const char*>(std::memchr(in.data(), '\n', in.size())));) {
      const auto len = static_cast<std::size_t>(nl - in.data());
      whole.push_back(in.substr(0, len));
      in.remove_prefix(len + 1);
    }
    // The header first (the tokenizer reads a record alike after it).
    std::size_t k = 0;
    for (; k < whole.size() && k < kHeaderLines && !builder.header().present && !stopped; ++k) line(whole[k]);
    if (whole.size() - k >= ParallelLines::kMinLines && builder.header().present && !stopped && secondThread()) {
      parallel->run(
          std::span<const std::string_view>(whole).subspan(k),
          [&](const text::Record& r) {
            ++lines;
            builder.record(r);
            return true;
          },
          [&](std::string_view s) {
            line(s);
            return !stopped;
          });
    } else {
      for (; k < whole.size() && !stopped; ++k) line(whole[k]);
    }
    if (!stopped && !in.empty()) keepPartial(in);
  }

  // The second thread, made when first wanted; none (one thread reads)
  // when the system refuses one.
  bool secondThread() {
    if (!parallel && !noSecondThread) try {
        parallel = std::make_unique<ParallelLines>();
      } catch (const std::system_error&) {
        noSecondThread = true;
      }
    return parallel != nullptr;
  }

  void keepPartial(std::string_view in) {
    if (discarding) return;
    if (partial.size() + in.size() > kMaxTraceLine) {
      partial.clear();
      discarding = true;
      overLong(lines + 1);
      return;
    }
    partial.append(in);
  }
};

TraceReader::TraceReader(ReadOptions options) : impl_(std::make_unique<Impl>(options)) {}
TraceReader::~TraceReader() = default;
TraceReader::TraceReader(TraceReader&&) noexcept = default;
TraceReader& TraceReader::operator=(TraceReader&&) noexcept = default;

bool TraceReader::feed(std::string_view bytes) {
  if (!impl_->stopped) impl_->feed(bytes);
  return !impl_->stopped;
}

void TraceReader::finish() {
  if (impl_->stopped) return;
  if (impl_->discarding) {
    impl_->discarding = false;
    ++impl_->lines;
  } else if (!impl_->partial.empty()) {
    std::string last = std::move(impl_->partial);
    impl_->partial.clear();
    impl_->line(last);
  }
}

void TraceReader::cutShort(std::string reason) {
  Impl& r = *impl_;
  if (r.stopped) return;
  if (!r.partial.empty() && !reason.empty())
    reason += " (the " + std::to_string(r.partial.size()) + " bytes of a cut record after it dropped)";
  r.partial.clear();
  if (r.discarding) {
    r.discarding = false;
    ++r.lines;
  }
  if (!reason.empty()) r.error(r.lines + 1, std::move(reason), false);
}

bool TraceReader::stoppedReading() const { return impl_->stopped; }
const std::string& TraceReader::fatal() const { return impl_->fatal; }
const std::vector<ReadError>& TraceReader::errors() const { return impl_->errors; }
std::uint64_t TraceReader::errorCount() const { return impl_->errorCount; }
std::uint64_t TraceReader::lineCount() const { return impl_->lines; }
std::uint64_t TraceReader::byteCount() const { return impl_->bytes; }
std::uint64_t TraceReader::eventCount() const { return impl_->builder.trace().eventCount(); }
bool TraceReader::monitorStopped() const { return impl_->builder.trace().stopped(); }
std::uint64_t TraceReader::runRecords() const { return impl_->builder.runRecords(); }
std::uint64_t TraceReader::heldRecords() const { return impl_->builder.nextSeq(); }
std::size_t TraceReader::pendingBytes() const { return impl_->discarding ? 0 : impl_->partial.size(); }
bool TraceReader::takeTimeSpan(TimeNs& first, TimeNs& last) { return impl_->builder.takeTimeSpan(first, last); }
std::shared_ptr<const Trace> TraceReader::taskTable() const { return impl_->builder.taskTable(); }
void TraceReader::continueRun(const Trace& table, std::uint64_t position, TimeNs before) {
  impl_->builder.continueRun(table, position, before);
}

namespace {

// A whole-run arrival position as a seq of the builder's window.
std::uint32_t localSeq(const TraceCut& c, std::uint64_t p) {
  if (p <= c.position) return c.carried;
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(p - c.position + c.carried, UINT32_MAX));
}

// Below the reader, which goes on reading while the cut is made.
constexpr int kCutAsideNice = 4;

}  // namespace

void TraceReader::cut(std::uint64_t from, std::uint64_t to) {
  finishCut(true);
  const TraceCut& c = impl_->builder.trace().cut();
  impl_->builder.cut(localSeq(c, from), to == UINT64_MAX ? UINT32_MAX : localSeq(c, to));
}

void TraceReader::cutAside(std::uint64_t from) {
  finishCut(true);
  TraceBuilder& b = impl_->builder;
  const std::uint32_t local = localSeq(b.trace().cut(), from);
  if (local <= b.trace().cut().carried) return;  // nothing to drop
  try {
    impl_->aside = std::async(std::launch::async, [frozen = b.freeze(), mark = b.nextSeq(), local] {
      ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), kCutAsideNice);
      return TraceBuilder::planCut(frozen, mark, local);
    });
  } catch (const std::system_error&) {  // no thread to be had
    b.cut(local, UINT32_MAX);
  }
}

bool TraceReader::cutPending() const { return impl_->aside.valid(); }

bool TraceReader::finishCut(bool wait) {
  auto& aside = impl_->aside;
  if (!aside.valid()) return false;
  if (!wait && aside.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return false;
  const auto plan = aside.get();
  impl_->builder.applyCut(*plan);
  return true;
}

std::shared_ptr<const Trace> TraceReader::snapshot() const { return impl_->builder.freeze(); }
std::shared_ptr<const Trace> TraceReader::take() {
  finishCut(true);
  return impl_->builder.take();
}

LoadResult finishLoad(TraceReader& r) {
  r.finish();
  LoadResult out;
  out.errors = r.errors();
  out.errorCount = r.errorCount();
  out.fatal = r.fatal();
  out.trace = r.take();
  return out;
}

LoadResult loadTraceText(std::string_view text, ReadOptions options) {
  TraceReader r(options);
  r.feed(text);
  return finishLoad(r);
}

LoadResult loadTraceFile(const std::string& path, ReadOptions options) {
  SourceOptions o;
  o.read = options;
  TraceSource source(path, o);
  if (!source.error().empty()) {  // could not open it
    LoadResult out;
    out.fatal = source.error();
    return out;
  }
  source.readToEnd();
  LoadResult out = finishLoad(source.reader());
  if (!source.error().empty() && out.fatal.empty()) out.fatal = source.error();  // an I/O error
  return out;
}

}  // namespace xab
