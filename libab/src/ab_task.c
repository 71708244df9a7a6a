/*
 * ab_task.c -- task control, the virtual machine, mailbox, contexts and the
 * rest of pvm3.h.  Almost all one line each: see XAB_SIMPLE in ab_hot.h.
 */
#include "ab_core.h"
#include "ab_rr.h"

#include <string.h>

/* ---------------------------------------------------------------- tasks */

int xab_mytid(void) {
  int64_t t = xab_clock();
  xab_enter();
  int rc = pvm_mytid();
  xab_leave();
  xab_enrolled(rc > 0); /* before the record, so the identity leads it */
  xab_rec(XAB_EV_MYTID, XAB_PHASE_END, t, rc, XAB_A(0));
  return rc;
}

int xab_parent(void) {
  int64_t t = xab_clock();
  xab_enter();
  int rc = pvm_parent();
  xab_leave();
  xab_enrolled(rc != PvmSysErr);
  xab_rec(XAB_EV_PARENT, XAB_PHASE_END, t, rc, XAB_A(0));
  return rc;
}

int xab_spawn(char *file, char **argv, int flags, char *where, int count, int *tids) {
  xab_step(XAB_EV_SPAWN, 0, 0);
  int f = xab_str(file);
  xab_rec(XAB_EV_SPAWN, XAB_PHASE_BEGIN, xab_clock(), 0, XAB_A(f, xab_str(where), flags, count));
  xab_block_begin();
  /* The parent's records go first, so abmon hears of a parent before its
   * children (instance numbers follow), and spawn is slow anyway. */
  xab_flush_now(0);
  xab_enter();
  int rc = xab_rr_on() ? xab_rr_spawn(file, argv, flags, where, count, tids)
                       : pvm_spawn(file, argv, flags, where, count, tids);
  xab_leave();
  xab_block_end();
  xab_enrolled(rc >= 0);
  xab_rec_list(XAB_EV_SPAWN, xab_clock(), rc, XAB_A(f, count, rc > 0 ? rc : 0), 2, tids, rc > 0 ? rc : 0);
  return rc;
}

int xab_kill(int tid) {
  if (tid == xab_st.mytid) xab_flush_now(1); /* killing ourselves: nothing may be left */
  XAB_SIMPLE(XAB_EV_KILL, pvm_kill(tid), tid);
}

/* After pvm_exit the task cannot send: record and send first.  PVM's exit
 * deletes every message handler, and says so for each free id: that is
 * said for the program's handler table (ab_mhf.c), not PVM's real one.
 * A process that enrolls again is a new task, and finds abmon again; one
 * that is not enrolled is enrolled by pvm_exit itself (a new task, then
 * exited): enrolled here first, the new task is recorded, its identity and
 * its exit.  One that cannot enrol leaves the real call nothing to do but
 * return (it is made without its own attempt, made here already). */
int xab_exit(void) {
  if (!xab_enrol_as_pvm()) {
    xab_rec(XAB_EV_EXIT, XAB_PHASE_END, xab_clock(), 0, XAB_A(0));
    int top = pvmtoplvl;
    pvmtoplvl = 0;
    int rc = pvm_exit();
    pvmtoplvl = top;
    xab_term_check();
    return rc;
  }
  xab_enrolled(1);
  xab_rec(XAB_EV_EXIT, XAB_PHASE_END, xab_clock(), 0, XAB_A(0));
  xab_cost_calibrate_due(); /* a task whose records all go in this message has not yet */
  xab_clock_sync(XAB_CLOCK_END);
  xab_flush_now(1);
  int was = xab_st.mode;
  if (xab_st.mode == XAB_MODE_ACTIVE) xab_st.mode = XAB_MODE_OFF;
  xab_mhf_exit_begin();
  int err = pvm_errno;
  xab_enter();
  int autoerr = pvm_setopt(PvmAutoErr, 0);
  int rc = pvm_exit();
  pvm_setopt(PvmAutoErr, autoerr);
  xab_leave();
  xab_mhf_exit_end();
  if (rc < 0)
    lpvmerr("pvm_exit", rc);
  else
    pvm_errno = err;
  if (was != XAB_MODE_OFF && pvmmytid == -1) {
    xab_st.mode = was;
    xab_detach();
  }
  xab_term_check(); /* no record follows: act on a SIGTERM that came meanwhile */
  return rc;
}

