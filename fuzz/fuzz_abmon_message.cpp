// Fuzzes abmon's event-message parser (Formatter::message: header checks,
// string table, records, tid lists, sequence numbers) with messages as the
// local socket carries them, and checks that every line abmon writes from
// them is one the trace model's reader accepts (docs/abmon.md, "What it
// writes": what abmon writes, every reader reads).
//
// Input: one byte choosing the senders, then messages, each a 2-byte
// little-endian length and that many bytes; what is left is one last
// message.  Seeds: abmonFuzzSeeds writes valid messages in this framing.
#include <xab/model/reader.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "byte_message.h"
#include "formatter.h"

namespace {

constexpr std::int64_t kRecvNs = 1'763'680'000'000'000'000;

void checkReadable(const std::string& text) {
  auto r = xab::loadTraceText(text);
  if (r.errorCount == 0 && r.fatal.empty()) return;
  std::fprintf(stderr, "abmon wrote what the model refuses:\n");
  for (const auto& e : r.errors) std::fprintf(stderr, "  line %llu: %s\n", static_cast<unsigned long long>(e.line), e.reason.c_str());
  if (!r.fatal.empty()) std::fprintf(stderr, "  fatal: %s\n", r.fatal.c_str());
  std::fprintf(stderr, "%s", text.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::int32_t abmonTid = 0x40001;
  // Bit 0: alternate between two senders; bit 1: a task.exit in between.
  const std::uint8_t mode = data[0];
  std::span<const std::byte> rest(reinterpret_cast<const std::byte*>(data + 1), size - 1);
  xab::abmon::Sessions sessions;
  xab::abmon::Formatter fmt(abmonTid, sessions);
  std::string out;
  fmt.header(out, "fuzz host", 1234, kRecvNs);
  fmt.start(out, kRecvNs, 512, 200);
  for (int i = 0; !rest.empty(); ++i) {
    std::size_t len = rest.size();
    std::size_t skip = 0;
    if (rest.size() >= 2) {
      std::size_t framed = std::to_integer<std::size_t>(rest[0]) | std::to_integer<std::size_t>(rest[1]) << 8;
      if (framed <= rest.size() - 2) {
        len = framed;
        skip = 2;
      }
    }
    std::int32_t tid = (mode & 1) && (i % 2) ? 0x40003 : 0x40002;
    xab::abmon::ByteReader msg(rest.subspan(skip, len));
    fmt.message(out, tid, kRecvNs + i, msg);
    if ((mode & 2) && i == 1) fmt.taskExit(out, 0x40002, kRecvNs + i);
    rest = rest.subspan(skip + len);
  }
  fmt.stop(out, kRecvNs + 1'000'000);
  checkReadable(out);
  return 0;
}
