/*
 * ab_attach.c -- finding abmon once the task is enrolled, and forgetting it
 * when the task leaves PVM.
 *
 * abmon publishes where it is, and the settings every task shares, in its
 * mailbox entry (wire.h): a spawned task inherits only the variables named
 * in PVM_EXPORT.  The lookup is made so that the program cannot tell:
 * PvmAutoErr off, and PVM's free buffer ids put back in their order.
 */
#define _GNU_SOURCE
#include "ab_core.h"
#include "ab_send.h"
#include "ab_rr.h"

#include <errno.h> /* program_invocation_short_name */
#include <pvmtev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What abmon's mailbox entry says. */
struct abmon_entry {
  int tid, ctx, tag;
  int batch, flush_ms, poke_ms; /* poke_ms 0: an abmon that does not poke */
  int sock_len;                 /* 0: no local socket */
  char sock_name[XAB_SOCKET_NAME_MAX];
  int control;                  /* 1: abmon --control, tasks step (ab_step.c) */
};

static int env_int(const char *name, int fallback) {
  const char *v = getenv(name);
  if (!v || !*v) return fallback;
  char *end;
  long x = strtol(v, &end, 10);
  return (*end || x < 0 || x > 1000000) ? fallback : (int)x;
}

/* PVM hands out buffer ids from a LIFO free list.  A mailbox lookup makes
 * buffers (request, reply, ...) and frees them in another order, which
 * would change the next ids the program gets.  Note the ids on top of the
 * list before, and put them back in that order after. */
void xab_peek_free_ids(int ids[XAB_ID_PEEK]) {
  for (int i = 0; i < XAB_ID_PEEK; i++) ids[i] = pvm_mkbuf(PvmDataDefault);
  for (int i = XAB_ID_PEEK - 1; i >= 0; i--) pvm_freebuf(ids[i]);
}

void xab_restore_free_ids(const int ids[XAB_ID_PEEK]) {
  int got[XAB_ID_PEEK];
  for (int i = 0; i < XAB_ID_PEEK; i++) got[i] = pvm_mkbuf(PvmDataDefault);
  for (int i = 0; i < XAB_ID_PEEK; i++) {
    int known = 0;
    for (int j = 0; j < XAB_ID_PEEK; j++) known |= got[j] == ids[i];
    if (!known) { /* a message arrived meanwhile and took an id: leave it */
      for (int j = XAB_ID_PEEK - 1; j >= 0; j--) pvm_freebuf(got[j]);
      return;
    }
  }
  for (int i = XAB_ID_PEEK - 1; i >= 0; i--) pvm_freebuf(ids[i]);
}

/* The entry, from the receive buffer: 0 when it names an abmon, -1 when
 * not, -2 when abmon speaks another version of the wire format. */
static int unpack_entry(struct abmon_entry *e) {
  int v[6] = {0};
  if (pvm_upkint(v, 6, 1) >= 0 && v[0] == XAB_WIRE_VERSION && v[1] > 0) {
    e->tid = v[1], e->ctx = v[2], e->tag = v[3], e->batch = v[4], e->flush_ms = v[5];
    if (pvm_upkint(&e->poke_ms, 1, 1) < 0) e->poke_ms = 0;
    if (pvm_upkint(&e->sock_len, 1, 1) < 0 || e->sock_len < 0 || e->sock_len > XAB_SOCKET_NAME_MAX ||
        (e->sock_len > 0 && pvm_upkbyte(e->sock_name, e->sock_len, 1) < 0))
      e->sock_len = 0;
    if (pvm_upkint(&e->control, 1, 1) < 0) e->control = 0; /* an abmon without control mode */
    return 0;
  }
  if (v[0] != XAB_WIRE_VERSION) {
    fprintf(stderr, "xab: abmon speaks event format %d, this program's libab %d: not monitored\n", v[0],
            XAB_WIRE_VERSION);
    return -2;
  }
  return -1;
}

