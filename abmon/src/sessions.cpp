#include "sessions.h"

#include <algorithm>

namespace xab::abmon {

bool Sessions::finalSeen(std::int32_t tid) const {
  const Session* s = find(tid);
  return s && s->final;
}

bool Sessions::takesPokes(std::int32_t tid) const {
  const Session* s = find(tid);
  return s && s->pokes;
}

std::array<std::int32_t, 2> Sessions::pokeKey(std::int32_t tid) const {
  const Session* s = find(tid);
  return s ? s->pokeKey : std::array<std::int32_t, 2>{};
}

std::int32_t Sessions::lastSeq(std::int32_t tid) const {
  const Session* s = find(tid);
  return s && s->lastSeq ? *s->lastSeq : -1;
}

std::vector<std::int32_t> Sessions::tids() const {
  std::vector<std::int32_t> out;
  for (const auto& [tid, s] : sessions_) out.push_back(tid);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace xab::abmon
