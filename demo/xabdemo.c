/*
 * xabdemo -- the PVM program xab ships to show what it monitors.
 *
 * One binary is both master and worker.  The master joins the group
 * "xabdemo", spawns N workers (default 3) by its own name, and then:
 *
 *   1. mcast    the parameters to every worker          (tag 16002)
 *   2. barrier  everyone has joined the group
 *   3. per round: send each worker a block of doubles plus a float scale
 *      (point-to-point, tag 16001); each worker does a Cholesky-like block
 *      update (a few ms of arithmetic) and sends back its index, the round
 *      and its result (int, int, double; tag 16004)
 *   4. barrier, then reduce (PvmSum) each task's integer checksum to the
 *      master, which prints one deterministic result line and exits 0.
 *
 * --hang reproduces the bug of the Xab paper's Cholesky program: the master
 * waits for the results with tag 16040 while the workers send them with tag
 * 16004.  The master blocks in pvm_recv forever; each worker, its result
 * sent, blocks too, waiting for the next round's block (or, with
 * --rounds 1, in the final barrier).  Nothing progresses until someone
 * kills the master or halts the virtual machine.  Under abmon the last
 * record of the master is `recv.begin src=any tag=16040`, and the trace
 * holds three unreceived messages with tag=16004.
 *
 * Built twice: `xabdemo` includes xab.h and links libab (monitored);
 * `xabdemo-plain` is compiled with XAB_DEMO_UNINSTRUMENTED and talks to
 * PVM directly.  Both print the same result line.
 */
#ifdef XAB_DEMO_UNINSTRUMENTED
#include <pvm3.h>
#define xab_mark(text) ((void)0)
#else
#include "xab.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xab/version.h>

enum {
  TAG_WORK = 16001,       /* master -> worker: one block */
  TAG_PARAMS = 16002,     /* master -> all workers (mcast) */
  TAG_RESULT = 16004,     /* worker -> master: the result */
  TAG_RESULT_BUG = 16040, /* what the buggy master waits for (--hang) */
  TAG_REDUCE = 16005,     /* pvm_reduce of the checksums */
  MAX_WORKERS = 64,
  MAX_BLOCK = 400,
};

/* Not const: PVM 3 takes group names as char *. */
static char GROUP[] = "xabdemo";

struct options {
  int workers;
  int rounds;
  int block; /* the block is block x block doubles */
  int hang;
  int worker;
};

static void usage(FILE *to) {
  fprintf(to,
          "Usage: xabdemo [-n N] [--rounds R] [--block M] [--hang]\n"
          "A small PVM master/worker program (send/recv, mcast, group barrier,\n"
          "reduce) to run under abmon.  It must run inside a PVM virtual machine\n"
          "whose ep= path holds this binary (scripts/pvm-vm.sh does that).\n"
          "\n"
          "  -n N         number of workers to spawn (1..%d, default 3)\n"
          "  --rounds R   rounds of work (default 3)\n"
          "  --block M    block size M (M x M doubles, default 128)\n"
          "  --hang       reproduce the Xab paper's Cholesky bug: the master waits\n"
          "               for tag 16040, the workers send 16004; never returns\n"
          "  -h, --help   this text\n"
          "  --version    xab's version\n"
          "\n"
          "Examples:\n"
          "  1. xabdemo                  # 3 workers, prints 'xabdemo: result ...'\n"
          "  2. xabdemo -n 2 --rounds 5\n"
          "  3. xabdemo --hang &         # blocks; abmon shows recv.begin tag=16040\n",
          MAX_WORKERS);
}

static int parse_int(const char *s, int lo, int hi, int *out) {
  char *end = NULL;
  long v = s ? strtol(s, &end, 10) : 0;
  if (!s || *s == '\0' || *end != '\0' || v < lo || v > hi) return -1;
  *out = (int)v;
  return 0;
}

/* 0 on success, 1 on a usage error, 2 for --help, 3 for --version. */
static int parse_options(int argc, char **argv, struct options *o) {
  o->workers = 3, o->rounds = 3, o->block = 128, o->hang = 0, o->worker = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) return 2;
    if (!strcmp(a, "--version")) return 3;
    if (!strcmp(a, "--hang")) o->hang = 1;
    else if (!strcmp(a, "--worker")) o->worker = 1;
    else if (!strcmp(a, "-n") && !parse_int(next, 1, MAX_WORKERS, &o->workers)) i++;
    else if (!strcmp(a, "--rounds") && !parse_int(next, 1, 100000, &o->rounds)) i++;
    else if (!strcmp(a, "--block") && !parse_int(next, 4, MAX_BLOCK, &o->block)) i++;
    else {
      fprintf(stderr, "xabdemo: bad argument '%s'%s\n", a,
              next && a[0] == '-' ? " (or its value)" : "");
      return 1;
    }
  }
  return 0;
}

