// Fuzzes the trace-format library's tokenizer and value readers
// (text::LineReader) with the writer as the oracle: every line the reader
// accepts is written back (text::appendRecord / appendHeader), and that
// text must read again into a record that writes the same text.  A
// difference or a refusal aborts: the writer and the reader disagree.
#include <xab/traceformat/record.h>

#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <string_view>

namespace {

void roundTrip(std::string_view line, bool wantHeader) {
  xab::text::LineReader reader;
  std::string error;
  bool fatal = false;
  auto kind = reader.read(line, wantHeader, error, fatal);
  if (!error.empty() || kind == xab::text::LineReader::Line::Skip) return;
  std::string first;
  if (kind == xab::text::LineReader::Line::Header)
    xab::text::appendHeader(first, reader.header());
  else
    xab::text::appendRecord(first, reader.record());
  xab::text::LineReader again;
  auto kind2 = again.read(first, wantHeader, error, fatal);
  std::string second;
  if (kind2 == xab::text::LineReader::Line::Header)
    xab::text::appendHeader(second, again.header());
  else if (kind2 == xab::text::LineReader::Line::Record)
    xab::text::appendRecord(second, again.record());
  if (!error.empty() || kind2 != kind || second != first) {
    std::fprintf(stderr, "round trip differs:\n in:  %.*s\n out: %s\n again: %s\n error: %s\n",
                 static_cast<int>(line.size()), line.data(), first.c_str(), second.c_str(), error.c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bool first = true;
  while (!text.empty()) {
    auto nl = text.find('\n');
    roundTrip(text.substr(0, nl), first);
    first = false;
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
  }
  return 0;
}
