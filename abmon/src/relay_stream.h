// relay_stream.h -- a relay's TCP uplink to abmon
// (docs/abmon.md "Relays").
//
// abmon listens on a TCP port of its own and gives it to every relay it
// spawns (`--relay TID,CONTEXT,PORT`), and the token right after the spawn
// in a PVM message (relay.h, StreamToken: never on the relay's command
// line, which every user of its host can read).  The relay connects to abmon's
// host (its name in pvm_config), says who it is, and from then on sends its
// batches on that stream instead of as PVM messages: the stream does not
// pass through the two pvmds, and when the relay's host loses its pvmd the
// relay says so on it (RelayMsg::Lost), or the stream's end tells abmon at
// once that the relay is gone -- where PVM itself notices a dead pvmd only
// after its ~3 minute host timeout.
//
// Hello (relay -> abmon, once): 3 words: the relay's tid, the token's high
//   and low 32 bits (the token abmon sent the relay: relay.h, StreamToken).
// Frame: 7 words: what (RelayMsg), the relay's clock ns (high, low 32 bits),
//   events, n opened, n closed, text length; then the opened and the closed
//   tids (one word each), then the text.  Words are 32 bits, network order.
// The frame carries what RelayUplink's PVM message carries (relay.h), so
// abmon handles both with one RelayHub::onBatch.
//
// Clock exchanges (docs/global-time.md) on the same stream, both ways:
//   ping (relay -> abmon): what ClockPing, clock t1, events k, nothing more;
//   pong (abmon -> relay, written as soon as abmon reads the ping): what
//     ClockPong, clock t3 (abmon's, just before the write), events k, text
//     8 bytes: t2 (abmon's clock when it read the ping), high, low words.
// A ping or pong frame with tids, or more text than that, is a bad stream
// (known from its head, before any of it is buffered).  The pongs are the
// only frames abmon writes.
#ifndef XAB_ABMON_RELAY_STREAM_H
#define XAB_ABMON_RELAY_STREAM_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xab::abmon {

// What a relay's message or frame is (relay.h, above).  Lost: the relay's
// pvmd has gone; the relay's last batch, then it exits.  ClockPong: on a
// stream only (as a PVM message it has a tag of its own).  StreamToken: a
// PVM message only (abmon -> relay, relay.h).
enum class RelayMsg : int {
  Start = 1, Batch = 2, Stop = 3, ClockPing = 4, StepAsk = 5, StepGone = 6, StepGo = 7, Lost = 8, ClockPong = 9,
  StreamToken = 10
};

// One batch as a relay sent it, whatever the transport.
struct RelayBatch {
  int what = 0;  // RelayMsg
  std::int64_t sentNs = 0;
  int events = 0;
  std::vector<int> opened, closed;
  std::string_view text;
};

inline constexpr std::size_t kHelloBytes = 12;
inline constexpr std::size_t kFrameHeadBytes = 28;

// Appends a frame of `b` to `out`.
void appendFrame(std::string& out, const RelayBatch& b);
// A clock ping's frame (k, t1) and its pong's (k, t2, t3), appended to `out`.
void appendClockPing(std::string& out, int k, std::int64_t t1);
void appendClockPong(std::string& out, int k, std::int64_t t2, std::int64_t t3);
// A pong frame's fields: false when `b` is not a pong.
bool readClockPong(const RelayBatch& b, int& k, std::int64_t& t2, std::int64_t& t3);
std::string helloBytes(int tid, std::uint64_t token);
// Reads a hello from its kHelloBytes bytes.
void parseHello(const char* p, int& tid, std::uint64_t& token);

// The frames in a stream's bytes as they come.
class FrameReader {
 public:
  // Room for at least `n` more bytes at the end of the buffer.
  char* room(std::size_t n);
  void wrote(std::size_t n) { end_ += n; }
  // The next whole frame, or false (then more bytes are needed, or the
  // stream is bad: bad() says which).  A frame's text is valid until the
  // next call of room().
  bool next(RelayBatch& b);
  bool bad() const { return bad_; }
  std::size_t buffered() const { return end_ - begin_; }

 private:
  std::string buf_;
  std::size_t begin_ = 0, end_ = 0;
  bool bad_ = false;
};

// abmon: a listening TCP socket on every address, a port the kernel
// chooses (non-blocking); -1 with `error`.
int listenRelayStream(int& port, std::string& error);
// A relay: a blocking stream to `host`:`port`, the hello sent; -1 with `error`.
int connectRelayStream(const std::string& host, int port, int tid, std::uint64_t token, std::string& error);
// Writes all of `bytes` (blocking); false when the stream is broken.
bool writeAll(int fd, std::string_view bytes);
// Waits up to `waitMs` for `fd` to have bytes, then reads what it has into
// `r`: the bytes read (0: none in time), or -1 when the stream has ended.
long readSome(int fd, FrameReader& r, int waitMs);

}  // namespace xab::abmon

#endif
