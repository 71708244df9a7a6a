/*
 * ab_step.c -- control mode: stop before each communicating
 * call and wait for abmon's permission.
 *
 * abmon started with --control says so in its mailbox entry.  Before a
 * communicating call (send, receive, spawn, barrier, ...) a task connected
 * to abmon's local socket records XAB_EV_STEP_WAIT, sends its buffer, asks
 * (struct xab_step_ask) and waits for the answer on the socket.  The wait
 * makes no PVM call and touches no PVM buffer: the program goes on exactly
 * as it would have, only later.  A task on another host asks its host's
 * relay the same way (the relay's mailbox entry says control mode too; it
 * forwards the ask to abmon and the go back: relay.h, "Stepping through a relay").  A task
 * without a socket (--pvm-only) is not stepped: PVM messages could not
 * carry the answer without a PVM call.  If abmon (or the relay) goes away,
 * the socket closes and the task goes on unstepped.
 */
#define _GNU_SOURCE
#include "ab_core.h"
#include "ab_send.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>

static const char *const call_names[XAB_EV_COUNT_] = {
#define XAB_NAME_(id, name, flags, rck, b, e) name,
    XAB_CALLS(XAB_NAME_)
#undef XAB_NAME_
};

/* Wait for the go of ask seq: 0, or -1 when the socket is gone. */
static int await_go(int seq) {
  for (;;) {
    struct pollfd p = {xab_st.sock, POLLIN, 0};
    int r = poll(&p, 1, -1);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    union {
      struct xab_step_go go;
      struct xab_clock_pong pong; /* a late answer to a clock ping: ignored */
    } m;
    ssize_t n = recv(xab_st.sock, &m, sizeof m, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return -1;
    if (n == (ssize_t)sizeof m.go && m.go.magic == XAB_STEP_MAGIC && m.go.seq == seq) return 0;
  }
}

void xab_step_wait(int kind, int peer, int tag) {
  if (xab_st.mode != XAB_MODE_ACTIVE || !xab_st.have_sock || xab_st.flushing || xab_st.in_call) return;
  if (xab_st.n >= XAB_MAX_BATCH) xab_flush_now(0);
  if (xab_st.n >= XAB_MAX_BATCH || !xab_st.have_sock) return; /* could not send: not stepped */
  int seq = ++xab_st.step_seq;
  xab_put(XAB_EV_STEP_WAIT, XAB_PHASE_END, xab_clock(), seq, XAB_A(xab_str(call_names[kind]), peer, tag));
  /* The records, the step.wait last, reach abmon before the ask. */
  if (xab_socket_flush(0) < 0) return;
  struct xab_step_ask ask = {XAB_STEP_MAGIC, seq, kind, peer, tag};
  if (send(xab_st.sock, &ask, sizeof ask, MSG_NOSIGNAL) != (ssize_t)sizeof ask || await_go(seq) < 0) {
    xab_socket_close(); /* abmon has gone: PVM messages from now on, unstepped */
    xab_st.step_on = 0;
  }
}
