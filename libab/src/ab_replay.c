/*
 * ab_replay.c -- replay mode: every receive-like call gets the outcome the
 * record run's call got (docs/replay.md).
 *
 * abreplay turns a record into a plan: one text file per task, named by the
 * task's spawn path ("1" the command, "1.2" its second child, ...), listing
 * each recorded call by its number (seq) with the message it got, named by
 * its sender's path and serial.  The command gets its path from abreplay
 * (XAB_REPLAY_PATH); libab gives each child its own when it spawns it, one
 * child per pvm_spawn, each with XAB_REPLAY_PATH in its environment.
 *
 * Forcing a receive: PVM's own receive, with a matching function
 * (pvm_recvf) that accepts only the recorded message (its sender's tid in
 * this run, its serial) on top of the program's own match: the call waits
 * for exactly that message and leaves the others queued.  A call that
 * found nothing finds nothing (a match that accepts nothing); a timed-out
 * pvm_trecv times out again; a call still pending when the record ended
 * (a hang) blocks for ever again.
 *
 * Departing: a call the record does not have there, or a message that does
 * not come within XAB_REPLAY_TIMEOUT seconds.  libab says where and why (on
 * stderr, in the plan directory's `departures` file, and as a
 * `replay.depart` record), stops forcing, and either goes on or, with
 * XAB_REPLAY_DEPART=stop, kills the tasks it knows (parent, children) and
 * exits with status 3.
 */
#define _GNU_SOURCE
#include "ab_core.h"
#include "ab_rr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct xab_rr_state xab_rr;

#define XAB_PATH_MAX 128
#define XAB_MAX_CHILDREN 4096

/* One recorded call of the plan. */
struct plan_call {
  uint32_t seq;
  int kind, outcome;
  int arg_src, arg_tag;
  char sender[XAB_PATH_MAX]; /* a path, "pvmd", or "-" (no serial: not instrumented) */
  int serial, tag, rc;
};

static struct {
  const char *dir;
  char path[XAB_PATH_MAX];
  int forcing;                 /* 0 once departed */
  int stop_on_departure;
  int timeout_s;
  int loaded;
  char name[64], build_id[72];
  uint32_t last_seq;
  int exited;
  struct plan_call *calls;
  int ncalls, next;
  int plan_version;            /* 2: results, handlers and hosts are recorded */
  struct plan_call *extra;     /* not numbered calls (results, handlers, hosts), in record order */
  int nextra, next_result, next_handler;
  int children[XAB_MAX_CHILDREN];
  int nchildren;
} rp;

/* ---------------------------------------------------------------- setup */

static int env_flag(const char *name) {
  const char *v = getenv(name);
  return v && *v;
}

/* Spawned tasks get only what PVM_EXPORT names: a recording task's
 * children must record too. */
static void export_var(const char *var) {
  const char *ex = getenv("PVM_EXPORT");
  if (ex) {
    size_t n = strlen(var);
    for (const char *p = ex; (p = strstr(p, var)); p += n)
      if ((p == ex || p[-1] == ':') && (p[n] == 0 || p[n] == ':')) return;
  }
  char buf[4096];
  snprintf(buf, sizeof buf, "%s%s%s", ex && *ex ? ex : "", ex && *ex ? ":" : "", var);
  setenv("PVM_EXPORT", buf, 1);
}

void xab_rr_init(void) {
  xab_rr.init = 1;
  xab_rr.record = env_flag("XAB_RECORD");
  xab_rr.replay = env_flag("XAB_REPLAY");
  if (xab_rr.record) export_var("XAB_RECORD");
  if (xab_rr.replay) xab_replay_init();
}