/* Read the mailbox entry `name`: unpack_entry's result, -1 when there is none. */
static int read_mailbox(const char *name, struct abmon_entry *e) {
  int user_rbuf = pvm_setrbuf(0);
  int mid = pvm_recvinfo((char *)name, 0, PvmMboxDefault);
  int ok = -1;
  if (mid > 0) {
    pvm_setrbuf(mid);
    ok = unpack_entry(e);
    pvm_freebuf(mid);
  }
  /* A lookup that finds nothing leaves pvmd's reply as the receive buffer:
   * free it, or its id would be missing from the program's ids. */
  int left = pvm_setrbuf(user_rbuf);
  if (left > 0 && left != mid) pvm_freebuf(left);
  return ok;
}

/* The task's tid and parent, and abmon's entry: read_mailbox's result. */
static int look_up_abmon(struct abmon_entry *e, int *parent, int *abmon_tid) {
  xab_st.flushing = 1; /* our own PVM calls below must not re-enter */
  int autoerr = pvm_setopt(PvmAutoErr, 0);
  pvm_probe(-1, -1);
  xab_st.mytid = pvm_mytid();
  *parent = xab_st.mytid > 0 ? pvm_parent() : 0;
  int ids[XAB_ID_PEEK];
  if (xab_st.mytid > 0) xab_peek_free_ids(ids);
  int found = xab_st.mytid > 0 ? read_mailbox(XAB_MBOX_NAME, e) : -1;
  *abmon_tid = found == 0 ? e->tid : 0;
  /* Not on abmon's host: its host's relay, if it has one, collects instead
   * (one lookup more, only on the other hosts). */
  if (found == 0 && pvm_tidtohost(e->tid) != pvm_tidtohost(xab_st.mytid)) {
    char relay_name[64];
    snprintf(relay_name, sizeof relay_name, XAB_RELAY_MBOX_PREFIX "%x", (unsigned)pvm_tidtohost(xab_st.mytid));
    struct abmon_entry relay = *e;
    if (read_mailbox(relay_name, &relay) == 0) *e = relay;
  }
  if (xab_st.mytid > 0) xab_restore_free_ids(ids);
  pvm_setopt(PvmAutoErr, autoerr);
  xab_st.flushing = 0;
  return found;
}

/* The identity record: program, host, parent, language, pid. */
static void put_identity(int parent) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  int a[6] = {xab_str(program_invocation_short_name), xab_str(host), parent, xab_st.lang, (int)getpid(), 0};
  xab_put_first(XAB_EV_INFO, a);
}

/* Traced by PVM as well (abrun: pvmd gives every task the tracer's
 * settings): libab's records say more and cost less, so the task's own PVM
 * trace events are turned off by emptying its own mask.  Its children's
 * mask is left as it is: an unmodified child is still traced.  (Setting
 * PvmSelfTraceTid to 0 instead would clear the children's tracer too:
 * libpvm's pvm_setopt copies it to them.)  abmon has seen this task look
 * up its mailbox entry by then: it drops the PVM events it got before.
 * XAB_PVM_TRACE=keep leaves PVM's tracing on (to measure what this saves). */
static void untrace_self(int abmon_tid) {
  /* Only abmon's tracing: another tracer (XPVM) still sees the task. */
  if (abmon_tid <= 0 || pvm_getopt(PvmSelfTraceTid) != abmon_tid) return;
  const char *keep = getenv("XAB_PVM_TRACE");
  if (keep && strcmp(keep, "keep") == 0) return; /* docs/libab.md: for measuring what it saves */
  Pvmtmask none;
  TEV_MASK_INIT(none);
  pvm_settmask(PvmTaskSelf, none);
}

