// sessions.h -- what abmon knows of each task's event-message protocol:
// the last sequence number read (and messages since then it could not
// read), whether the task's final message has come, whether it takes
// pokes.  The Formatter updates it from every message's header; the
// Monitor asks it when deciding whether to poke a task or wait for its
// last message.  Kept apart from the Formatter, which only turns messages
// into trace lines.
#ifndef XAB_ABMON_SESSIONS_H
#define XAB_ABMON_SESSIONS_H

#include <array>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace xab::abmon {

struct Session {
  std::optional<std::int32_t> lastSeq;  // of the latest readable header
  std::int64_t unread = 0;  // messages since lastSeq whose header was unreadable
  bool final = false;       // its XAB_HDRF_FINAL message has come
  bool pokes = false;       // its latest message had XAB_HDRF_POKE
  // The poke key its latest message carried (XAB_HDR_POKE_KEY_LO, _HI):
  // libab drops a poke without it (wire.h, Pokes).
  std::array<std::int32_t, 2> pokeKey{};
};

class Sessions {
 public:
  Session& at(std::int32_t tid) { return sessions_[tid]; }
  // The task has gone: PVM may give its tid to a new task later.
  void erase(std::int32_t tid) { sessions_.erase(tid); }

  // True once the task's last message (XAB_HDRF_FINAL) has been read.
  bool finalSeen(std::int32_t tid) const;
  // Whether the task's latest message said it takes pokes (XAB_HDRF_POKE),
  // and that message's sequence number (-1: none read).
  bool takesPokes(std::int32_t tid) const;
  std::array<std::int32_t, 2> pokeKey(std::int32_t tid) const;
  std::int32_t lastSeq(std::int32_t tid) const;
  // Whether a message of the task has come (and it has not gone), and
  // every such task, in tid order.
  bool known(std::int32_t tid) const { return find(tid) != nullptr; }
  std::vector<std::int32_t> tids() const;

 private:
  const Session* find(std::int32_t tid) const {
    auto it = sessions_.find(tid);
    return it == sessions_.end() ? nullptr : &it->second;
  }
  std::unordered_map<std::int32_t, Session> sessions_;
};

}  // namespace xab::abmon

#endif
