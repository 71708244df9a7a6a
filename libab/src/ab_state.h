/*
 * ab_state.h -- the task's state, one per process, and its clock.  Every
 * room reads the state; its fields are grouped by the room that keeps
 * them.  Also libpvm3's own variables libab reads (the task's tid, the
 * error number).
 */
#ifndef XAB_AB_STATE_H
#define XAB_AB_STATE_H

#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "xab/ab.h"
#include "xab/events.h"
#include "xab/filter.h"
#include "xab/wire.h"

#define XAB_FILTER_WANTED 0x100 /* xab_state.filter_wanted: a change waits */
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
  int32_t clock_pings;     /* pings sent: each ping's number, never the same twice */
  int seq;                /* next message sequence number */
  int send_failures;      /* consecutive failed sends to abmon */
  /* pokes (ab_poke.c) */
  int mhid;               /* our poke handler (pvm_addmhf), -1: none */
  int waiting;            /* inside a call that may block for long */
  int net_flush_wanted;   /* a send through PVM waits for the next call that reads the network */
  int final_seq;          /* seq of the final message sent by the poke handler, -1: none */
  /* the end of the task (ab_end.c) */
  int in_call;            /* inside a real PVM call (for the SIGTERM handler) */
  volatile sig_atomic_t term_pending;
  /* stepping (ab_step.c) */
  int step_on;            /* abmon's control mode: stop before communicating calls */
  int step_seq;           /* asks made */
  /* filtering at the source (xab/filter.h): XAB_FILTER_* families not recorded */
  unsigned filter;
  unsigned filter_wanted;  /* XAB_FILTER_WANTED | the families abmon asked for inside a send; 0: none */
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
/* libpvm3's own record of this task's tid: -1 until a call enrolls the
 * task (pvmbeatask), -1 again after pvm_exit.  Every PVM call that talks to
 * pvmd enrolls, so no list of "calls that enroll" can be complete: libab
 * looks here after each call instead (a load and a compare). */
extern int pvmmytid;
/* libpvm3's error number (set by every failing call; not in pvm3.h), and
 * its error reporter (prints as PvmAutoErr says, sets pvm_errno). */
extern int pvm_errno;
int lpvmerr(char *f, int n);
/* libpvm3's enrolment, and its flag "called from outside libpvm": every
 * call made at that level enrolls a process that is not yet a task
 * (pvmbeatask, from the trace check at the call's entry, with the flag
 * cleared). */
int pvmbeatask(void);
extern int pvmtoplvl;

#endif /* XAB_AB_STATE_H */
