/*
 * ab_core.h -- what libab's rooms share: the task's state, the hot path
 * that records a call, and each room's entry points.
 *
 * The hot path: a wrapper reads the clock, makes the real PVM call, and
 * appends one fixed-size record to this task's buffer (xab_rec).  Strings
 * are interned once (xab_str) and travel by number.  Formatting and I/O are
 * abmon's job.  The buffer goes to abmon when it fills, every flush_ms
 * while calls happen, when abmon pokes a task that has been quiet (from
 * inside the call it is blocked in), and at the end.
 *
 * The rooms (docs/libab.md, "Inside libab"):
 *   ab_buffer.c        the record buffer and the string table
 *   ab_send.c          when the buffer goes to abmon, and which way;
 *   ab_send_socket.c   through abmon's local socket,
 *   ab_send_pvm.c      or as a PVM message (ab_send.h)
 *   ab_poke.c          abmon's pokes: sending from inside a blocked call
 *   ab_clock.c         the clock exchanges with abmon (clock records)
 *   ab_cost.c          libab's own cost on the task (cost, flush records)
 *   ab_attach.c        finding abmon; forgetting it when the task leaves PVM
 *   ab_end.c           the end of the task: exit() and SIGTERM (pvm_kill)
 *   ab_step.c          control mode: waiting for abmon's go before a call
 *   ab_msg.c, ab_pack.c, ab_group.c, ab_task.c   the wrappers of pvm3.h
 *   ab_mhf.c           the program's message handlers, as PVM keeps them
 *   ab_record.c        record mode: the task's record file (ab_rr.h)
 *   ab_replay.c        replay mode: forcing each recorded outcome (ab_rr.h)
 */
#ifndef XAB_AB_CORE_H
#define XAB_AB_CORE_H

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "xab/ab.h"
#include "xab/events.h"
#include "xab/wire.h"

#define XAB_MAX_BATCH 4096     /* physical buffer: records */

enum xab_mode {
  XAB_MODE_UNATTACHED = 0, /* recording; abmon not looked up yet */
  XAB_MODE_ACTIVE,         /* recording and sending to abmon */
  XAB_MODE_OFF             /* no abmon, or the task has left PVM */
};

/* The task's state, one per process (defined in ab_buffer.c).  Every room
 * reads it; its fields are grouped by the room that keeps them. */
struct xab_state {
  /* the task and its abmon (ab_attach.c; lang: xab_set_lang) */
  int mode;
  int lang;               /* enum xab_lang */
  int mytid;
  int abmon_tid, ctx, tag;
  int monitor_tid;        /* abmon's own tid (abmon_tid is its relay on other hosts) */
  int batch;              /* send when this many records wait */
  int64_t flush_ns;       /* ... or when the oldest unsent is this old */
  int immediate;          /* batch == 1: every record goes at once */
  int pokes_wanted;       /* abmon pokes, and this task does not send at once */
  /* sending (ab_send*.c) */
  int flushing;           /* inside a send or libab's own PVM calls: don't re-enter */
  int have_sock, sock;    /* connected to abmon's local socket (wire.h), its fd */
  int64_t last_flush_ns;
  int64_t last_sync_ns;    /* last clock exchanges with abmon (ab_clock.c) */
  int clock_started;       /* the start exchanges are done */
  int clock_unanswered;    /* phases in a row whose first ping got no answer */
  int seq;                /* next message sequence number */
  int send_failures;      /* consecutive failed sends to abmon */
  /* pokes (ab_poke.c) */
  int mhid;               /* our poke handler (pvm_addmhf), -1: none */
  int waiting;            /* inside a call that may block for long */
  int final_seq;          /* seq of the final message sent by the poke handler, -1: none */
  /* the end of the task (ab_end.c) */
  int in_call;            /* inside a real PVM call (for the SIGTERM handler) */
  volatile sig_atomic_t term_pending;
  /* stepping (ab_step.c) */
  int step_on;            /* abmon's control mode: stop before communicating calls */
  int step_seq;           /* asks made */
  /* libab's own time on the task (ab_cost.c): the wrappers' time outside
   * the program's real PVM call, less what records already tell, in one
   * call out of XAB_OWN_EVERY */
  int own_call;           /* this call: 1 measured, -1 not, 0 not decided yet */
  int own_open;           /* a window is open: XAB_OWN_PRE (before the real call) or XAB_OWN_POST */
  uint32_t own_tick;      /* calls counted for the sampling */
  int64_t own_since;      /* the open window began here */
  int64_t own_timed;      /* timed_ns then */
  int64_t own_ns;         /* measured calls' time not yet told */
  int32_t own_calls;      /* measured calls not yet told */
  int64_t timed_ns;       /* running sum of what cost, flush and clock records tell */
  /* message serials (ab_msg.c) */
  uint32_t serial;        /* last message serial used */
  /* the record buffer (ab_buffer.c) */
  int n;                  /* records waiting in buf */
  int lost;               /* records dropped since the last message */
  struct xab_event buf[XAB_MAX_BATCH];
};

