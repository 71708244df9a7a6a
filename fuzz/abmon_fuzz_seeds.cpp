// Writes fuzzAbmonMessage's seed corpus: valid event messages (as libab
// sends them) in the fuzzer's framing, one file each, into the directory
// given as argv[1].
#include <xab/events.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "byte_message.h"

using xab::abmon::EventMessageBuilder;

namespace {

constexpr std::int64_t kT = 1'763'680'000'000'000'000;

void frame(std::vector<char>& out, const EventMessageBuilder& b) {
  const auto msg = b.build();
  const auto& bytes = msg.data();
  out.push_back(static_cast<char>(bytes.size() & 0xff));
  out.push_back(static_cast<char>(bytes.size() >> 8));
  for (std::byte c : bytes) out.push_back(static_cast<char>(c));
}

void write(const std::string& dir, const std::string& name, std::uint8_t mode,
           const std::vector<EventMessageBuilder>& messages) {
  std::vector<char> out{static_cast<char>(mode)};
  for (const auto& m : messages) frame(out, m);
  std::ofstream(dir + "/" + name, std::ios::binary).write(out.data(), static_cast<std::streamsize>(out.size()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::string dir = argv[1];
  EventMessageBuilder info;
  info.string(1, "master").string(2, "host one")
      .event(kT, XAB_EV_INFO, XAB_PHASE_END, 0, {1, 2, -1, XAB_LANG_C, 4242})
      .event(kT + 5, XAB_EV_MYTID, XAB_PHASE_END, 0x40002);
  EventMessageBuilder sends;
  sends.seq(1)
      .event(kT + 10, XAB_EV_SEND, XAB_PHASE_BEGIN, 0, {0x40003, 7, 64, 1})
      .event(kT + 20, XAB_EV_SEND, XAB_PHASE_END, 0, {0x40003, 7, 64, 1})
      .event(kT + 30, XAB_EV_RECV, XAB_PHASE_END, 64, {0x40003, -1, 64, 3});
  EventMessageBuilder mcast;
  mcast.seq(2)
      .event(kT + 40, XAB_EV_MCAST, XAB_PHASE_END, 0, {8, 9, 16, 2})
      .event(kT + 40, XAB_EV_TIDS, XAB_PHASE_CONT, 6, {0x40003, 0x40004, 0x40005, 0x40006, 0x40007, 0x40008})
      .event(kT + 40, XAB_EV_TIDS, XAB_PHASE_CONT, 2, {0x40009, 0x4000a});
  EventMessageBuilder spawn;
  spawn.seq(3).string(3, "worker").string(4, "*")
      .event(kT + 50, XAB_EV_SPAWN, XAB_PHASE_BEGIN, 0, {3, 4, 0, 2})
      .event(kT + 60, XAB_EV_SPAWN, XAB_PHASE_END, 2, {3, 2, 2})
      .event(kT + 60, XAB_EV_TIDS, XAB_PHASE_CONT, 2, {0x40003, 0x40004});
  EventMessageBuilder mark;
  mark.seq(4).string(5, "phase 2 = go%")
      .event(kT + 70, XAB_EV_MARK, XAB_PHASE_END, 0, {5})
      .event(kT + 80, XAB_EV_EXIT, XAB_PHASE_END, 0);
  write(dir, "info", 0, {info});
  write(dir, "run", 0, {info, sends, mcast, spawn, mark});
  write(dir, "two-tasks", 1, {info, info, sends, sends});
  write(dir, "exit-between", 2, {info, sends, mark});
  return 0;
}
