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
 */
#include "ab_core.h"
#include "ab_send.h"

/* A poke with one int: abmon has the final message of that seq, so pvmd
 * has read it and the kill may go on. */
static void final_message_arrived(void) {
  int seq = -1;
  int autoerr = pvm_setopt(PvmAutoErr, 0);
  pvm_upkint(&seq, 1, 1);
  pvm_setopt(PvmAutoErr, autoerr);
  if (xab_st.term_pending && xab_st.final_seq >= 0 && seq == xab_st.final_seq) xab_die_by_sigterm();
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
  pvm_setrbuf(0); /* the poke's buffer is ours now; PVM frees it once sent */
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

/* abmon's poke: "send what you have" (empty), or "your final message has
 * come" (one int: its seq). */
int xab_poke(int mid) {
  int bytes = 0, tag = 0, src = 0;
  if (pvm_bufinfo(mid, &bytes, &tag, &src) < 0 || src != xab_st.abmon_tid) return 0;
  if (bytes > 0) {
    final_message_arrived();
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