extern struct xab_state xab_st;

#ifdef XAB_TEST_KNOBS
/* The test knob XAB_TEST_CLOCK_SKEW skews the task's clock (ab_clock.c):
 * -1 not read yet, 0 off, 1 on. */
extern int xab_skew_state;
int64_t xab_clock_skewed(int64_t raw);
#endif

static inline int64_t xab_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  int64_t raw = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
#ifdef XAB_TEST_KNOBS
  if (xab_skew_state != 0) return xab_clock_skewed(raw);
#endif
  return raw;
}

/* ---------------------------------------------------------------- ab_clock.c */

/* Ping-pong exchanges with abmon over the local socket, each recorded as
 * an XAB_EV_CLOCK record in the buffer (no-op without a socket). */
void xab_clock_sync(int phase);
/* At a flush: the start exchanges once the task's first record waits
 * (its identity rides on that record, not on a clock record), then a few
 * whenever the last ones are XAB_CLOCK_PERIOD_NS old. */
void xab_clock_sync_due(void);

/* ---------------------------------------------------------------- ab_cost.c */

/* libab's cost on the task: one XAB_EV_COST record at attach;
 * every send to abmon timed (begin: at its header; end: when done) and
 * told as an XAB_EV_FLUSH record at the head of the next message. */
void xab_cost_calibrate_due(void); /* at a flush (or pvm_exit): once per attach, after the first call's record */
void xab_cost_send_begin(void);
void xab_cost_send_end(int64_t now);
void xab_cost_forget(void);

/* libpvm3's own record of this task's tid: -1 until a call enrolls the
 * task (pvmbeatask), -1 again after pvm_exit.  Every PVM call that talks to
 * pvmd enrolls, so no list of "calls that enroll" can be complete: libab
 * looks here after each call instead (a load and a compare). */
extern int pvmmytid;
/* libpvm3's error number (set by every failing call; not in pvm3.h), and
 * its error reporter (prints as PvmAutoErr says, sets pvm_errno). */
extern int pvm_errno;
int lpvmerr(char *f, int n);

/* ---------------------------------------------------------------- ab_send.c */

/* Send what waits, now (no-op unless attached and something waits). */
void xab_flush_now(int final);
/* A record found it is time to send: sends if attached. */
void xab_flush_auto(void);

/* ---------------------------------------------------------------- ab_attach.c */

void xab_attach(void);
/* The task left PVM (pvm_exit): forget abmon, find it again if the
 * process enrolls again, as a new task. */
void xab_detach(void);

/* Any call, whatever it was, that left the task enrolled finds abmon. */
static inline void xab_attach_if_enrolled(void) {
  if (xab_st.mode == XAB_MODE_UNATTACHED && pvmmytid != -1 && !xab_st.flushing) xab_attach();
}

/* After a call that enrolls the task in PVM: find abmon once. */
static inline void xab_enrolled(int ok) {
  if (ok && xab_st.mode == XAB_MODE_UNATTACHED) xab_attach();
}

/* PVM hands out buffer ids from a LIFO free list; libab's own mailbox
 * calls note the ids on top of it before and put them back after, so the
 * program's next ids are what they would be without libab. */
#define XAB_ID_PEEK 6
void xab_peek_free_ids(int ids[XAB_ID_PEEK]);
void xab_restore_free_ids(const int ids[XAB_ID_PEEK]);

/* ---------------------------------------------------------------- ab_end.c */

void xab_term_now(void);
/* Ends the task as SIGTERM's default action does. */
void xab_die_by_sigterm(void);
/* Once attached: send what is buffered at exit() and at SIGTERM. */
void xab_watch_the_end(void);