void xab_replay_init(void) {
  rp.dir = getenv("XAB_REPLAY");
  const char *path = getenv("XAB_REPLAY_PATH");
  snprintf(rp.path, sizeof rp.path, "%s", path && *path ? path : "1");
  const char *t = getenv("XAB_REPLAY_TIMEOUT");
  rp.timeout_s = t && atoi(t) > 0 ? atoi(t) : 10;
  const char *d = getenv("XAB_REPLAY_DEPART");
  rp.stop_on_departure = !d || strcmp(d, "go-on") != 0;
  rp.forcing = 1;
  for (const char *v = "XAB_REPLAY\0XAB_REPLAY_PATH\0XAB_REPLAY_TIMEOUT\0XAB_REPLAY_DEPART\0"; *v; v += strlen(v) + 1)
    export_var(v);
}

/* ---------------------------------------------------------------- departing */

static const char *call_name(int kind) {
  switch (kind) {
  case XAB_EV_RECV: return "pvm_recv";
  case XAB_EV_TRECV: return "pvm_trecv";
  case XAB_EV_NRECV: return "pvm_nrecv";
  case XAB_EV_PROBE: return "pvm_probe";
  case XAB_EV_PRECV: return "pvm_precv";
  case XAB_EV_SPAWN: return "pvm_spawn";
  case XAB_EV_CONFIG: return "pvm_config";
  case XAB_EV_TASKS: return "pvm_tasks";
  case XAB_EV_HANDLER: return "pvm_addmhf handler";
  default: return "?";
  }
}

static int kind_of(const char *name) {
  static const int kinds[] = {XAB_EV_RECV,  XAB_EV_TRECV,  XAB_EV_NRECV, XAB_EV_PROBE,
                              XAB_EV_PRECV, XAB_EV_SPAWN,  XAB_EV_CONFIG, XAB_EV_TASKS};
  if (strcmp(name, "handler") == 0) return XAB_EV_HANDLER;
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strcmp(call_name(kinds[i]) + 4, name) == 0) return kinds[i];
  return -1;
}

static void stop_the_run(void) {
  if (xab_st.mode == XAB_MODE_ACTIVE) xab_flush_now(1); /* the departure reaches abmon */
  int autoerr = pvm_setopt(PvmAutoErr, 0);
  for (int i = 0; i < rp.nchildren; i++) pvm_kill(rp.children[i]);
  int parent = pvm_parent();
  if (parent > 0) pvm_kill(parent);
  pvm_setopt(PvmAutoErr, autoerr);
  exit(3);
}

/* The program departs from the record at call seq: say where and why. */
static void depart(uint32_t seq, int kind, int tid, int tag, const char *why) {
  char line[1024];
  snprintf(line, sizeof line, "xab replay: task %s (%s t%x), call %u %s(%d, %d): %s", rp.path,
           program_invocation_short_name, (unsigned)pvmmytid, seq, call_name(kind), tid, tag, why);
  fprintf(stderr, "%s; %s\n", line, rp.stop_on_departure ? "stopping the run" : "going on unforced");
  char file[4096];
  snprintf(file, sizeof file, "%s/departures", rp.dir);
  FILE *f = fopen(file, "a");
  if (f) {
    fprintf(f, "%s\n", line);
    fclose(f);
  }
  xab_rec(XAB_EV_REPLAY_DEPART, XAB_PHASE_END, xab_clock(), 0,
          XAB_A((int)seq, xab_str(call_name(kind)), tid, tag, xab_str(why)));
  rp.forcing = 0;
  if (rp.stop_on_departure) stop_the_run();
}

/* ---------------------------------------------------------------- the plan */

static int parse_header(FILE *f) {
  char line[512];
  if (!fgets(line, sizeof line, f) || sscanf(line, "xab-plan %d", &rp.plan_version) != 1 || rp.plan_version < 1 ||
      rp.plan_version > 2)
    return -1;
  unsigned last = 0;
  if (!fgets(line, sizeof line, f) ||
      sscanf(line, "task %*s %63s %71s %u %d", rp.name, rp.build_id, &last, &rp.exited) != 4)
    return -1;
  rp.last_seq = last;
  return 0;
}

