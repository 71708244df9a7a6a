/*
 * ab_hot.h -- the hot path every wrapper takes: the brackets around the
 * program's real PVM call, appending a record (xab_rec) and deciding when
 * the buffer goes to abmon, the blocking calls' brackets, and the
 * wrappers' shapes.
 */
#ifndef XAB_AB_HOT_H
#define XAB_AB_HOT_H

#include <string.h>

#include "ab_cost_sample.h"
#include "ab_rooms.h"

/* ---------------------------------------------------------------- ab_attach.c */

/* Any call, whatever it was, that left the task enrolled finds abmon. */
static inline void xab_attach_if_enrolled(void) {
  if (xab_st.mode == XAB_MODE_UNATTACHED && pvmmytid != -1 && !xab_st.flushing) xab_attach();
}

/* After a call that enrolls the task in PVM: find abmon once. */
static inline void xab_enrolled(int ok) {
  if (ok && xab_st.mode == XAB_MODE_UNATTACHED) xab_attach();
}

/* ---------------------------------------------------------------- ab_end.c */

/* A SIGTERM (pvm_kill) that came during a PVM call ends the task once the
 * call's own record is in the buffer, so the final flush carries it. */
static inline void xab_term_check(void) {
  if (xab_st.term_pending && xab_st.in_call == 0) xab_term_now();
}

/* ---------------------------------------------------------------- the brackets around a real call */

/* Bracket every real PVM call of the program, so that SIGTERM never sends
 * from inside one.  A SIGTERM deferred by a call is acted on at the
 * call's record (xab_term_check), or at the latest when the next call
 * begins.  The outermost bracket also closes and opens the own-time
 * windows of a measured call; a POST window still open here had no end
 * record: that call is dropped, not counted. */
static inline void xab_enter(void) {
  xab_term_check();
  if (xab_st.in_call++ == 0 && xab_st.own_open) {
    if (xab_st.own_open == XAB_OWN_PRE) {
      xab_own_account(xab_clock());
    } else {
      xab_st.own_call = 0;
    }
    xab_st.own_open = XAB_OWN_NONE;
  }
}
static inline void xab_leave(void) {
  if (--xab_st.in_call == 0 && xab_st.mode != XAB_MODE_OFF && xab_own_measured())
    xab_own_open(XAB_OWN_POST, xab_clock());
}
/* libab's own PVM calls (inside a window): SIGTERM deferred, no window change. */
static inline void xab_enter_own(void) {
  xab_term_check();
  xab_st.in_call++;
}
static inline void xab_leave_own(void) { xab_st.in_call--; }

/* ---------------------------------------------------------------- ab_buffer.c */

#ifdef XAB_TEST_KNOBS
/* The test knob XAB_TEST_RECORD_COST_NS: every record costs that much more
 * (a spin), a known intrusion for the compensation tests (ab_cost.c). */
extern int64_t xab_test_record_cost_ns;
void xab_test_spin(void);
#endif

/* Append one record.  a[] always has six slots; missing ones are zero. */
static inline void xab_put(int kind, int phase, int64_t t, int rc, const int a[6]) {
#ifdef XAB_TEST_KNOBS
  if (xab_test_record_cost_ns) xab_test_spin();
#endif
  struct xab_event *e = &xab_st.buf[xab_st.n++];
  e->t_ns = t;
  e->kind = (uint16_t)kind;
  e->phase = (uint8_t)phase;
  e->flags = 0;
  e->rc = rc;
  memcpy(e->a, a, sizeof e->a);
}


/* Kinds whose records need not travel at once in immediate mode. */
extern const unsigned char xab_kind_local[XAB_EV_COUNT_];
/* Each kind's family for filtering at the source (XAB_FILTER_*, 0: never filtered). */
extern const unsigned char xab_kind_family[XAB_EV_COUNT_];

/* Is it time to send?  Batched: the buffer is full or flush_ms has passed.
 * Immediate: at every call that talks to another task or to pvmd, with the
 * local calls before it (packing, buffers) in the same message. */