int xab_halt(void) {
  xab_rec(XAB_EV_HALT, XAB_PHASE_END, xab_clock(), 0, XAB_A(0));
  xab_flush_now(1);
  xab_enter();
  int rc = pvm_halt();
  xab_leave();
  xab_term_check();
  return rc;
}

int xab_notify(int what, int tag, int n, int *tids) {
  int64_t t = xab_clock();
  xab_enter();
  int rc = pvm_notify(what, tag, n, tids);
  xab_leave();
  int listed = (what == PvmTaskExit || what == PvmHostDelete) && n > 0 ? n : 0;
  xab_rec_list(XAB_EV_NOTIFY, t, rc, XAB_A(what, tag, listed), 2, tids, listed);
  return rc;
}

int xab_addhosts(char **names, int n, int *infos) {
  XAB_BLOCKING(XAB_EV_ADDHOSTS, pvm_addhosts(names, n, infos), n);
}
int xab_delhosts(char **names, int n, int *infos) { XAB_SIMPLE(XAB_EV_DELHOSTS, pvm_delhosts(names, n, infos), n); }

int xab_config(int *nhost, int *narch, struct pvmhostinfo **hosts) {
  int64_t t = xab_clock();
  int nh = 0, na = 0;
  xab_enter();
  int rc = pvm_config(&nh, &na, hosts);
  xab_leave();
  if (rc >= 0) {
    if (nhost) *nhost = nh;
    if (narch) *narch = na;
  }
  if (xab_rr_on()) xab_rr_config(rc, nh, na);
  xab_rec(XAB_EV_CONFIG, XAB_PHASE_END, t, rc, XAB_A(nh, na));
  return rc;
}

/* A list PVM owns (it frees it at the next call) with entries of xab's:
 * they move to the end, past the count the program is told, the others
 * keep their order.  n elements of size bytes; returns the count kept. */
static int leave_out_xabs(void *list, int n, size_t size, int (*is_xabs)(const void *)) {
  unsigned char *at = list, ours[size];
  int kept = n;
  for (int i = 0; i < kept;) {
    if (!is_xabs(at + (size_t)i * size)) {
      i++;
      continue;
    }
    memcpy(ours, at + (size_t)i * size, size);
    memmove(at + (size_t)i * size, at + (size_t)(i + 1) * size, (size_t)(n - i - 1) * size);
    memcpy(at + (size_t)(n - 1) * size, ours, size);
    kept--;
  }
  return kept;
}

/* abmon and its relays (the tasks abmon spawned) are xab's, not the
 * program's. */
static int is_xab_task(const void *task) {
  const struct pvmtaskinfo *t = task;
  return xab_st.monitor_tid > 0 && (t->ti_tid == xab_st.monitor_tid || t->ti_ptid == xab_st.monitor_tid);
}

int xab_tasks(int where, int *ntask, struct pvmtaskinfo **tasks) {
  int64_t t = xab_clock();
  int nt = 0;
  struct pvmtaskinfo *list = NULL;
  xab_enter();
  int rc = pvm_tasks(where, &nt, &list);
  xab_leave();
  xab_enrolled(rc >= 0); /* abmon found: its tid known */
  if (rc >= 0) {
    nt = leave_out_xabs(list, nt, sizeof list[0], is_xab_task);
    if (tasks) *tasks = list;
  }
  if (rc >= 0 && ntask) *ntask = nt;
  if (xab_rr_on()) xab_rr_tasks(rc, where, nt, rc >= 0 ? list : NULL);
  xab_rec(XAB_EV_TASKS, XAB_PHASE_END, t, rc, XAB_A(where, nt));
  return rc;
}