static int parse_call(const char *line, struct plan_call *c) {
  char kind[16], out[16];
  if (sscanf(line, "%u %15s %15s %d %d %127s %d %d %d", &c->seq, kind, out, &c->arg_src, &c->arg_tag, c->sender,
             &c->serial, &c->tag, &c->rc) != 9)
    return -1;
  /* By XAB_REC_* value; "host": a spawned task's host name (XAB_REC_HOSTS and _HOSTNAME in one line). */
  static const char *outcomes[] = {"pending", "got", "none", "timeout", "error", "spawn", "", "", "host", "result", "taken"};
  c->kind = kind_of(kind);
  c->outcome = -1;
  for (int i = 0; i < (int)(sizeof outcomes / sizeof outcomes[0]); i++)
    if (outcomes[i][0] && strcmp(out, outcomes[i]) == 0) c->outcome = i;
  return c->kind < 0 || c->outcome < 0 ? -1 : 0;
}

static const char *load_plan(void) {
  char file[4096], line[512];
  snprintf(file, sizeof file, "%s/%s.plan", rp.dir, rp.path);
  FILE *f = fopen(file, "r");
  if (!f) return "the record has no such task (more tasks than recorded?)";
  const char *err = NULL;
  if (parse_header(f) < 0) err = "its plan is unreadable";
  int cap = 0;
  while (!err && fgets(line, sizeof line, f)) {
    if (rp.ncalls == cap) {
      cap = cap ? 2 * cap : 64;
      struct plan_call *more = realloc(rp.calls, (size_t)cap * sizeof *more);
      if (!more) { err = "out of memory"; break; }
      rp.calls = more;
    }
    if (parse_call(line, &rp.calls[rp.ncalls]) < 0) err = "its plan is unreadable";
    else rp.ncalls++;
  }
  fclose(f);
  /* Numbered calls stay in calls (planned() walks them by seq); the rest go to extra. */
  rp.extra = malloc((size_t)(rp.ncalls ? rp.ncalls : 1) * sizeof *rp.extra);
  int kept = 0;
  for (int i = 0; !err && i < rp.ncalls; i++) {
    if (rp.calls[i].outcome >= XAB_REC_HOSTNAME && rp.extra) rp.extra[rp.nextra++] = rp.calls[i];
    else rp.calls[kept++] = rp.calls[i];
  }
  rp.ncalls = kept;
  return err;
}

/* The binary must be the one recorded. */
static const char *check_identity(void) {
  static char why[256];
  if (strcmp(rp.name, program_invocation_short_name) != 0) {
    snprintf(why, sizeof why, "the record's task %s is %s, not %s", rp.path, rp.name, program_invocation_short_name);
    return why;
  }
  char mine[72] = "";
  xab_record_identity(mine, sizeof mine);
  /* "-": a record made from a trace, which names the program but not its build. */
  if (strcmp(rp.build_id, "-") != 0 && strcmp(rp.build_id, mine) != 0) {
    snprintf(why, sizeof why, "%s is another binary than the one recorded (build id %s, recorded %s)",
             program_invocation_short_name, mine, rp.build_id);
    return why;
  }
  return NULL;
}

/* At the task's first receive-like call or spawn. */
static void ensure_plan(uint32_t seq, int kind, int tid, int tag) {
  if (rp.loaded) return;
  rp.loaded = 1;
  xab_replay_publish();
  xab_rec(XAB_EV_REPLAY_TASK, XAB_PHASE_END, xab_clock(), 0, XAB_A(xab_str(rp.path)));
  const char *err = load_plan();
  if (!err) err = check_identity();
  if (err) depart(seq, kind, tid, tag, err);
}

/* ---------------------------------------------------------------- the run's directory of tasks */

/* Any task's tid, for a message from a task that is not the receiver's
 * parent or child: every replaying task publishes its path and tid in
 * PVM's mailbox, under a name of this run (the plan directory is
 * abreplay's, one per run), persistent so that it outlives the task. */
static void entry_name(char *out, size_t len, const char *path) {
  const char *run = strrchr(rp.dir, '/');
  snprintf(out, len, "xab.replay.%s.%s", run ? run + 1 : rp.dir, path);
}

