/*
 * ab_clock.c -- the task's clock against abmon's (docs/global-time.md).
 *
 * Each instrumented task is its own clock domain.  To let the trace model
 * put every record on abmon's clock, the task makes ping-pong exchanges
 * with abmon over its local socket (wire.h, "Clock exchanges"): at the
 * start (SB: at the first flush of a record after its identity), every
 * XAB_CLOCK_PERIOD_NS while it sends records, and at the end (SBA).  Each exchange becomes one XAB_EV_CLOCK record holding the
 * four dates of eq. 4.3 of Chassin de Kergommeaux et al.,
 * "Monitoring parallel programs for performance tuning in cluster
 * environments", so any reader can redo the fit.  The
 * socket is used alone: no PVM call, no buffer id, nothing the program
 * can see.  A task without a socket (another host, until a relay gives it
 * one) records no samples, and the model leaves its times as recorded.
 *
 * The test knob XAB_TEST_CLOCK_SKEW=offset_s[,ppm] skews every date this
 * task records -- event times and the exchanges' t1, t4 alike -- as a task
 * on a host with a wrong clock would see them (docs/libab.md).
 */
#include "ab_core.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>

/* The phases, their counts and period are wire.h's ("Clock exchanges"). */
#define XAB_CLOCK_WAIT_MS 200         /* for abmon's answer; then the phase stops */
#define XAB_CLOCK_GIVE_UP 2           /* phases unanswered in a row: an abmon that does not answer */

#ifdef XAB_TEST_KNOBS
int xab_skew_state = -1;
static int64_t skew_offset_ns, skew_anchor_ns;
static double skew_rate; /* ppm / 1e6 */

static void read_skew_knob(int64_t raw) {
  const char *v = getenv("XAB_TEST_CLOCK_SKEW");
  xab_skew_state = 0;
  if (!v || !*v) return;
  char *end;
  double offset_s = strtod(v, &end);
  double ppm = 0;
  if (*end == ',') ppm = strtod(end + 1, &end);
  if (*end || offset_s < -1e6 || offset_s > 1e6 || ppm < -1e5 || ppm > 1e5) return;
  skew_offset_ns = (int64_t)(offset_s * 1e9);
  skew_rate = ppm * 1e-6;
  skew_anchor_ns = raw;
  xab_skew_state = 1;
}

int64_t xab_clock_skewed(int64_t raw) {
  if (xab_skew_state < 0) read_skew_knob(raw);
  if (xab_skew_state == 0) return raw;
  return raw + skew_offset_ns + (int64_t)((double)(raw - skew_anchor_ns) * skew_rate);
}
#endif

/* abmon's answer to ping number id: 0 with t2, t3 and t4 set, -1 when none
 * came.  An answer to an older ping, one given up on, is read and dropped:
 * the numbers never repeat over the task's life, so a late answer is never
 * taken for a later exchange's. */
static int await_pong(int32_t id, int64_t *t2, int64_t *t3, int64_t *t4) {
  for (;;) {
    struct pollfd p = {xab_st.sock, POLLIN, 0};
    int r = poll(&p, 1, XAB_CLOCK_WAIT_MS);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    struct xab_clock_pong q;
    ssize_t n = recv(xab_st.sock, &q, sizeof q, MSG_DONTWAIT);
    *t4 = xab_clock();
    if (n < 0 && errno == EINTR) continue;
    if (n != (ssize_t)sizeof q || q.magic != XAB_CLOCK_MAGIC) return -1;
    if (q.k != id) continue; /* the late answer to an exchange given up on */
    *t2 = q.t2;
    *t3 = q.t3;
    return 0;
  }
}

/* One exchange, recorded as the phase's k-th: 0, or -1 when abmon did not
 * answer. */
static int exchange(int phase, int k) {
  struct xab_clock_ping ping = {XAB_CLOCK_MAGIC, ++xab_st.clock_pings, 0};
  int64_t t2, t3, t4;
  ping.t1 = xab_clock();
  if (send(xab_st.sock, &ping, sizeof ping, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)sizeof ping) return -1;
  if (await_pong(ping.k, &t2, &t3, &t4) < 0) return -1;
  if (!xab_clock_exchange_usable(ping.t1, t2, t3, t4)) return 0; /* not a sample (wire.h) */
  int64_t rtt = t4 - ping.t1, turn = t3 - t2;
  xab_put(XAB_EV_CLOCK, XAB_PHASE_END, ping.t1, k,
          XAB_A(xab_st.abmon_tid, (int)(t2 / 1000000000), (int)(t2 % 1000000000), (int)turn, (int)rtt, phase));
  xab_st.timed_ns += rtt; /* the clock record tells it */
  return 0;
}

void xab_clock_sync(int phase) {
  /* An abmon older than clock exchanges never answers: stop asking, or
   * every phase would cost the task XAB_CLOCK_WAIT_MS. */
  if (xab_st.mode != XAB_MODE_ACTIVE || !xab_st.have_sock || xab_st.flushing ||
      xab_st.clock_unanswered >= XAB_CLOCK_GIVE_UP)
    return;
  int count = phase == XAB_CLOCK_RUN ? XAB_CLOCK_RUN_EXCHANGES : XAB_CLOCK_EDGE_EXCHANGES;
  if (xab_st.n + count >= XAB_MAX_BATCH - 1) return; /* no room: the next flush tries again */
  xab_st.flushing = 1; /* a SIGTERM now is deferred (ab_end.c) */
  int k = 0;
  while (k < count && exchange(phase, k) == 0) k++; /* no answer: abmon busy or gone, try at the next period */
  xab_st.clock_unanswered = k == 0 ? xab_st.clock_unanswered + 1 : 0;
  xab_st.flushing = 0;
  xab_st.last_sync_ns = xab_clock();
  xab_st.clock_started = 1;
}

void xab_clock_sync_due(void) {
  if (!xab_st.have_sock) return;
  if (!xab_st.clock_started) {
    if (xab_st.n > 1 || (xab_st.n == 1 && xab_st.buf[0].kind != XAB_EV_INFO)) xab_clock_sync(XAB_CLOCK_START);
  } else if (!(xab_st.filter & XAB_FILTER_CLOCK) && xab_clock() - xab_st.last_sync_ns >= XAB_CLOCK_PERIOD_NS) {
    xab_clock_sync(XAB_CLOCK_RUN);
  }
}