/* A PVM call failed: say which, leave PVM, exit non-zero. */
static int fail(const char *what, int rc) {
  fprintf(stderr, "xabdemo: %s failed: rc=%d\n", what, rc);
  pvm_perror("xabdemo");
  pvm_exit();
  exit(1);
}

static int check(int rc, const char *what) { return rc < 0 ? fail(what, rc) : rc; }

/* ---- the arithmetic: deterministic, a few ms per block ---- */

static unsigned lcg(unsigned *s) { return *s = *s * 1103515245u + 12345u; }

static void fill_block(double *b, int m, unsigned seed) {
  for (int i = 0; i < m * m; i++) b[i] = (double)(lcg(&seed) >> 16 & 0x7fff) / 32768.0 - 0.5;
}

/* A = B B^T + m I (symmetric positive definite), then its Cholesky factor
 * L in place; returns the sum of L's diagonal times the scale.  The same
 * inputs give bit-identical results on every run. */
static double block_update(const double *b, double *a, int m, float scale) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j <= i; j++) {
      double s = i == j ? m : 0.0;
      for (int k = 0; k < m; k++) s += b[i * m + k] * b[j * m + k];
      a[i * m + j] = s;
    }
  for (int j = 0; j < m; j++) {
    double d = a[j * m + j];
    for (int k = 0; k < j; k++) d -= a[j * m + k] * a[j * m + k];
    d = sqrt(d);
    a[j * m + j] = d;
    for (int i = j + 1; i < m; i++) {
      double s = a[i * m + j];
      for (int k = 0; k < j; k++) s -= a[i * m + k] * a[j * m + k];
      a[i * m + j] = s / d;
    }
  }
  double trace = 0.0;
  for (int i = 0; i < m; i++) trace += a[i * m + i];
  return trace * scale;
}

/* pvm_reduce finds each host's members by asking the group server when it
 * is called; a worker that left the group (or exited) before the master's
 * reduce ran would be missing from it.  So nobody leaves until everyone has
 * passed the reduce. */
static void leave_group(int members) {
  check(pvm_barrier(GROUP, members), "pvm_barrier(leave)");
  pvm_lvgroup(GROUP);
}

/* ---- worker ---- */

static int run_worker(void) {
  int me = check(pvm_mytid(), "pvm_mytid");
  int master = pvm_parent();
  check(pvm_joingroup(GROUP), "pvm_joingroup");

  int params[4]; /* workers, rounds, block, master's instance */
  check(pvm_recv(master, TAG_PARAMS), "pvm_recv(params)");
  check(pvm_upkint(params, 4, 1), "pvm_upkint(params)");
  int workers = params[0], rounds = params[1], m = params[2], root = params[3];
  int tids[MAX_WORKERS], index = -1;
  check(pvm_upkint(tids, workers, 1), "pvm_upkint(tids)");
  for (int i = 0; i < workers; i++)
    if (tids[i] == me) index = i;
  if (index < 0 || m > MAX_BLOCK) return fail("finding my index", -1);
  check(pvm_barrier(GROUP, workers + 1), "pvm_barrier(start)");

  static double b[MAX_BLOCK * MAX_BLOCK], a[MAX_BLOCK * MAX_BLOCK];
  int checksum = 0;
  for (int r = 0; r < rounds; r++) {
    int round = 0;
    float scale = 0.0f;
    check(pvm_recv(master, TAG_WORK), "pvm_recv(work)");
    check(pvm_upkint(&round, 1, 1), "pvm_upkint(round)");
    check(pvm_upkfloat(&scale, 1, 1), "pvm_upkfloat(scale)");
    check(pvm_upkdouble(b, m * m, 1), "pvm_upkdouble(block)");
    double result = block_update(b, a, m, scale);
    checksum += (int)(result * 1000.0) % 100000;
    check(pvm_initsend(PvmDataDefault), "pvm_initsend");
    pvm_pkint(&index, 1, 1);
    pvm_pkint(&round, 1, 1);
    pvm_pkdouble(&result, 1, 1);
    check(pvm_send(master, TAG_RESULT), "pvm_send(result)");
  }
  check(pvm_barrier(GROUP, workers + 1), "pvm_barrier(end)");
  check(pvm_reduce(PvmSum, &checksum, 1, PVM_INT, TAG_REDUCE, GROUP, root),
        "pvm_reduce");
  leave_group(workers + 1);
  pvm_exit();
  return 0;
}