/* A SIGTERM (pvm_kill) that came during a PVM call ends the task once the
 * call's own record is in the buffer, so the final flush carries it. */
static inline void xab_term_check(void) {
  if (xab_st.term_pending && xab_st.in_call == 0) xab_term_now();
}

/* ---------------------------------------------------------------- ab_cost.c: libab's own time */

/* A wrapper's time outside the program's real PVM call is libab's.  One
 * call in XAB_OWN_EVERY is measured, in windows: from the wrapper's entry
 * to the real call (PRE, opened where there is work before it: a send's
 * serial, a begin record) and from the real call's return to the
 * wrapper's end record (POST).  What flush, clock and cost records already
 * tell is taken out; the sum and the count of measured calls travel in
 * the next flush record (own_ns, own_calls), and a reader charges every
 * call the mean (docs/global-time.md, "What libab measures").  Sampled,
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

int xab_str(const char *s);

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

/* A record that leads every other in the buffer (the task's identity). */
void xab_put_first(int kind, const int a[6]);

/* Kinds whose records need not travel at once in immediate mode. */
extern const unsigned char xab_kind_local[XAB_EV_COUNT_];

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
  if (xab_st.n >= XAB_MAX_BATCH) {
    xab_st.lost++; /* not attached yet and the buffer is full */
  } else {
    xab_put(kind, phase, t, rc, a);
    if (xab_due(kind, t)) xab_flush_auto();
  }
  xab_attach_if_enrolled(); /* after the put: the record rides in the first message */
  if (phase != XAB_PHASE_BEGIN) xab_own_end();
  xab_term_check();
}

/* A record followed by a list of tids, kept in one message; a[count_slot]
 * is the list's length (lowered if the list is cut to fit a message). */
void xab_rec_list(int kind, int64_t t, int rc, const int a[6], int count_slot, const int *tids, int ntids);

/* A record made from inside a PVM call (a message handler PVM runs): it
 * waits for the next call to send it, or goes at once through the local
 * socket, never through PVM from in there. */
void xab_rec_quiet(int kind, int64_t t, int rc, const int a[6]);

/* ---------------------------------------------------------------- ab_step.c */

/* Control mode: before a communicating call, wait for
 * abmon's permission over the local socket.  peer, tag: the call's
 * arguments, for breakpoints. */
void xab_step_wait(int kind, int peer, int tag);
static inline void xab_step(int kind, int peer, int tag) {
  if (xab_st.step_on) xab_step_wait(kind, peer, tag);
}

/* ---------------------------------------------------------------- ab_poke.c */

/* Our poke handler in PVM's real table (the program sees a shadow of the
 * table, ab_mhf.c).  A program handler that covers abmon's pokes takes
 * ours out (off returns whether it was there) and hands pokes to
 * xab_poke; on puts ours back if pokes are wanted and nothing covers them. */
int xab_poke_handler_off(void);
void xab_poke_handler_on(void);
int xab_poke(int mid);

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
  if (xab_st.mhid >= 0)
    xab_st.waiting = 1;
  else if (xab_st.n > 0)
    xab_flush_now(0);
}
static inline void xab_block_end(void) { xab_st.waiting = 0; }

/* ---------------------------------------------------------------- ab_pack.c */

/* An in-place buffer (PvmDataInPlace) has no length until it is sent (PVM
 * reads the program's data then): libab counts what was packed into it. */
void xab_inplace_made(int mid, int enc); /* initsend, mkbuf: mid's encoding */
void xab_inplace_freed(int mid);
/* The bytes packed into buffer mid if it is an in-place one, else 0. */
int xab_inplace_bytes(int mid);

/* ---------------------------------------------------------------- ab_msg.c, ab_mhf.c */

/* Message serials in the PVM header's wait id. */
int xab_stamp_serial(int mid, int *bytes, int *saved_wid);
void xab_unstamp(int mid, int saved_wid);
int xab_read_serial(int mid, int clear, int *bytes, int *src, int *tag);

/* The program's message handlers: ids, errors and PVM's
 * pvmdisplaymhfinfo as without libab; their messages recorded. */
int xab_mhf_add(int src, int tag, int ctx, int (*fn)(int));
int xab_mhf_del(int mhid);
void xab_mhf_exit_begin(void);
void xab_mhf_exit_end(void);

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

#endif /* XAB_AB_CORE_H */
