/*
 * xabrace -- a racy PVM program, the kind of bug record and replay is for.
 *
 * One binary is both master and worker.  The master spawns N workers
 * (default 3) by its own name and gathers one result from each with a
 * wildcard receive, pvm_recv(-1, TAG_RESULT): whichever worker finishes
 * first is served first.  Each worker sleeps a random time (0..--delay ms,
 * seeded from its pid and the clock), then sends its index and a value.
 * The master folds the values in the order they arrive, with an operation
 * that does not commute, and prints the order and the fold:
 *
 *   xabrace: order 2 0 1 result 2911
 *
 * (with a line per message got before it), so the output changes from run
 * to run.  After each result the master
 * sends the worker a STOP; the worker answers DONE and exits, and the
 * master waits for every DONE.
 *
 * --hang: the master gathers the results with pvm_recv(-1, -1), any tag
 * (the bug).  When one worker's DONE arrives before another worker's
 * RESULT, the master takes that DONE as a result: it never sends the
 * slower worker its STOP, so that worker never sends DONE, and the master
 * waits for it forever.  When every RESULT arrives before the first DONE,
 * the run ends normally.  Which happens depends on timing only.
 *
 * --poll: the master does not block in pvm_recv: it looks with
 * pvm_probe(-1, TAG_RESULT), takes what is there with pvm_nrecv, and
 * otherwise waits with pvm_trecv(-1, TAG_RESULT, 2 ms), and prints how
 * many of those waits timed out: a number that changes in every run.
 *
 * --collector: the workers gather among themselves.  Worker 0 takes the
 * other workers' results with pvm_recv(-1, TAG_RESULT) -- messages from its
 * siblings -- folds them in arrival order and sends the order and the fold
 * to the master, which prints them as above.
 *
 * Built twice: `xabrace` includes xab.h and links libab (monitored, and
 * able to record and replay: docs/replay.md); `xabrace-plain` is compiled
 * with XAB_DEMO_UNINSTRUMENTED and talks to PVM directly.
 */
#ifdef XAB_DEMO_UNINSTRUMENTED
#include <pvm3.h>
#else
#include "xab.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xab/version.h>

enum {
  TAG_INDEX = 17001,  /* master -> worker: your index */
  TAG_RESULT = 17002, /* worker -> master: index, value */
  TAG_STOP = 17003,   /* master -> worker: you may finish */
  TAG_DONE = 17004,   /* worker -> master: finished */
  TAG_BYE = 17005,    /* worker -> master: after DONE (--handler) */
  MAX_WORKERS = 32,
};

struct options {
  int workers;
  int delay_ms;
  int hang;
  int collector;
  int poll;
  int handler;
  int inspect;
  int worker;
};

static void usage(FILE *to) {
  fprintf(to,
          "Usage: xabrace [-n N] [--delay MS] [--hang | --collector | --poll] [--handler] [--inspect]\n"
          "A racy PVM master/worker program: the master gathers the workers'\n"
          "results with a wildcard pvm_recv, and its output depends on the order\n"
          "they arrive in.  It must run inside a PVM virtual machine whose ep=\n"
          "path holds this binary.\n"
          "\n"
          "  -n N         number of workers to spawn (1..%d, default 3)\n"
          "  --delay MS   each worker sleeps a random 0..MS milliseconds first\n"
          "               (default 20)\n"
          "  --hang       the master gathers with pvm_recv(-1, -1): in some orders\n"
          "               it takes a DONE for a RESULT and waits forever\n"
          "  --collector  worker 0 gathers the other workers' results (a wildcard\n"
          "               receive of messages from its siblings) for the master\n"
          "  --poll       the master looks for results with pvm_probe, takes them\n"
          "               with pvm_nrecv, and waits with pvm_trecv (2 ms); it\n"
          "               prints how many waits timed out\n"
          "  --handler    the master takes the DONEs in a pvm_addmhf handler, which\n"
          "               prints them as they come; each worker then says BYE\n"
          "  --inspect    the master asks pvm_config and pvm_tasks after spawning\n"
          "               and prints the number of hosts\n"
          "  -h, --help   this text\n"
          "  --version    xab's version\n"
          "\n"
          "Examples:\n"
          "  1. xabrace                  # prints 'xabrace: order ... result ...'\n"
          "  2. xabrace -n 5 --delay 50  # more workers, more orders\n"
          "  3. abreplay --record rec -- xabrace --hang   # record a run (docs/replay.md)\n",
          MAX_WORKERS);
}

static int parse_int(const char *s, int lo, int hi, int *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (!*s || *end || v < lo || v > hi) return -1;
  *out = (int)v;
  return 0;
}

