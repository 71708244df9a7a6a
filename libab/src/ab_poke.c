/*
 * ab_poke.c -- abmon's pokes: how a blocked task's records get out.
 *
 * A call that may block records its begin event and makes PVM's call; the
 * records wait in the buffer.  When a task has sent nothing for a while,
 * abmon sends it a poke, and PVM runs the handler registered here from
 * inside whichever call reads the poke -- for a blocked task, the very call
 * it is stuck in -- which sends the buffer from there (docs/libab.md,
 * "Pokes").  The same handler ends a task killed while blocked, once abmon
 * confirms its final message.
 *
 * A poke is abmon's only if it carries the task's poke key: the source tid
 * proves nothing (libpvm believes whatever tid the peer of a direct route
 * writes in its fragment headers), a secret sent only to abmon does.
 */
#include "ab_core.h"
#include "ab_send.h"

#include <errno.h>
#include <sys/random.h>

/* The task's poke key (wire.h, Pokes): drawn at attach, sent to abmon in
 * every message header; 0 while the task takes no pokes. */
static int poke_key[2];

int xab_poke_key_new(void) {
  uint32_t key[2];
  size_t got = 0;
  while (got < sizeof key) {
    ssize_t n = getrandom((char *)key + got, sizeof key - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += (size_t)n;
  }
  if (got < sizeof key) { /* no randomness: no key, so no pokes at all */
    poke_key[0] = poke_key[1] = 0;
    return -1;
  }
  memcpy(poke_key, key, sizeof poke_key);
  return 0;
}

void xab_poke_key(int key[2]) {
  key[0] = xab_st.pokes_wanted ? poke_key[0] : 0;
  key[1] = xab_st.pokes_wanted ? poke_key[1] : 0;
}

/* What a message with abmon's tid, context and poke tag says. */
enum poke_kind { POKE_FORGED, POKE_SEND, POKE_FINAL, POKE_FILTER };

/* The poke in the receive buffer: POKE_SEND "send what you have" (the key
 * alone), POKE_FINAL "your final message has come" (the key, then its
 * seq in *seq), POKE_FILTER "omit these families" (the key,
 * XAB_POKE_FILTER, then the mask in *seq), POKE_FORGED without the
 * task's key (not abmon's).
 * Unpacked with PvmAutoErr off and pvm_errno as it was: the program sees
 * nothing. */
static enum poke_kind read_poke(int *seq) {
  int body[2] = {0, 0}, err = pvm_errno;
  int autoerr = pvm_setopt(PvmAutoErr, 0);
  enum poke_kind kind = POKE_FORGED;
  if (pvm_upkint(body, 2, 1) >= 0 && xab_st.pokes_wanted &&
      ((body[0] ^ poke_key[0]) | (body[1] ^ poke_key[1])) == 0)
    kind = pvm_upkint(seq, 1, 1) >= 0 ? POKE_FINAL : POKE_SEND;
  if (kind == POKE_FINAL && *seq == XAB_POKE_FILTER)
    kind = pvm_upkint(seq, 1, 1) >= 0 ? POKE_FILTER : POKE_FORGED;
  pvm_setopt(PvmAutoErr, autoerr);
  pvm_errno = err;
  return kind;
}

/* abmon has the final message of that seq, so pvmd has read it and the
 * kill may go on. */
static void final_message_arrived(int seq) {
  if (xab_st.term_pending && xab_st.final_seq >= 0 && seq == xab_st.final_seq) xab_die_by_sigterm();
}

/* abmon's control channel changes the filter (xab/filter.h).  Nothing
 * goes out from here: the record waits in the buffer, and PVM frees the
 * poke when this returns, as any poke handled outside a blocked call.
 * Inside libab's own send the buffer is being emptied: the change waits
 * for the next send (xab_flush_auto). */
static void filter_from_abmon(unsigned omit) {
  if (xab_st.mode != XAB_MODE_ACTIVE) return;
  if (xab_st.flushing)
    xab_st.filter_wanted = XAB_FILTER_WANTED | (omit & XAB_FILTER_ALL);
  else
    xab_filter_set(omit);
}

/* From inside a blocked call.  A send from here is queued by PVM and
 * written by the call that is running once the handler returns.  The
 * records travel in the poke's own buffer: a buffer made here would be
 * freed only after that write, after the poke's, and swap the two ids on
 * PVM's free list.  Killed while blocked: the last message, then wait
 * (still blocked) for abmon to say it has come. */
static void send_from_blocked_call(int mid) {
  int final = xab_st.term_pending;
  if (xab_st.n == 0 && xab_st.lost == 0 && !final) return;
  /* The poke's buffer is ours now; PVM frees it once sent.  Packing
   * starts over at its beginning (abmon's pokes are PvmDataDefault, XDR,
   * whose packing writes from the first fragment on): the key is gone. */
  pvm_setrbuf(0);
  if (final) xab_st.final_seq = xab_st.seq;
  xab_pvm_flush(final, mid);
  if (final) {
    xab_st.mode = XAB_MODE_OFF;
  } else {
    /* The call this runs in may return before PVM writes the queued send
     * (when the awaited message came in the same read), and the poke's
     * buffer id stays taken until then.  The next record flushes: its
     * pvm_probe writes the queue first, and the ids are back in order
     * before the program makes another buffer. */
    xab_flush_at_next_record();
  }
}

/* abmon's poke: "send what you have" (the key alone), "your final
 * message has come" (the key and its seq), or "omit these families" (the
 * key, XAB_POKE_FILTER and the mask).  Anything else is dropped. */
int xab_poke(int mid) {
  int bytes = 0, tag = 0, src = 0, seq = 0;
  if (pvm_bufinfo(mid, &bytes, &tag, &src) < 0 || src != xab_st.abmon_tid) return 0;
  enum poke_kind kind = read_poke(&seq);
  if (kind == POKE_FORGED) return 0;
  if (kind == POKE_FINAL) {
    final_message_arrived(seq);
    return 0;
  }
  if (kind == POKE_FILTER) {
    filter_from_abmon((unsigned)seq);
    return 0;
  }
  if (xab_st.mode != XAB_MODE_ACTIVE || xab_st.flushing) return 0;
  /* The socket involves no PVM buffer: send from whatever call this is. */
  if ((xab_st.n > 0 || xab_st.lost > 0) && xab_socket_flush(0) == 0) return 0;
  if (!xab_st.waiting) {
    /* A call that returns soon (a send, a probe, ...): its record sends,
     * and PVM frees the poke now, which keeps the buffer ids in order. */
    xab_flush_at_next_record();
    return 0;
  }
  send_from_blocked_call(mid);
  return 0;
}

static void poke_handler_register(void) {
  int autoerr = pvm_setopt(PvmAutoErr, 0);
  int id = pvm_addmhf(xab_st.abmon_tid, xab_st.tag + XAB_POKE_TAG_OFFSET, xab_st.ctx, xab_poke);
  pvm_setopt(PvmAutoErr, autoerr);
  xab_st.mhid = id >= 0 ? id : -1;
}

int xab_poke_handler_off(void) {
  if (xab_st.mhid < 0) return 0;
  int autoerr = pvm_setopt(PvmAutoErr, 0);
  pvm_delmhf(xab_st.mhid);
  pvm_setopt(PvmAutoErr, autoerr);
  xab_st.mhid = -1;
  return 1;
}

/* If a program's handler covers abmon's pokes, ours cannot come back: the
 * task then sends before it blocks, and its messages stop asking for
 * pokes (the program's trampoline still passes a poke in flight here). */
void xab_poke_handler_on(void) {
  if (xab_st.mode == XAB_MODE_ACTIVE && xab_st.pokes_wanted && xab_st.mhid < 0) poke_handler_register();
}