/* Around libab's own mailbox calls: no error printed, the program's
 * buffers and next buffer ids as they were. */
struct quiet { int autoerr, sbuf, rbuf, ids[XAB_ID_PEEK]; };
static void quiet_begin(struct quiet *q) {
  q->autoerr = pvm_setopt(PvmAutoErr, 0);
  q->sbuf = pvm_setsbuf(0);
  q->rbuf = pvm_setrbuf(0);
  xab_peek_free_ids(q->ids);
}
static void quiet_end(struct quiet *q) {
  int left = pvm_setrbuf(q->rbuf);
  if (left > 0 && left != q->rbuf) pvm_freebuf(left);
  pvm_setsbuf(q->sbuf);
  xab_restore_free_ids(q->ids);
  pvm_setopt(PvmAutoErr, q->autoerr);
}

void xab_replay_publish(void) {
  static int done;
  if (done || !xab_rr.replay || xab_st.flushing) return;
  done = 1;
  struct quiet q;
  quiet_begin(&q);
  int me = pvm_mytid();
  char name[256];
  entry_name(name, sizeof name, rp.path);
  int mid = pvm_mkbuf(PvmDataDefault);
  pvm_setsbuf(mid);
  pvm_pkint(&me, 1, 1);
  pvm_putinfo(name, mid, PvmMboxPersistent);
  pvm_setsbuf(0);
  pvm_freebuf(mid);
  quiet_end(&q);
  char file[4096];
  snprintf(file, sizeof file, "%s/replayed", rp.dir); /* abreplay checks that every task came */
  FILE *f = fopen(file, "a");
  if (f) {
    fprintf(f, "%s\n", rp.path);
    fclose(f);
  }
}

static int read_entry(const char *name) {
  struct quiet q;
  quiet_begin(&q);
  int tid = 0, mid = pvm_recvinfo((char *)name, 0, PvmMboxDefault);
  if (mid > 0) {
    pvm_setrbuf(mid);
    pvm_upkint(&tid, 1, 1);
    pvm_freebuf(mid);
  }
  quiet_end(&q);
  return tid;
}

static int match_nothing(int mid, int tid, int tag);
typedef int (*match_fn)(int, int, int);
static match_fn use_match(match_fn fn);

/* The tid of the task with this path, from the mailbox: waits (taking no
 * message) until the task has published it, up to the replay timeout. */
static int tid_from_directory(const char *path) {
  static struct { char path[XAB_PATH_MAX]; int tid; } known[64];
  static int nknown;
  for (int i = 0; i < nknown; i++)
    if (strcmp(known[i].path, path) == 0) return known[i].tid;
  char name[256];
  entry_name(name, sizeof name, path);
  int64_t end = xab_clock() + (int64_t)rp.timeout_s * 1000000000;
  int tid;
  while ((tid = read_entry(name)) <= 0 && xab_clock() < end) {
    struct timeval tick = {0, 10000};
    match_fn old = use_match(match_nothing);
    pvm_trecv(-1, -1, &tick);
    use_match(old);
  }
  if (tid > 0 && nknown < 64) {
    snprintf(known[nknown].path, sizeof known[nknown].path, "%s", path);
    known[nknown++].tid = tid;
  }
  return tid;
}

/* ---------------------------------------------------------------- whom to wait for */

/* The tid, in this run, of the task with this path: the task itself, its
 * parent or one of its children, or any other from the directory; 0 if it
 * never appears. */
static int known_tid_of(const char *path);
static int tid_of(const char *path) {
  int tid = known_tid_of(path);
  return tid != 0 ? tid : tid_from_directory(path);
}

/* Without the directory (no message taken: a handler may ask): the task
 * itself, its parent, its children; 0 for any other. */