/* ---- master ---- */

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static int spawn_workers(const char *self, const struct options *o, int *tids) {
  char *args[] = {"--worker", NULL};
  int n = pvm_spawn((char *)self, args, PvmTaskDefault, "", o->workers, tids);
  if (n == o->workers) return 0;
  fprintf(stderr, "xabdemo: started %d of %d workers named '%s' (is it on the VM's ep= path?)\n",
          n < 0 ? 0 : n, o->workers, self);
  for (int i = 0; i < o->workers && n > 0; i++)
    if (tids[i] > 0) pvm_kill(tids[i]);
  pvm_exit();
  return 1;
}

static void send_params(const struct options *o, const int *tids, int root) {
  int params[4] = {o->workers, o->rounds, o->block, root};
  check(pvm_initsend(PvmDataDefault), "pvm_initsend");
  pvm_pkint(params, 4, 1);
  pvm_pkint((int *)tids, o->workers, 1);
  check(pvm_mcast((int *)tids, o->workers, TAG_PARAMS), "pvm_mcast(params)");
}

static void send_blocks(const struct options *o, const int *tids, int round, double *b) {
  for (int w = 0; w < o->workers; w++) {
    fill_block(b, o->block, (unsigned)(round * 131 + w * 7 + 1));
    float scale = 1.0f + 0.25f * (float)w;
    check(pvm_initsend(PvmDataDefault), "pvm_initsend");
    pvm_pkint(&round, 1, 1);
    pvm_pkfloat(&scale, 1, 1);
    pvm_pkdouble(b, o->block * o->block, 1);
    check(pvm_send(tids[w], TAG_WORK), "pvm_send(work)");
  }
}

/* Collects one result per worker; the sum is formed in worker order, so
 * it does not depend on the order the results arrive in. */
static double collect_results(const struct options *o, int round) {
  double by_worker[MAX_WORKERS] = {0};
  int tag = o->hang ? TAG_RESULT_BUG : TAG_RESULT;
  if (o->hang) {
    fprintf(stderr,
            "xabdemo: --hang: the master now waits for tag %d, but the workers send tag %d;\n"
            "xabdemo: this pvm_recv never returns (kill the master or halt the VM)\n",
            TAG_RESULT_BUG, TAG_RESULT);
    fflush(stderr);
  }
  for (int i = 0; i < o->workers; i++) {
    int index = -1, got_round = -1;
    double result = 0.0;
    check(pvm_recv(-1, tag), "pvm_recv(result)");
    pvm_upkint(&index, 1, 1);
    pvm_upkint(&got_round, 1, 1);
    pvm_upkdouble(&result, 1, 1);
    if (index < 0 || index >= o->workers || got_round != round) return fail("result check", -1);
    by_worker[index] = result;
  }
  double sum = 0.0;
  for (int i = 0; i < o->workers; i++) sum += by_worker[i];
  return sum;
}

static int run_master(const char *self, const struct options *o) {
  int me = pvm_mytid();
  if (me < 0) {
    fprintf(stderr, "xabdemo: cannot reach a pvmd (rc=%d); start one first, e.g. "
                    "scripts/pvm-vm.sh start DIR build/bin && source DIR/env\n", me);
    return 1;
  }
  int root = check(pvm_joingroup(GROUP), "pvm_joingroup");
  int tids[MAX_WORKERS];
  if (spawn_workers(self, o, tids) != 0) return 1;
  printf("xabdemo: master t%x, %d workers, %d rounds, block %d\n", (unsigned)me, o->workers,
         o->rounds, o->block);
  fflush(stdout);

  send_params(o, tids, root);
  check(pvm_barrier(GROUP, o->workers + 1), "pvm_barrier(start)");
  static double b[MAX_BLOCK * MAX_BLOCK];
  double total = 0.0;
  for (int r = 0; r < o->rounds; r++) {
    char mark[32];
    snprintf(mark, sizeof mark, "round %d", r + 1);
    xab_mark(mark);
    send_blocks(o, tids, r, b);
    total += collect_results(o, r);
  }
  check(pvm_barrier(GROUP, o->workers + 1), "pvm_barrier(end)");
  int checksum = 0; /* the master adds nothing of its own */
  check(pvm_reduce(PvmSum, &checksum, 1, PVM_INT, TAG_REDUCE, GROUP, root),
        "pvm_reduce");
  printf("xabdemo: result workers=%d rounds=%d block=%d sum=%.6f checksum=%d\n", o->workers,
         o->rounds, o->block, total, checksum);
  fflush(stdout);
  leave_group(o->workers + 1);
  pvm_exit();
  return 0;
}

int main(int argc, char **argv) {
  struct options o;
  switch (parse_options(argc, argv, &o)) {
  case 1: usage(stderr); return 2;
  case 2: usage(stdout); return 0;
  case 3: printf("%s (xab) %s\n", base_name(argv[0]), XAB_VERSION_STRING); return 0;
  default: break;
  }
  return o.worker ? run_worker() : run_master(base_name(argv[0]), &o);
}
