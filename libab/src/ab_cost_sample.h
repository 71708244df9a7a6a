/*
 * ab_cost_sample.h -- libab's cost on the task (ab_cost.c): the sends to
 * abmon timed, and the sampling of libab's own time in the wrappers.
 */
#ifndef XAB_AB_COST_SAMPLE_H
#define XAB_AB_COST_SAMPLE_H

#include "ab_state.h"

/* ---------------------------------------------------------------- ab_cost.c */

/* libab's cost on the task: one XAB_EV_COST record at attach;
 * every send to abmon timed (begin: at its header; end: when done) and
 * told as an XAB_EV_FLUSH record at the head of the next message. */
void xab_cost_calibrate_due(void); /* at a flush (or pvm_exit): once per attach, after the first call's record */
void xab_cost_send_begin(void);
void xab_cost_send_end(int64_t now);
void xab_cost_forget(void);

/* ---------------------------------------------------------------- ab_cost.c: libab's own time */

/* A wrapper's time outside the program's real PVM call is libab's.  One
 * call in XAB_OWN_EVERY is measured, in windows: from the wrapper's entry
 * to the real call (PRE, opened where there is work before it: a send's
 * serial, a begin record) and from the real call's return to the
 * wrapper's end record (POST).  What flush, clock and cost records already
 * tell is taken out; the sum and the count of measured calls travel in
 * the next flush record (own_ns, own_calls), and a reader charges every
 * call the mean (docs/compensation.md, "What libab measures").  Sampled,
 * the windows' clock reads cost a call about 1 ns on average. */
#define XAB_OWN_EVERY 32 /* a power of two */
enum { XAB_OWN_NONE = 0, XAB_OWN_PRE, XAB_OWN_POST };
void xab_own_account(int64_t now);
/* Is this call measured?  Decided once, at its first window. */
static inline int xab_own_measured(void) {
  if (xab_st.own_call == 0) xab_st.own_call = (++xab_st.own_tick & (XAB_OWN_EVERY - 1)) == 0 ? 1 : -1;
  return xab_st.own_call > 0;
}
static inline void xab_own_open(int kind, int64_t now) {
  xab_st.own_open = kind;
  xab_st.own_since = now;
  xab_st.own_timed = xab_st.timed_ns;
}
/* At the entry of a wrapper with work before its real call (t: its first
 * clock read).  The calls of a message handler PVM runs inside a real
 * call (in_call > 0) are part of that call: they neither open nor close
 * windows. */
static inline void xab_own_entry(int64_t t) {
  if (xab_st.in_call == 0 && xab_st.mode != XAB_MODE_OFF && xab_own_measured()) xab_own_open(XAB_OWN_PRE, t);
}
/* At a wrapper's end record: a measured call's last window closes. */
static inline void xab_own_end(void) {
  if (xab_st.in_call > 0) return;
  if (xab_st.own_call > 0) {
    if (xab_st.own_open) xab_own_account(xab_clock());
    xab_st.own_calls++;
  }
  xab_st.own_open = XAB_OWN_NONE;
  xab_st.own_call = 0;
}

#endif /* XAB_AB_COST_SAMPLE_H */
