#include "sessions.h"

namespace xab::abmon {

bool Sessions::finalSeen(std::int32_t tid) const {
  const Session* s = find(tid);
  return s && s->final;
}

bool Sessions::takesPokes(std::int32_t tid) const {
  const Session* s = find(tid);
  return s && s->pokes;
}

std::int32_t Sessions::lastSeq(std::int32_t tid) const {
  const Session* s = find(tid);
  return s && s->lastSeq ? *s->lastSeq : -1;
}

}  // namespace xab::abmon