static inline int xab_due(int kind, int64_t t) {
  if (t - xab_st.last_flush_ns >= xab_st.flush_ns) return 1;
  if (xab_st.immediate) return !xab_kind_local[kind] || xab_st.n >= XAB_MAX_BATCH - 1;
  return xab_st.n >= xab_st.batch;
}

/* Where sending must wait (inside a PVM call), the next record sends. */
static inline void xab_flush_at_next_record(void) { xab_st.last_flush_ns = INT64_MIN / 2; }

static inline void xab_rec(int kind, int phase, int64_t t, int rc, const int a[6]) {
  if (xab_st.mode == XAB_MODE_OFF) {
    xab_term_check();
    return;
  }
  if (phase == XAB_PHASE_BEGIN) xab_own_entry(t); /* a begin record is its wrapper's entry */
  if (xab_st.filter & xab_kind_family[kind]) {
    /* filtered at the source: not recorded (its `filter` record says so) */
  } else if (xab_st.n >= XAB_MAX_BATCH) {
    xab_st.lost++; /* not attached yet and the buffer is full */
  } else {
    xab_put(kind, phase, t, rc, a);
    if (xab_due(kind, t)) xab_flush_auto();
  }
  xab_attach_if_enrolled(); /* after the put: the record rides in the first message */
  if (phase != XAB_PHASE_BEGIN) xab_own_end();
  xab_term_check();
}

/* ---------------------------------------------------------------- ab_step.c */

/* At the start of a call that reads the network (a send, a receive, a
 * spawn, a barrier): a send through PVM that waits for one goes now
 * (xab_flush_auto), then control mode's step. */
static inline void xab_step(int kind, int peer, int tag) {
  if (xab_st.net_flush_wanted) xab_flush_waiting();
  if (xab_st.step_on) xab_step_wait(kind, peer, tag);
}

/* ---------------------------------------------------------------- ab_poke.c */


/* Around a call that may block for long.  The records (the begin record
 * included) must reach abmon while the task is blocked, yet a receive whose
 * message comes in microseconds should cost nothing extra.  So they wait in
 * the buffer: when the task has been quiet for a while, abmon sends it a
 * poke, and libab's message handler sends the buffer from inside the
 * blocked call (see docs/libab.md, "Pokes").  Without a poke handler
 * (immediate mode, or the program's own handler took abmon's context) they
 * go before the call. */
static inline void xab_block_begin(void) {
  if (xab_st.mode == XAB_MODE_UNATTACHED) xab_attach(); /* every blocking call enrolls */
  if (xab_st.mode != XAB_MODE_ACTIVE) return;
  if (xab_st.net_flush_wanted) xab_flush_waiting();
  if (xab_st.mhid >= 0)
    xab_st.waiting = 1;
  else if (xab_st.n > 0)
    xab_flush_now(0);
}
static inline void xab_block_end(void) { xab_st.waiting = 0; }

/* ---------------------------------------------------------------- the wrappers' shapes */

#define XAB_A(...) ((const int[6]){__VA_ARGS__})

/* The common shape: one record after a call that cannot block. */
#define XAB_SIMPLE(kind, call, ...)                    \
  do {                                                 \
    int64_t t_ = xab_clock();                          \
    xab_enter();                                       \
    int rc_ = (call);                                  \
    xab_leave();                                       \
    xab_rec((kind), XAB_PHASE_END, t_, rc_, XAB_A(__VA_ARGS__)); \
    return rc_;                                        \
  } while (0)

/* A call that may block for long: a begin record, the call (abmon may poke
 * the records out of it), the end record with the same slots. */
#define XAB_BLOCKING(kind, call, ...)                                      \
  do {                                                                     \
    xab_rec((kind), XAB_PHASE_BEGIN, xab_clock(), 0, XAB_A(__VA_ARGS__));  \
    xab_block_begin();                                                     \
    xab_enter();                                                           \
    int rc_ = (call);                                                      \
    xab_leave();                                                           \
    xab_block_end();                                                       \
    xab_rec((kind), XAB_PHASE_END, xab_clock(), rc_, XAB_A(__VA_ARGS__));  \
    return rc_;                                                            \
  } while (0)

#endif /* XAB_AB_HOT_H */