static int known_tid_of(const char *path) {
  size_t mine = strlen(rp.path);
  if (strcmp(path, rp.path) == 0) return pvmmytid;
  const char *dot = strrchr(rp.path, '.');
  if (dot && strlen(path) == (size_t)(dot - rp.path) && strncmp(path, rp.path, (size_t)(dot - rp.path)) == 0)
    return pvm_parent();
  if (strncmp(path, rp.path, mine) == 0 && path[mine] == '.' && !strchr(path + mine + 1, '.')) {
    int k = atoi(path + mine + 1);
    return k >= 1 && k <= rp.nchildren ? rp.children[k - 1] : 0;
  }
  return 0;
}

/* What the forcing match accepts. */
static struct {
  int (*program_match)(int, int, int);
  int tid, serial, tag;
  int pvmd, other;   /* from a pvmd / from a task that stamps no serial */
} want;

static int match_recorded(int mid, int tid, int tag) {
  int ok = want.program_match(mid, tid, tag);
  if (ok <= 0) return ok;
  int src = 0, mtag = 0, serial = xab_message_serial(mid, &src, &mtag);
  if (want.pvmd) return serial == 0 && (src & 0x80000000) && mtag == want.tag ? ok : 0;
  if (want.other) return serial == 0 && !(src & 0x80000000) && mtag == want.tag ? ok : 0;
  return src == want.tid && serial == want.serial ? ok : 0;
}

static int match_nothing(int mid, int tid, int tag) {
  (void)mid, (void)tid, (void)tag;
  return 0;
}

static match_fn use_match(match_fn fn) { return (match_fn)(void (*)(void))pvm_recvf(fn); }

/* The real call, unforced. */
static int real_call(int kind, int tid, int tag, struct timeval *tmout) {
  switch (kind) {
  case XAB_EV_TRECV: return pvm_trecv(tid, tag, tmout);
  case XAB_EV_NRECV: return pvm_nrecv(tid, tag);
  case XAB_EV_PROBE: return pvm_probe(tid, tag);
  default: return pvm_recv(tid, tag);
  }
}

/* The real call with a match that accepts nothing: nothing found, a
 * timeout, or (pending: the record ended in this call) blocked for ever. */
static int call_finding_nothing(int kind, int tid, int tag, struct timeval *tmout) {
  match_fn old = use_match(match_nothing);
  int mid = real_call(kind, tid, tag, tmout);
  use_match(old);
  return mid;
}

/* Waits for the recorded message, then makes the call with a match that
 * accepts only it.  0 if it did not come in time. */
static int call_getting(int kind, int tid, int tag, struct timeval *tmout) {
  want.program_match = use_match(match_recorded);
  int mid;
  if (kind == XAB_EV_PROBE) { /* a probe must leave it queued: look until it is there */
    int64_t end = xab_clock() + (int64_t)rp.timeout_s * 1000000000;
    struct timeval tick = {0, 2000};
    while ((mid = pvm_probe(tid, tag)) == 0 && xab_clock() < end) {
      use_match(match_nothing);
      pvm_trecv(-1, -1, &tick);
      use_match(match_recorded);
    }
  } else {
    struct timeval limit = {rp.timeout_s, 0};
    mid = pvm_trecv(tid, tag, &limit);
  }
  use_match(want.program_match);
  (void)tmout;
  return mid;
}

/* ---------------------------------------------------------------- forcing a receive */

/* The plan's call for seq, or NULL; departs when the program's call is
 * not the recorded one. */