/* XAB_FILTER (xab/filter.h): the families this task omits from the start. */
static void filter_from_env(void) {
  const char *v = getenv(XAB_FILTER_ENV);
  unsigned omit = 0;
  if (!v || !*v) return;
  if (xab_filter_parse(v, &omit) != 0) {
    fprintf(stderr, "xab: " XAB_FILTER_ENV "=%s: not a list of pack, clock or none; nothing filtered\n", v);
    return;
  }
  if (omit) xab_filter_set(omit);
}

static void start_monitoring(const struct abmon_entry *e, int parent, int abmon_tid) {
  untrace_self(abmon_tid);
  xab_st.abmon_tid = e->tid;
  xab_st.monitor_tid = abmon_tid;
  xab_st.ctx = e->ctx;
  xab_st.tag = e->tag;
  xab_st.batch = env_int("XAB_BATCH", e->batch);
  xab_st.flush_ns = (int64_t)env_int("XAB_FLUSH_MS", e->flush_ms) * 1000000;
  if (xab_st.batch < 1) xab_st.batch = 1;
  if (xab_st.batch > XAB_MAX_BATCH) xab_st.batch = XAB_MAX_BATCH;
  xab_st.immediate = xab_st.batch == 1;
  xab_st.mode = XAB_MODE_ACTIVE;
  /* The local socket only reaches an abmon on this host. */
  if (pvm_tidtohost(e->tid) == pvm_tidtohost(xab_st.mytid)) xab_socket_connect(e->sock_name, e->sock_len);
  xab_st.step_on = e->control == 1 && xab_st.have_sock; /* answers come on the socket only */
  /* Immediate mode sends at once; a task without a key could not tell
   * abmon's pokes from forged ones, and sends before it blocks instead. */
  xab_st.pokes_wanted = !xab_st.immediate && e->poke_ms > 0 && xab_poke_key_new() == 0;
  xab_poke_handler_on();
  put_identity(parent);
  filter_from_env();
  xab_watch_the_end();
  xab_flush_now(0);
}

void xab_attach(void) {
  if (xab_st.mode != XAB_MODE_UNATTACHED || xab_st.flushing) return;
  struct abmon_entry e = {.tag = XAB_DEFAULT_TAG, .batch = XAB_DEFAULT_BATCH, .flush_ms = XAB_DEFAULT_FLUSH_MS};
  int parent = 0, abmon_tid = 0;
  int found = look_up_abmon(&e, &parent, &abmon_tid);
  if (found != 0) {
    /* no pvmd: PVM reports that itself; record and replay need no abmon */
    if (found == -1 && xab_st.mytid > 0 && !xab_rr_on())
      fprintf(stderr, "xab: abmon is not running in this virtual machine; t%x runs unmonitored\n",
              (unsigned)xab_st.mytid);
    xab_st.mode = XAB_MODE_OFF;
    xab_st.n = 0;
    return;
  }
  start_monitoring(&e, parent, abmon_tid);
}

int xab_enrol_as_pvm(void) {
  if (pvmmytid == -1 && pvmtoplvl) {
    pvmtoplvl = 0;
    pvmbeatask();
    pvmtoplvl = 1;
  }
  return pvmmytid != -1;
}

void xab_detach(void) {
  if (xab_st.mode != XAB_MODE_ACTIVE && xab_st.mode != XAB_MODE_UNATTACHED) return;
  xab_socket_close();
  xab_st.step_on = 0;
  xab_st.mode = XAB_MODE_UNATTACHED;
  xab_st.mhid = -1; /* pvm_exit deleted it */
  xab_st.monitor_tid = 0;
  xab_st.final_seq = -1;
  xab_st.n = 0;
  xab_st.seq = 0;
  xab_st.lost = 0;
  xab_st.send_failures = 0;
  xab_st.serial = 0;
  xab_st.clock_started = 0; /* a new task: new start exchanges */
  xab_st.clock_unanswered = 0;
  xab_cost_forget();
  xab_strings_forget_sent(); /* the next task's abmon knows none of them */
}
