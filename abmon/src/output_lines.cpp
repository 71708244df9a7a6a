#include "output_lines.h"

#include <xab/traceformat/schema.h>
#include <xab/traceformat/write.h>

namespace xab::abmon {

void OutputLines::append(std::string_view bytes, const Emit& emit) {
  for (std::size_t nl; (nl = bytes.find('\n')) != std::string_view::npos; bytes.remove_prefix(nl + 1)) {
    if (partial_.empty() && !pieced_ && nl <= kMaxLine) {
      emit(bytes.substr(0, nl));  // the common case: no copy
      continue;
    }
    partial_.append(bytes.substr(0, nl));
    for (std::size_t at = 0; at < partial_.size(); at += kMaxLine)
      emit(std::string_view(partial_).substr(at, kMaxLine));
    partial_.clear();
    pieced_ = false;
  }
  partial_.append(bytes);
  if (partial_.size() >= kMaxLine) {  // a line that does not end: its pieces so far
    std::size_t whole = partial_.size() / kMaxLine * kMaxLine;
    for (std::size_t at = 0; at < whole; at += kMaxLine) emit(std::string_view(partial_).substr(at, kMaxLine));
    partial_.erase(0, whole);
    pieced_ = true;  // its end may be empty: no record of its own then
  }
}

void OutputLines::finish(const Emit& emit) {
  if (!partial_.empty()) emit(partial_);
  partial_.clear();
  pieced_ = false;
}

void appendOutputRecord(std::string& out, std::int64_t ns, int tid, std::string_view stream, std::string_view text) {
  text::appendRecordStart(out, ns, ns, tid, Kind::OUTPUT);
  text::appendKey(out, keyName(Key::Stream));
  out.append(stream);
  text::appendKey(out, keyName(Key::Text));
  text::appendEscaped(out, text);
  out.push_back('\n');
}

}  // namespace xab::abmon