static const struct plan_call *planned(uint32_t seq, int kind, int tid, int tag) {
  while (rp.next < rp.ncalls && rp.calls[rp.next].seq < seq) rp.next++;
  const struct plan_call *c = rp.next < rp.ncalls && rp.calls[rp.next].seq == seq ? &rp.calls[rp.next] : NULL;
  char why[512];
  /* A specific source is a tid of the record run: only "one task or any" must agree. */
  /* XAB_REC_ARG_UNKNOWN (a record made from a trace): only the call's kind must agree. */
  int src_differs = kind == XAB_EV_SPAWN ? c && c->arg_src != tid
                                         : c && c->arg_src != XAB_REC_ARG_UNKNOWN && (c->arg_src == -1) != (tid == -1);
  if (c && c->kind == XAB_EV_SPAWN && kind == XAB_EV_SPAWN && src_differs) {
    snprintf(why, sizeof why, "the recorded run spawned %d task(s) here, this one %d: a record of another task count?",
             c->arg_src, tid);
    depart(seq, kind, tid, tag, why);
    return NULL;
  }
  if (c && (c->kind != kind || src_differs || (c->arg_tag != XAB_REC_ARG_UNKNOWN && c->arg_tag != tag))) {
    snprintf(why, sizeof why, "the record has %s(%d, %d) here", call_name(c->kind), c->arg_src, c->arg_tag);
    depart(seq, kind, tid, tag, why);
    return NULL;
  }
  if (!c && xab_record_wanted(kind, tid, tag)) {
    if (seq > rp.last_seq)
      snprintf(why, sizeof why, "the record ends before this call (the recorded task %s after call %u)",
               rp.exited ? "ended" : "was stopped", rp.last_seq);
    else
      snprintf(why, sizeof why, "the record has no call whose outcome depends on timing here");
    depart(seq, kind, tid, tag, why);
  }
  if (c) rp.next++;
  return c;
}

static int forced(const struct plan_call *c, uint32_t seq, int kind, int tid, int tag, struct timeval *tmout) {
  char why[512];
  switch (c->outcome) {
  case XAB_REC_PENDING:
  case XAB_REC_NONE:
  case XAB_REC_TIMEOUT:
    return call_finding_nothing(kind, tid, tag, tmout);
  case XAB_REC_GOT:
    break;
  default:
    return real_call(kind, tid, tag, tmout);
  }
  want.pvmd = strcmp(c->sender, "pvmd") == 0;
  want.other = strcmp(c->sender, "-") == 0;
  want.tid = want.pvmd || want.other ? 0 : tid_of(c->sender);
  want.serial = c->serial;
  want.tag = c->tag;
  if (!want.pvmd && !want.other && want.tid <= 0) {
    snprintf(why, sizeof why, "the recorded message's sender, task %s, did not appear within %d s", c->sender,
             rp.timeout_s);
    depart(seq, kind, tid, tag, why);
    return real_call(kind, tid, tag, tmout);
  }
  int mid = call_getting(kind, tid, tag, tmout);
  if (mid != 0) return mid;
  snprintf(why, sizeof why, "the recorded message, serial %d from task %s (t%x) with tag %d, did not come within %d s",
           c->serial, c->sender, (unsigned)want.tid, c->tag, rp.timeout_s);
  depart(seq, kind, tid, tag, why);
  return real_call(kind, tid, tag, tmout);
}

int xab_rr_receive(int kind, int tid, int tag, struct timeval *tmout) {
  uint32_t seq = ++xab_rr.seq;
  int idx = xab_rr.record ? xab_record_begin(seq, kind, tid, tag) : -1;
  const struct plan_call *c = NULL;
  if (xab_rr.replay && rp.forcing) {
    ensure_plan(seq, kind, tid, tag);
    if (rp.forcing) c = planned(seq, kind, tid, tag);
  }
  int mid = c && rp.forcing ? forced(c, seq, kind, tid, tag, tmout) : real_call(kind, tid, tag, tmout);
  if (xab_rr.record) xab_record_end(idx, seq, kind, tid, tag, mid);
  return mid;
}

/* ---------------------------------------------------------------- spawning */

/* ---------------------------------------------------------------- placement, results, handlers */

/* The next entry of the plan's extra ones of kind a or b, from *cursor on. */
static const struct plan_call *next_extra(int *cursor, int a, int b) {
  while (*cursor < rp.nextra && rp.extra[*cursor].kind != a && rp.extra[*cursor].kind != b) (*cursor)++;
  return *cursor < rp.nextra ? &rp.extra[(*cursor)++] : NULL;
}

