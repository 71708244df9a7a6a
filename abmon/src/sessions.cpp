#include "sessions.h"

namespace xab::abmon {

bool Sessions::final_seen(std::int32_t tid) const {
  const Session* s = find(tid);
  return s && s->final;
}

bool Sessions::takes_pokes(std::int32_t tid) const {
  const Session* s = find(tid);
  return s && s->pokes;
}

std::int32_t Sessions::last_seq(std::int32_t tid) const {
  const Session* s = find(tid);
  return s && s->last_seq ? *s->last_seq : -1;
}

}  // namespace xab::abmon
