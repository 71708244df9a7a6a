/*
 * ab_end.c -- the end of a task: what is buffered reaches abmon when the
 * task returns from main or calls exit() without pvm_exit, and when
 * pvm_kill ends it (SIGTERM).
 *
 * A SIGTERM that comes while the task is inside PVM cannot send from the
 * handler through PVM (PVM is inside its own socket loop): it is deferred
 * to the end of the call (xab_term_check), or, for a task blocked in a
 * call, left to abmon's next poke (ab_poke.c).  The local socket needs no
 * PVM and sends from the handler itself.
 */
#include "ab_core.h"
#include "ab_send.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

/* A task killed (SIGTERM) while blocked with unsent records waits this long
 * for abmon's poke, which sends them and ends it; then SIGALRM ends it. */
#define XAB_KILL_WAIT_S 5

void xab_die_by_sigterm(void) {
  signal(SIGTERM, SIG_DFL);
  raise(SIGTERM);
}

/* Runs outside any PVM call: in the handler when the program was computing,
 * or from xab_leave() when SIGTERM came during a call. */
void xab_term_now(void) {
  xab_st.term_pending = 0;
  /* If the flush itself cannot finish (the program was inside malloc, say),
   * don't let the task outlive its kill: the alarm ends it. */
  alarm(2);
  xab_flush_now(1);
  /* pvmd reads our socket in order: once it has answered a request sent
   * after the flush, it has taken the flush too.  Without this, a task
   * killed with messages still queued in its socket dies (and pvmd reaps
   * it) before pvmd reads the flush, which is then lost.  (What went to
   * the local socket is abmon's already.) */
  if (xab_st.mode == XAB_MODE_ACTIVE && !xab_st.have_sock) {
    int autoerr = pvm_setopt(PvmAutoErr, 0);
    pvm_pstat(xab_st.abmon_tid);
    pvm_setopt(PvmAutoErr, autoerr);
  }
  xab_st.mode = XAB_MODE_OFF;
  xab_die_by_sigterm();
}

/* SIGTERM inside PVM.  Nothing waiting: die now.  A call that does not
 * block: finish it, then send and die.  Blocked (a receive, a barrier,
 * ...): stay blocked until abmon's poke; its handler sends the records as
 * the final message, abmon confirms, and the handler ends the task -- or
 * SIGALRM does, if abmon is gone.  SIGTERM is blocked while its handler
 * runs, so a raise() here ends the task only once the handler returns. */
static void term_inside_pvm(void) {
  if (xab_st.n == 0 || xab_st.mode != XAB_MODE_ACTIVE) xab_die_by_sigterm();
  /* Blocked, with the local socket: no PVM needed, send and die now. */
  if (xab_st.waiting && !xab_st.flushing && xab_socket_flush(1) == 0) {
    xab_st.mode = XAB_MODE_OFF;
    xab_die_by_sigterm();
  }
  xab_st.term_pending = 1;
  if (xab_st.waiting) alarm(XAB_KILL_WAIT_S);
}

static void on_sigterm(int sig) {
  (void)sig;
  int saved_errno = errno;
  if (xab_st.in_call || xab_st.flushing) {
    term_inside_pvm();
    errno = saved_errno;
    return;
  }
  xab_term_now();
}

/* A program that returns from main without pvm_exit is still enrolled. */
static void at_process_exit(void) {
  if (xab_st.mode != XAB_MODE_ACTIVE || xab_st.in_call) return;
  xab_cost_calibrate_due();
  xab_clock_sync(XAB_CLOCK_END);
  xab_flush_now(1);
}

void xab_watch_the_end(void) {
  /* Only where the program has not chosen its own SIGTERM disposition. */
  struct sigaction old;
  if (sigaction(SIGTERM, NULL, &old) == 0 && old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO)) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigterm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
  }
  static int registered;
  if (!registered) registered = atexit(at_process_exit) == 0;
}