static int host_in_machine(const char *name) {
  int nh = 0, na = 0;
  struct pvmhostinfo *hi = NULL;
  xab_enter_own();
  int rc = pvm_config(&nh, &na, &hi);
  xab_leave_own();
  for (int h = 0; rc >= 0 && h < nh; h++)
    if (strcmp(hi[h].hi_name, name) == 0) return 1;
  return 0;
}

/* Where the recorded run put the n-th task of spawn seq: its host's name,
 * NULL to spawn as the program asks (no such record, or a departure). */
static const char *recorded_host(uint32_t seq, int n, const char *child, int count) {
  if (!rp.forcing || rp.plan_version < 2) return NULL;
  for (int i = 0; i < rp.nextra; i++) {
    const struct plan_call *c = &rp.extra[i];
    if (c->kind != XAB_EV_SPAWN || c->seq != seq || c->arg_src != n || strcmp(c->sender, "-") == 0) continue;
    if (host_in_machine(c->sender)) return c->sender;
    char why[512];
    snprintf(why, sizeof why, "the recorded run put task %s on host %s, which this virtual machine has not", child,
             c->sender);
    depart(seq, XAB_EV_SPAWN, count, 0, why);
    return NULL;
  }
  return NULL;
}

/* The plan, for a call that is not numbered; 0 when nothing is to be checked. */
static int checking(int kind, int a, int b) {
  if (!xab_rr.replay || !rp.forcing) return 0;
  ensure_plan(xab_rr.seq, kind, a, b);
  return rp.forcing && rp.plan_version >= 2;
}

int xab_rr_program_tasks(int ntask, const struct pvmtaskinfo *tasks) {
  int n = ntask;
  for (int i = 0; tasks && i < ntask; i++) {
    const char *a = tasks[i].ti_a_out ? strrchr(tasks[i].ti_a_out, '/') : NULL;
    a = a ? a + 1 : tasks[i].ti_a_out;
    if (a && strcmp(a, "abmon") == 0) n--;
  }
  return n;
}

/* pvm_config and pvm_tasks cannot be made to return another virtual
 * machine: a replay checks that they return what the record run's did. */
static void check_result(int kind, int a, int b, int rc) {
  if (!checking(kind, a, b)) return;
  const struct plan_call *c = next_extra(&rp.next_result, XAB_EV_CONFIG, XAB_EV_TASKS);
  char why[512];
  if (!c || c->kind != kind)
    snprintf(why, sizeof why, "the recorded run made no %s here (after call %u)", call_name(kind), xab_rr.seq);
  else if (kind == XAB_EV_CONFIG && (c->arg_src != a || c->arg_tag != b || (c->rc < 0) != (rc < 0)))
    snprintf(why, sizeof why, "pvm_config found %d host(s) of %d architecture(s), the recorded run %d of %d", a, b,
             c->arg_src, c->arg_tag);
  else if (kind == XAB_EV_TASKS && (c->rc < 0) != (rc < 0))
    snprintf(why, sizeof why, "pvm_tasks returned %d, the recorded run %d", rc, c->rc);
  else if (kind == XAB_EV_TASKS && c->arg_tag != b) {
    /* The machine's task table holds other programs' tasks too (a monitor,
     * another run): said, not a departure. */
    fprintf(stderr, "xab replay: task %s (%s t%x), after call %u: pvm_tasks found %d task(s), the recorded run %d\n",
            rp.path, program_invocation_short_name, (unsigned)pvmmytid, xab_rr.seq, b, c->arg_tag);
    return;
  } else {
    return;
  }
  depart(xab_rr.seq, kind, a, b, why);
}

void xab_rr_config(int rc, int nhost, int narch) {
  if (xab_rr.record) xab_record_other(XAB_EV_CONFIG, XAB_REC_RESULT, XAB_A(XAB_REC_V_CONFIG(nhost, narch, rc)));
  check_result(XAB_EV_CONFIG, nhost, narch, rc);
}

void xab_rr_tasks(int rc, int where, int ntask, const struct pvmtaskinfo *tasks) {
  int n = xab_rr_program_tasks(ntask, tasks);
  if (xab_rr.record) xab_record_other(XAB_EV_TASKS, XAB_REC_RESULT, XAB_A(XAB_REC_V_TASKS(where, n, rc)));
  check_result(XAB_EV_TASKS, where, n, rc);
}