int xab_pstat(int tid) { XAB_SIMPLE(XAB_EV_PSTAT, pvm_pstat(tid), tid); }
int xab_mstat(char *host) { XAB_SIMPLE(XAB_EV_MSTAT, pvm_mstat(host), xab_str(host)); }
int xab_sendsig(int tid, int sig) {
  if (tid == xab_st.mytid) xab_flush_now(1);
  XAB_SIMPLE(XAB_EV_SENDSIG, pvm_sendsig(tid, sig), tid, sig);
}
int xab_siblings(int **tids) { XAB_SIMPLE(XAB_EV_SIBLINGS, pvm_siblings(tids), 0); }
int xab_tidtohost(int tid) { XAB_SIMPLE(XAB_EV_TIDTOHOST, pvm_tidtohost(tid), tid); }
int xab_archcode(char *arch) { XAB_SIMPLE(XAB_EV_ARCHCODE, pvm_archcode(arch), xab_str(arch)); }
int xab_getopt(int what) { XAB_SIMPLE(XAB_EV_GETOPT, pvm_getopt(what), what); }
int xab_setopt(int what, int val) { XAB_SIMPLE(XAB_EV_SETOPT, pvm_setopt(what, val), what, val); }
int xab_getfds(int **fds) { XAB_SIMPLE(XAB_EV_GETFDS, pvm_getfds(fds), 0); }
/* pvm_catchout adds handlers of PVM's own: the program's table has them too. */
int xab_catchout(FILE *f) {
  int64_t t = xab_clock();
  xab_mhf_pvm_begin();
  xab_enter();
  int rc = pvm_catchout(f);
  xab_leave();
  xab_mhf_pvm_end();
  xab_rec(XAB_EV_CATCHOUT, XAB_PHASE_END, t, rc, XAB_A(0));
  return rc;
}
int xab_perror(char *msg) { XAB_SIMPLE(XAB_EV_PERROR, pvm_perror(msg), xab_str(msg)); }
int xab_hostsync(int host, struct timeval *clk, struct timeval *delta) {
  XAB_SIMPLE(XAB_EV_HOSTSYNC, pvm_hostsync(host, clk, delta), host);
}
int xab_tickle(int narg, int *argp, int *nres, int *resp) {
  XAB_SIMPLE(XAB_EV_TICKLE, pvm_tickle(narg, argp, nres, resp), narg);
}
int xab_getnoresets(int **tids, int *ntids) {
  XAB_SIMPLE(XAB_EV_GETNORESETS, pvm_getnoresets(tids, ntids), ntids ? *ntids : 0);
}
int xab_start_pvmd(int argc, char **argv, int block) {
  XAB_BLOCKING(XAB_EV_START_PVMD, pvm_start_pvmd(argc, argv, block), 0);
}
int xab_export(char *name) { XAB_SIMPLE(XAB_EV_EXPORT, pvm_export(name), xab_str(name)); }
int xab_unexport(char *name) { XAB_SIMPLE(XAB_EV_UNEXPORT, pvm_unexport(name), xab_str(name)); }

char *xab_version(void) {
  xab_rec(XAB_EV_VERSION, XAB_PHASE_END, xab_clock(), 0, XAB_A(0));
  return pvm_version();
}

/* ---------------------------------------------------------------- mailbox */

int xab_putinfo(char *name, int mid, int flags) {
  XAB_SIMPLE(XAB_EV_PUTINFO, pvm_putinfo(name, mid, flags), xab_str(name), mid, flags);
}
/* abmon's mailbox entry, and its relays' (xab.relay.<host>), are libab's,
 * not the program's: a listing leaves them out, and asking for one by name
 * gets what it would without abmon (PVM's own "not found", from a name
 * nobody uses: same pvmd round trip, same receive buffer freed, same
 * pvm_errno). */
static int is_xab_entry(const char *name) {
  return name && (strcmp(name, XAB_MBOX_NAME) == 0 ||
                  strncmp(name, XAB_RELAY_MBOX_PREFIX, sizeof XAB_RELAY_MBOX_PREFIX - 1) == 0);
}

static char *hide_abmon_entry(char *name) {
  static char nobody[] = XAB_MBOX_NAME ".not-the-program's";
  return is_xab_entry(name) ? nobody : name;
}

