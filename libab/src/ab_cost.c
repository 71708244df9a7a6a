/*
 * ab_cost.c -- libab's own cost on the task, measured so that a reader can
 * take it back out of the trace (intrusion compensation,
 * docs/compensation.md).
 *
 * Two measurements, both recorded:
 *  - once attached, at the first flush after the first call's record (so
 *    that it follows in the task's order every record dated before it),
 *    or at pvm_exit (or the process's exit) when that comes first: a short
 *    task whose records all go in its last message is calibrated too,
 *    the cost of one record: bursts of records (a clock read
 *    and a buffer append each, as every wrapper does) timed into the
 *    buffer's free tail and then dropped; the fastest burst gives the
 *    cost: one XAB_EV_COST record.
 *  - the real duration of every send of the buffer to abmon (a flush, or a
 *    poke answer from inside a blocked call): timed from the message
 *    header to the end of the send, and told as an XAB_EV_FLUSH record at
 *    the head of the next message (its time is when the send began, so it
 *    still comes before every record that message carries).
 *  - libab's own time in the wrappers of one call in XAB_OWN_EVERY (the
 *    serial stamped before a send, the records, what follows a send to
 *    abmon until the wrapper returns): the windows of ab_cost_sample.h, less what
 *    the records above tell, summed with their count into the same
 *    XAB_EV_FLUSH record (own_ns, own_calls).  The calibration's burst is
 *    the fastest case, in a hot cache; this is what calls really cost.
 *
 * The test knob XAB_TEST_RECORD_COST_NS=N (read at attach) makes every
 * record spin N ns of the task's CPU more: a known, large intrusion that
 * the calibration sees like the real one (docs/libab.md).
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include "ab_core.h"
#include "ab_send.h"

#include <sched.h>
#include <stdlib.h>
#include <time.h>

#define XAB_COST_BURST 64  /* records per burst */
#define XAB_COST_BURSTS 8  /* bursts: the fastest one counts */

#ifdef XAB_TEST_KNOBS
int64_t xab_test_record_cost_ns;

/* CPU the task spends, not time that passes: a spin on the wall clock that
 * a core-mate pre-empts ends having cost less than N, unlike libab's real
 * work, which takes its CPU whoever else runs. */
static int64_t thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void xab_test_spin(void) {
  int64_t end = thread_cpu_ns() + xab_test_record_cost_ns;
  while (thread_cpu_ns() < end) {
  }
}
#endif

static struct {
  int64_t start_ns;   /* the send under way began here; 0: none */
  int64_t pending_at; /* a finished send not yet told; 0: none */
  int32_t pending_ns, pending_records, pending_blocked;
} cost;

/* The open window's time up to now, less what records tell of it. */
void xab_own_account(int64_t now) {
  int64_t d = now - xab_st.own_since - (xab_st.timed_ns - xab_st.own_timed);
  if (d > 0) xab_st.own_ns += d;
  xab_st.own_since = now;
  xab_st.own_timed = xab_st.timed_ns;
}

static int calibrated;
static void calibrate(void);

/* The CPUs this task may run on, as a bit mask (bit i: CPU i): a reader
 * charges a task for its core-mates' costs (docs/compensation.md,
 * "Shared cores").  0 when unknown or when a CPU past 30 is in the set. */
static int cpu_mask(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  int mask = 0;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &set)) {
      if (c > 30) return 0;
      mask |= 1 << c;
    }
  return mask;
}

/* After the first record that is not the identity: the cost record then
 * follows, in the task's order, every record dated before it. */
void xab_cost_calibrate_due(void) {
  if (calibrated || xab_st.n == 0 || (xab_st.n == 1 && xab_st.buf[0].kind == XAB_EV_INFO)) return;
  calibrated = 1;
  calibrate();
}

static void calibrate(void) {
#ifdef XAB_TEST_KNOBS
  const char *knob = getenv("XAB_TEST_RECORD_COST_NS");
  if (knob && atoll(knob) > 0 && atoll(knob) < 1000000) xab_test_record_cost_ns = atoll(knob);
#endif
  int n0 = xab_st.n;
  if (n0 + XAB_COST_BURST + 1 > XAB_MAX_BATCH) return; /* no room: no calibration, said by no record */
  static const int zero[6];
  /* The fastest of several short bursts: a burst the scheduler interrupted
   * says nothing about what a record costs. */
  int64_t t0 = xab_clock(), best = INT64_MAX;
  for (int b = 0; b < XAB_COST_BURSTS; b++) {
    int64_t s = xab_clock();
    for (int i = 0; i < XAB_COST_BURST; i++) xab_put(XAB_EV_COST, XAB_PHASE_END, xab_clock(), 0, zero);
    int64_t d = xab_clock() - s;
    if (d < best) best = d;
    xab_st.n = n0;
  }
  int64_t total = xab_clock() - t0;
  if (best < 0 || total > INT32_MAX) return;
  int a[6] = {XAB_COST_BURST * XAB_COST_BURSTS, (int)total, cpu_mask(), 0, 0, 0};
  xab_put(XAB_EV_COST, XAB_PHASE_END, t0, (int)(best / XAB_COST_BURST), a);
  xab_st.timed_ns += total; /* the cost record tells it */
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
  int32_t own = xab_st.own_ns > INT32_MAX ? INT32_MAX : (int32_t)xab_st.own_ns;
  int a[6] = {cost.pending_ns, cost.pending_blocked, own, xab_st.own_calls, 0, 0};
  memcpy(e->a, a, sizeof e->a);
  cost.pending_at = 0;
  xab_st.own_ns = 0;
  xab_st.own_calls = 0;
}

void xab_cost_send_begin(void) {
  tell_pending();
  /* The send of the identity alone, at attach, is not timed (the attach
   * is not): its record would lead the next message and take the
   * identity, which belongs on the task's first call (mytid). */
  if (xab_st.n == 1 && xab_st.buf[0].kind == XAB_EV_INFO) return;
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
  xab_st.timed_ns += cost.pending_ns; /* the flush record tells it */
}

void xab_cost_forget(void) {
  calibrated = 0;
  cost.start_ns = 0;
  cost.pending_at = 0;
  xab_st.own_ns = 0;
  xab_st.own_calls = 0;
  xab_st.own_open = XAB_OWN_NONE;
  xab_st.own_call = 0;
}