/* 0: run; 1: exit 0 (help, version); 2: bad arguments. */
static int parse_options(int argc, char **argv, struct options *o) {
  *o = (struct options){.workers = 3, .delay_ms = 20};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 1;
    } else if (!strcmp(a, "--version")) {
      printf("xabrace (xab) %s\n", XAB_VERSION_STRING);
      return 1;
    } else if (!strcmp(a, "--hang")) {
      o->hang = 1;
    } else if (!strcmp(a, "--collector")) {
      o->collector = 1;
    } else if (!strcmp(a, "--poll")) {
      o->poll = 1;
    } else if (!strcmp(a, "--handler")) {
      o->handler = 1;
    } else if (!strcmp(a, "--inspect")) {
      o->inspect = 1;
    } else if (!strcmp(a, "--worker")) {
      o->worker = 1;
    } else if (!strcmp(a, "-n") && i + 1 < argc && parse_int(argv[i + 1], 1, MAX_WORKERS, &o->workers) == 0) {
      i++;
    } else if (!strcmp(a, "--delay") && i + 1 < argc && parse_int(argv[i + 1], 0, 10000, &o->delay_ms) == 0) {
      i++;
    } else {
      fprintf(stderr, "xabrace: bad argument '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  return 0;
}

static int check(int rc, const char *what) {
  if (rc < 0) {
    fprintf(stderr, "xabrace: %s failed (rc=%d)\n", what, rc);
    pvm_exit();
    exit(1);
  }
  return rc;
}

/* The value a worker computes: depends on its index only. */
static int worker_value(int index) { return 7 + 13 * index; }

/* ---- worker ---- */

/* --collector, worker 0: the others' results in arrival order, folded,
 * to the master. */
static void collect(int master, int workers) {
  int order[MAX_WORKERS], n = workers - 1, result = 0;
  for (int i = 0; i < n; i++) {
    int index = -1, value = 0;
    check(pvm_recv(-1, TAG_RESULT), "pvm_recv(sibling's result)");
    pvm_upkint(&index, 1, 1);
    pvm_upkint(&value, 1, 1);
    order[i] = index;
    result = (result * 31 + value) % 1000003;
  }
  pvm_initsend(PvmDataDefault);
  pvm_pkint(&n, 1, 1);
  pvm_pkint(order, n, 1);
  pvm_pkint(&result, 1, 1);
  check(pvm_send(master, TAG_RESULT), "pvm_send(collected)");
}

static int run_worker(int delay_ms, int bye) {
  int master = pvm_parent();
  int index = -1, collector = 0, workers = 0;
  check(pvm_recv(master, TAG_INDEX), "pvm_recv(index)");
  pvm_upkint(&index, 1, 1);
  pvm_upkint(&collector, 1, 1); /* --collector: worker 0's tid, else 0 */
  pvm_upkint(&workers, 1, 1);
  if (collector && index == 0) {
    collect(master, workers);
    pvm_exit();
    return 0;
  }
  /* The race: a random pause, different in every run. */
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  srand((unsigned)getpid() ^ (unsigned)now.tv_nsec);
  if (delay_ms > 0) {
    long ms = rand() % (delay_ms + 1);
    struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&pause, NULL);
  }
  int value = worker_value(index);
  pvm_initsend(PvmDataDefault);
  pvm_pkint(&index, 1, 1);
  pvm_pkint(&value, 1, 1);
  check(pvm_send(collector ? collector : master, TAG_RESULT), "pvm_send(result)");
  if (collector) {
    pvm_exit();
    return 0;
  }
  check(pvm_recv(master, TAG_STOP), "pvm_recv(stop)");
  pvm_initsend(PvmDataDefault);
  pvm_pkint(&index, 1, 1);
  check(pvm_send(master, TAG_DONE), "pvm_send(done)");
  if (bye) { /* --handler: PVM keeps the pair's order, so DONE is handled by then */
    pvm_initsend(PvmDataDefault);
    check(pvm_send(master, TAG_BYE), "pvm_send(bye)");
  }
  pvm_exit();
  return 0;
}

/* ---- master ---- */