/* A handler's message is not forced (PVM calls the handler when it comes,
 * inside whatever call the program is in): a replay checks that each
 * handler takes the message the record run's took, in the same order. */
void xab_rr_handler(int src, int tag, int serial) {
  if (xab_rr.record) xab_record_other(XAB_EV_HANDLER, XAB_REC_HANDLER, XAB_A(XAB_REC_V_HANDLER(src, tag, serial)));
  if (!xab_rr.replay || !rp.forcing || !rp.loaded || rp.plan_version < 2) return;
  const struct plan_call *c = next_extra(&rp.next_handler, XAB_EV_HANDLER, XAB_EV_HANDLER);
  int want = c ? known_tid_of(c->sender) : 0;
  if (c && c->serial == serial && c->tag == tag && (want == 0 || want == src)) return;
  char why[512];
  if (!c)
    snprintf(why, sizeof why, "a handler took serial %d from t%x with tag %d; the recorded run's handlers took no more",
             serial, (unsigned)src, tag);
  else
    snprintf(why, sizeof why, "a handler took serial %d from t%x with tag %d, the recorded run's serial %d from task %s with tag %d",
             serial, (unsigned)src, tag, c->serial, c->sender, c->tag);
  depart(xab_rr.seq, XAB_EV_HANDLER, src, tag, why);
}

/* One child per pvm_spawn, each told its path; the tids in PVM's order
 * (the started first, then the errors). */
static int spawn_one_by_one(uint32_t seq, char *file, char **argv, int flags, char *where, int count, int *tids) {
  int started = 0, nerr = 0, errs[count > 0 ? count : 1];
  for (int i = 0; i < count; i++) {
    char child[XAB_PATH_MAX + 16];
    snprintf(child, sizeof child, "%s.%d", rp.path, rp.nchildren + 1);
    setenv("XAB_REPLAY_PATH", child, 1);
    const char *host = recorded_host(seq, i + 1, child, count);
    int tid = 0, rc = host ? pvm_spawn(file, argv, (flags & ~PvmTaskArch) | PvmTaskHost, (char *)host, 1, &tid)
                           : pvm_spawn(file, argv, flags, where, 1, &tid);
    if (rc == 1) {
      tids[started++] = tid;
      if (rp.nchildren < XAB_MAX_CHILDREN) rp.children[rp.nchildren++] = tid;
    } else {
      errs[nerr++] = rc < 0 ? rc : tid;
    }
  }
  setenv("XAB_REPLAY_PATH", rp.path, 1);
  for (int i = 0; i < nerr; i++) tids[started + i] = errs[i];
  return started;
}

int xab_rr_spawn(char *file, char **argv, int flags, char *where, int count, int *tids) {
  uint32_t seq = ++xab_rr.seq;
  const struct plan_call *c = NULL;
  if (xab_rr.replay && rp.forcing) {
    ensure_plan(seq, XAB_EV_SPAWN, count, 0);
    if (rp.forcing) c = planned(seq, XAB_EV_SPAWN, count, 0);
  }
  if (xab_rr.replay && rp.forcing && !c) depart(seq, XAB_EV_SPAWN, count, 0, "the record has no pvm_spawn here");
  if (xab_rr.record) xab_record_spawn_begin(seq);
  int rc = xab_rr.replay && count > 0 ? spawn_one_by_one(seq, file, argv, flags, where, count, tids)
                                      : pvm_spawn(file, argv, flags, where, count, tids);
  if (c && rp.forcing && c->rc != rc) {
    char why[256];
    snprintf(why, sizeof why, "pvm_spawn started %d task(s) of %s, the recorded run %d", rc, file, c->rc);
    depart(seq, XAB_EV_SPAWN, count, 0, why);
  }
  if (xab_rr.record) xab_record_spawn(seq, count, rc, tids);
  return rc;
}
