// Fuzzes the trace source, the reader and every analysis on what it read,
// and the trace read as a record (abreplay --from-trace).
// The first byte chooses how the rest is cut into pieces, so partial-line
// handling is fuzzed too; a snapshot is taken mid-stream like the viewer
// does.
#include <xab/model/model.h>
#include <xab/replay/record_set.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  xab::SourceOptions o;
  o.pieceBytes = 1 + data[0] % 64;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  xab::TraceSource source = xab::TraceSource::fromText(text, o);
  bool snapped = false;
  source.readToEnd([&](xab::TraceReader& reader) {
    if (snapped || reader.byteCount() < text.size() / 2) return;
    snapped = true;
    (void)reader.snapshot();
  });
  (void)source.notATrace();
  for (const xab::ReadError& e : source.reader().errors()) (void)source.describe(e);
  (void)source.describeFatal();
  xab::Analysis a = xab::analyse(source.reader().take());
  const xab::Trace& t = *a.trace;
  for (xab::TaskIndex k = 0; k < t.taskCount(); ++k) {
    (void)t.label(k);
    (void)xab::stateIntervals(t, k);
    (void)xab::stateAt(t, k, t.firstTime() + (t.lastTime() - t.firstTime()) / 2);
    for (std::uint32_t i = 0; i < t.events(k).size(); ++i) {
      const xab::Event& e = t.events(k)[i];
      for (int s = 0; s < xab::kMaxSlots; ++s) (void)e.has(s);
      (void)xab::kindName(e.kind);
    }
  }
  for (const auto& m : a.mismatch.mismatches) (void)xab::formatPackItems(m.packed);
  try {  // the trace as a record (abreplay --from-trace): refused or dumped, never a crash
    (void)xab::replay::RecordSet(xab::replay::recordFromTrace(t)).dump();
  } catch (const std::runtime_error&) {
  }
  return 0;
}