static int spawn_workers(const char *self, const struct options *o, int *tids) {
  char delay[16];
  snprintf(delay, sizeof delay, "%d", o->delay_ms);
  char *args[] = {"--worker", "--delay", delay, o->handler ? "--handler" : NULL, NULL};
  int n = pvm_spawn((char *)self, args, PvmTaskDefault, "", o->workers, tids);
  if (n == o->workers) return 0;
  fprintf(stderr, "xabrace: started %d of %d workers named '%s' (is it on the VM's ep= path?)\n",
          n < 0 ? 0 : n, o->workers, self);
  for (int i = 0; i < o->workers && n > 0; i++)
    if (tids[i] > 0) pvm_kill(tids[i]);
  pvm_exit();
  return 1;
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* --poll: the next result, without blocking in pvm_recv; counts the
 * 2 ms waits that timed out. */
static int poll_result(int *timeouts) {
  for (;;) {
    if (check(pvm_probe(-1, TAG_RESULT), "pvm_probe") > 0) return check(pvm_nrecv(-1, TAG_RESULT), "pvm_nrecv");
    struct timeval wait = {0, 2000};
    int mid = check(pvm_trecv(-1, TAG_RESULT, &wait), "pvm_trecv");
    if (mid > 0) return mid;
    ++*timeouts;
  }
}

/* --handler: each DONE, as PVM hands it to the handler. */
static int dones_handled;
static int on_done(int mid) {
  int index = -1;
  pvm_setrbuf(mid);
  pvm_upkint(&index, 1, 1);
  printf("xabrace: handler got DONE of worker %d\n", index);
  fflush(stdout);
  dones_handled++;
  return 0;
}

/* --inspect: what a program that places work by the machine's shape asks. */
static void inspect(void) {
  int nhost = 0, narch = 0, ntask = 0;
  struct pvmhostinfo *hosts;
  struct pvmtaskinfo *tasks;
  check(pvm_config(&nhost, &narch, &hosts), "pvm_config");
  check(pvm_tasks(0, &ntask, &tasks), "pvm_tasks");
  printf("xabrace: %d host(s)\n", nhost);
  fflush(stdout);
}

/* --collector: worker 0 sends the order and the fold. */
static int print_collected(int collector) {
  int n = 0, order[MAX_WORKERS], result = 0;
  check(pvm_recv(collector, TAG_RESULT), "pvm_recv(collected)");
  pvm_upkint(&n, 1, 1);
  pvm_upkint(order, n, 1);
  pvm_upkint(&result, 1, 1);
  printf("xabrace: order");
  for (int i = 0; i < n; i++) printf(" %d", order[i]);
  printf(" result %d\n", result);
  fflush(stdout);
  pvm_exit();
  return 0;
}

static int run_master(const char *self, const struct options *o) {
  int me = pvm_mytid();
  if (me < 0) {
    fprintf(stderr, "xabrace: cannot reach a pvmd (rc=%d); start one first\n", me);
    return 1;
  }
  int tids[MAX_WORKERS];
  if (o->handler) check(pvm_addmhf(-1, TAG_DONE, -1, on_done), "pvm_addmhf");
  if (spawn_workers(self, o, tids) != 0) return 1;
  if (o->inspect) inspect();
  int collector = o->collector && o->workers > 1 ? tids[0] : 0;
  for (int w = 0; w < o->workers; w++) {
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&w, 1, 1);
    pvm_pkint(&collector, 1, 1);
    pvm_pkint((int *)&o->workers, 1, 1);
    check(pvm_send(tids[w], TAG_INDEX), "pvm_send(index)");
  }
  if (collector) return print_collected(collector);
  int order[MAX_WORKERS], result = 0, dones = 0, timeouts = 0;
  for (int i = 0; i < o->workers; i++) {
    /* The bug of --hang: any tag, so a DONE can pass for a RESULT. */
    int mid = o->poll ? poll_result(&timeouts) : check(pvm_recv(-1, o->hang ? -1 : TAG_RESULT), "pvm_recv(result)");
    int bytes = 0, tag = 0, src = 0, index = -1, value = 0;
    pvm_bufinfo(mid, &bytes, &tag, &src);
    pvm_upkint(&index, 1, 1);
    order[i] = index;
    printf("xabrace: got %s of worker %d\n", tag == TAG_DONE ? "DONE" : "RESULT", index);
    fflush(stdout);
    if (tag == TAG_DONE) { /* "cannot happen": counted as a result all the same */
      dones++;
      continue;
    }
    pvm_upkint(&value, 1, 1);
    result = (result * 31 + value) % 1000003; /* the order matters */
    pvm_initsend(PvmDataDefault);
    check(pvm_send(src, TAG_STOP), "pvm_send(stop)");
  }
  if (o->handler) /* one task, one tag: not timing-dependent; the handler took each DONE before */
    for (int w = 0; w < o->workers; w++) check(pvm_recv(tids[w], TAG_BYE), "pvm_recv(bye)");
  else
    for (; dones < o->workers; dones++) check(pvm_recv(-1, TAG_DONE), "pvm_recv(done)");
  printf("xabrace: order");
  for (int i = 0; i < o->workers; i++) printf(" %d", order[i]);
  printf(" result %d", result);
  if (o->poll) printf(" waits %d", timeouts);
  printf("\n");
  fflush(stdout);
  pvm_exit();
  return 0;
}

int main(int argc, char **argv) {
  struct options o;
  int rc = parse_options(argc, argv, &o);
  if (rc) return rc == 1 ? 0 : 2;
  if (o.worker) return run_worker(o.delay_ms, o.handler);
  return run_master(base_name(argv[0]), &o);
}