int xab_recvinfo(char *name, int index, int flags) {
  XAB_SIMPLE(XAB_EV_RECVINFO, pvm_recvinfo(hide_abmon_entry(name), index, flags), xab_str(name), index, flags);
}
int xab_delinfo(char *name, int index, int flags) {
  XAB_SIMPLE(XAB_EV_DELINFO, pvm_delinfo(hide_abmon_entry(name), index, flags), xab_str(name), index, flags);
}

/* A class of the mailbox listing that is abmon's or a relay's. */
static int is_xab_class(const void *class) { return is_xab_entry(((const struct pvmmboxinfo *)class)->mi_name); }

int xab_getmboxinfo(char *pattern, int *n, struct pvmmboxinfo **classes) {
  int64_t t = xab_clock();
  int got = 0;
  struct pvmmboxinfo *list = NULL;
  xab_enter();
  int rc = pvm_getmboxinfo(pattern, &got, &list);
  xab_leave();
  if (rc >= 0) {
    got = leave_out_xabs(list, got, sizeof list[0], is_xab_class);
    if (n) *n = got;
    if (classes) *classes = list;
  }
  xab_rec(XAB_EV_GETMBOXINFO, XAB_PHASE_END, t, rc, XAB_A(xab_str(pattern), got));
  return rc;
}
int xab_insert(char *name, int req, int data) { XAB_SIMPLE(XAB_EV_INSERT, pvm_insert(name, req, data), xab_str(name), req); }
int xab_lookup(char *name, int req, int *data) { XAB_SIMPLE(XAB_EV_LOOKUP, pvm_lookup(name, req, data), xab_str(name), req); }
int xab_delete(char *name, int req) { XAB_SIMPLE(XAB_EV_DELETE, pvm_delete(name, req), xab_str(name), req); }

/* ---------------------------------------------------------------- contexts and the rest */

int xab_newcontext(void) { XAB_SIMPLE(XAB_EV_NEWCONTEXT, pvm_newcontext(), 0); }
int xab_setcontext(int ctx) { XAB_SIMPLE(XAB_EV_SETCONTEXT, pvm_setcontext(ctx), ctx); }
int xab_freecontext(int ctx) { XAB_SIMPLE(XAB_EV_FREECONTEXT, pvm_freecontext(ctx), ctx); }
int xab_getcontext(void) { XAB_SIMPLE(XAB_EV_GETCONTEXT, pvm_getcontext(), 0); }
/* Message handlers: the program sees PVM's table as without libab (ab_mhf.c). */
int xab_addmhf(int src, int tag, int ctx, int (*fn)(int)) {
  XAB_SIMPLE(XAB_EV_ADDMHF, xab_mhf_add(src, tag, ctx, fn), src, tag, ctx);
}
int xab_delmhf(int mhid) { XAB_SIMPLE(XAB_EV_DELMHF, xab_mhf_del(mhid), mhid); }
int xab_reg_hoster(void) { XAB_SIMPLE(XAB_EV_REG_HOSTER, pvm_reg_hoster(), 0); }
int xab_reg_rm(struct pvmhostinfo **host) { XAB_SIMPLE(XAB_EV_REG_RM, pvm_reg_rm(host), 0); }
int xab_reg_tasker(void) { XAB_SIMPLE(XAB_EV_REG_TASKER, pvm_reg_tasker(), 0); }
int xab_reg_tracer(int tctx, int ttag, int octx, int otag, char *tmask, int tbuf, int topt) {
  XAB_SIMPLE(XAB_EV_REG_TRACER, pvm_reg_tracer(tctx, ttag, octx, otag, tmask, tbuf, topt), tctx, ttag);
}

xab_match_fn xab_recvf(xab_match_fn fn) {
  xab_rec(XAB_EV_RECVF, XAB_PHASE_END, xab_clock(), 0, XAB_A(0));
  /* pvm3.h declares the returned pointer with the wrong type; go via void(*)(void). */
  return (xab_match_fn)(void (*)(void))pvm_recvf(fn);
}

/* ---------------------------------------------------------------- xab's own */

void xab_mark(const char *text) { xab_rec(XAB_EV_MARK, XAB_PHASE_END, xab_clock(), 0, XAB_A(xab_str(text))); }
void xab_set_lang(int lang) { xab_st.lang = lang; }
