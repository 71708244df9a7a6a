// Fuzzes picl2ab's reader (xab::tr::piclToXab, the viewer's loadPiclText
// and looksLikePicl) on arbitrary bytes.  Beyond ASan and UBSan it checks
// the reader's contract: whatever PICL it accepts, the xab trace it writes
// reads back with no malformed line, and every record it read is either
// translated or counted as skipped by code.  Then every analysis runs on
// the trace.
#include <xab/model/model.h>
#include <xab/translators/picl.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_picl_reader: %s: %s\n", what, detail.c_str());
  std::abort();
}

void analyse(const xab::Trace& t) {
  auto messages = xab::matchMessages(t);
  auto barriers = xab::analyzeBarriers(t);
  (void)xab::diagnoseHang(t, messages, barriers);
  (void)xab::timeBreakdown(t);
  for (xab::TaskIndex k = 0; k < t.taskCount(); ++k) {
    (void)t.label(k);
    (void)xab::stateIntervals(t, k);
  }
}

void translate(std::string_view text, bool lenient) {
  std::string xab;
  xab::tr::Sink sink;
  sink.captureTo(&xab);
  xab::tr::PiclReadOptions o;
  o.lenient = lenient;
  xab::tr::PiclReadResult res = xab::tr::piclToXab(text, sink, o);
  sink.finish();
  if (!res.error.empty()) {
    if (lenient) fail("lenient read stopped", res.error);
    return;
  }
  std::uint64_t skipped = 0;
  for (auto& [code, n] : res.skipped) skipped += n;
  for (auto& [type, n] : res.skippedTypes) skipped += n;
  if (skipped != res.unknown || res.unknown > res.records) fail("skip counts disagree", std::to_string(res.unknown));
  xab::LoadResult loaded = xab::loadTraceText(xab);
  if (!loaded.trace || loaded.errorCount != 0)
    fail("picl2ab wrote a line the trace reader refuses",
         loaded.errors.empty() ? loaded.fatal : loaded.errors[0].reason + "\n" + xab);
  if (loaded.trace->taskCount() != static_cast<std::size_t>(res.nodes)) fail("tasks are not the nodes", xab);
  analyse(*loaded.trace);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)xab::tr::looksLikePicl(text);
  translate(text, false);
  translate(text, true);
  return 0;
}
