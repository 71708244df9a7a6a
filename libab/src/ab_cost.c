/*
 * ab_cost.c -- libab's own cost on the task, measured so that a reader can
 * take it back out of the trace (issue 15 §2, intrusion compensation,
 * docs/global-time.md).
 *
 * Two measurements, both recorded:
 *  - at attach, the cost of one record: a burst of records (a clock read
 *    and a buffer append each, as every wrapper does) timed into the
 *    buffer's free tail and then dropped: one XAB_EV_COST record.
 *  - the real duration of every send of the buffer to abmon (a flush, or a
 *    poke answer from inside a blocked call): timed from the message
 *    header to the end of the send, and told as an XAB_EV_FLUSH record at
 *    the head of the next message (its time is when the send began, so it
 *    still comes before every record that message carries).
 */
#include "ab_core.h"
#include "ab_send.h"

#define XAB_COST_BURST 512

static struct {
  int64_t start_ns;   /* the send under way began here; 0: none */
  int64_t pending_at; /* a finished send not yet told; 0: none */
  int32_t pending_ns, pending_records, pending_blocked;
} cost;

void xab_cost_calibrate(void) {
  int n0 = xab_st.n;
  if (n0 + XAB_COST_BURST + 1 > XAB_MAX_BATCH) return; /* no room: no calibration, said by no record */
  static const int zero[6];
  int64_t t0 = xab_clock();
  for (int i = 0; i < XAB_COST_BURST; i++) xab_put(XAB_EV_COST, XAB_PHASE_END, xab_clock(), 0, zero);
  int64_t total = xab_clock() - t0;
  xab_st.n = n0;
  if (total < 0 || total > INT32_MAX) return;
  int a[6] = {XAB_COST_BURST, (int)total, 0, 0, 0, 0};
  xab_put(XAB_EV_COST, XAB_PHASE_END, t0, (int)(total / XAB_COST_BURST), a);
}

/* The last send's record goes first (after the identity, which leads). */
static void tell_pending(void) {
  if (cost.pending_at == 0 || xab_st.n >= XAB_MAX_BATCH) return;
  int at = xab_st.n > 0 && xab_st.buf[0].kind == XAB_EV_INFO ? 1 : 0;
  memmove(&xab_st.buf[at + 1], &xab_st.buf[at], (size_t)(xab_st.n - at) * sizeof xab_st.buf[0]);
  xab_st.n++;
  struct xab_event *e = &xab_st.buf[at];
  e->t_ns = cost.pending_at;
  e->kind = XAB_EV_FLUSH;
  e->phase = XAB_PHASE_END;
  e->flags = 0;
  e->rc = cost.pending_records;
  int a[6] = {cost.pending_ns, cost.pending_blocked, 0, 0, 0, 0};
  memcpy(e->a, a, sizeof e->a);
  cost.pending_at = 0;
}

void xab_cost_send_begin(void) {
  tell_pending();
  if (cost.start_ns == 0) cost.start_ns = xab_clock(); /* a socket send that fell back to PVM: from the first try */
  cost.pending_records = xab_st.n;
}

void xab_cost_send_end(int64_t now) {
  if (cost.start_ns == 0) return;
  int64_t d = now - cost.start_ns;
  cost.pending_at = cost.start_ns;
  cost.pending_ns = d < 0 ? 0 : d > INT32_MAX ? INT32_MAX : (int32_t)d;
  cost.pending_blocked = xab_st.waiting;
  cost.start_ns = 0;
}

void xab_cost_forget(void) {
  cost.start_ns = 0;
  cost.pending_at = 0;
}
