/*
 * mworker.c -- a master/worker program with fixed compute phases, to
 * validate intrusion compensation (docs/compensation.md).
 *
 * One source, built twice (bench/compensate_bench.cmake): mworker-plain
 * (XAB_DISABLE: PVM alone) and mworker-xab (libab).  The master spawns W
 * copies of itself as workers; each round it sends every worker M one-int
 * messages, computes C us, and collects one result from each; a worker
 * receives its M messages, computes D us, and answers.  Computing is CPU
 * work, a fixed count of dependent multiply-adds (-k work, the default:
 * about D us here, the same count with or without xab), as a program's
 * compute phase is: on a core shared with other tasks it lasts longer,
 * and xab's work on that core delays it.  -k clock spins on the clock
 * instead, a phase of fixed wall time whatever CPU it gets (the bench's
 * first form, kept to compare).  The only difference between the plain
 * and traced runs is xab.
 *
 * Each task times its own run as the trace does, from its first PVM call
 * (pvm_mytid) to its last (pvm_exit); the workers send theirs to the master, which prints one line
 * per task: `task=master|worker<i> wall_ns=N cpu_ns=C vcsw=V ivcsw=I` (the plain run's figures,
 * the only thing known of the ideal trace: Chassin de Kergommeaux et al., §5).
 *
 *   mworker [-w W] [-r ROUNDS] [-m M] [-c C_US] [-d D_US] [-k work|clock]
 *
 * MWORKER_ROUNDS=1 in the environment: the master prints when each round
 * begins, has sent, and has computed (ns from its start) on stderr, to set
 * a run's rounds against its trace's.
 */
#define _GNU_SOURCE
#include <xab.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_util.h"

enum { TAG_WORK = 201, TAG_RESULT, TAG_WALL };
enum { MAX_WORKERS = 16 };

/* The trace's clock: a task's wall times compare with its records. */
static long long now_ns(void) { return bench_clock_ns(CLOCK_REALTIME); }
/* The task's CPU time so far (the process's: libab adds no thread). */
static long long cpu_ns(void) { return bench_cpu_ns(); }

/* Context switches so far: voluntary (it blocked) and not. */
static void switches(long *v) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  v[0] = ru.ru_nvcsw;
  v[1] = ru.ru_nivcsw;
}

enum { WORK_PER_US = 600 }; /* multiply-adds in about a microsecond on the development machine */
static int spin_on_clock;    /* -k clock */
static volatile unsigned work_sink;

static void compute(long long us) {
  if (spin_on_clock) {
    long long end = now_ns() + us * 1000;
    while (now_ns() < end) {
    }
    return;
  }
  unsigned x = work_sink;
  for (long long i = 0; i < us * WORK_PER_US; i++) x = x * 1103515245u + 12345u;
  work_sink = x;
}

struct opts {
  int workers, rounds, msgs, master_us, worker_us;
};

static void worker(const struct opts *o, long long start) {
  int master = pvm_parent(), v;
  for (int r = 0; r < o->rounds; r++) {
    for (int k = 0; k < o->msgs; k++) {
      pvm_recv(master, TAG_WORK);
      pvm_upkint(&v, 1, 1);
    }
    compute(o->worker_us);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    pvm_send(master, TAG_RESULT);
  }
  pvm_recv(master, TAG_WALL); /* the master is ready: the run is over */
  pvm_initsend(PvmDataDefault);
  long wall[4] = {(long)(now_ns() - start), (long)cpu_ns()}; /* to the send, about the time of pvm_exit (the trace's last record) */
  switches(wall + 2);
  pvm_pklong(wall, 4, 1);
  pvm_send(master, TAG_WALL);
  pvm_exit();
}

static int master(const struct opts *o, char *self, long long start) {
  int tids[MAX_WORKERS], v = 1;
  char r[16], m[16], d[16];
  snprintf(r, sizeof r, "%d", o->rounds);
  snprintf(m, sizeof m, "%d", o->msgs);
  snprintf(d, sizeof d, "%d", o->worker_us);
  char *args[] = {"--worker", "-r", r, "-m", m, "-d", d, "-k", spin_on_clock ? "clock" : "work", NULL}; /* the worker's rounds are the master's */
  int got = pvm_spawn(self, args, PvmTaskDefault, "", o->workers, tids);
  if (got != o->workers) {
    fprintf(stderr, "mworker: spawned %d of %d workers\n", got, o->workers);
    pvm_exit();
    return 1;
  }
  for (int r = 0; r < o->rounds; r++) {
    if (getenv("MWORKER_ROUNDS")) fprintf(stderr, "round %d at %lld\n", r, now_ns() - start);
    for (int w = 0; w < o->workers; w++)
      for (int k = 0; k < o->msgs; k++) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&v, 1, 1);
        pvm_send(tids[w], TAG_WORK);
      }
    if (getenv("MWORKER_ROUNDS")) fprintf(stderr, "sent %d at %lld\n", r, now_ns() - start);
    compute(o->master_us);
    if (getenv("MWORKER_ROUNDS")) fprintf(stderr, "computed %d at %lld\n", r, now_ns() - start);
    for (int w = 0; w < o->workers; w++) {
      pvm_recv(tids[w], TAG_RESULT);
      pvm_upkint(&v, 1, 1);
    }
  }
  long long walls[MAX_WORKERS], cpus[MAX_WORKERS];
  long sw[MAX_WORKERS][2];
  for (int w = 0; w < o->workers; w++) {
    pvm_initsend(PvmDataDefault);
    pvm_send(tids[w], TAG_WALL);
    pvm_recv(tids[w], TAG_WALL);
    long l[4];
    pvm_upklong(l, 4, 1);
    walls[w] = l[0];
    cpus[w] = l[1];
    sw[w][0] = l[2];
    sw[w][1] = l[3];
  }
  long long wall = now_ns() - start, cpu = cpu_ns();
  long msw[2];
  switches(msw);
  pvm_exit();
  printf("task=master wall_ns=%lld cpu_ns=%lld vcsw=%ld ivcsw=%ld\n", wall, cpu, msw[0], msw[1]);
  for (int w = 0; w < o->workers; w++)
    printf("task=worker%d wall_ns=%lld cpu_ns=%lld vcsw=%ld ivcsw=%ld\n", w + 1, walls[w], cpus[w], sw[w][0], sw[w][1]);
  return 0;
}

int main(int argc, char **argv) {
  long long start = now_ns();
  struct opts o = {2, 20, 50, 2000, 5000};
  const struct bench_flag flags[] = {
      {"-w", &o.workers}, {"-r", &o.rounds}, {"-m", &o.msgs}, {"-c", &o.master_us}, {"-d", &o.worker_us}};
  int is_worker = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--worker")) { is_worker = 1; continue; }
    if (!strcmp(argv[i], "-k") && i + 1 < argc && (!strcmp(argv[i + 1], "work") || !strcmp(argv[i + 1], "clock"))) {
      spin_on_clock = !strcmp(argv[++i], "clock");
      continue;
    }
    if (bench_int_flag(argc, argv, &i, flags, 5, 0) < 0) {
      fprintf(stderr, "usage: mworker [-w W] [-r ROUNDS] [-m M] [-c C_US] [-d D_US] [-k work|clock]\n");
      return 2;
    }
  }
  if (o.workers < 1 || o.workers > MAX_WORKERS) o.workers = 2;
  if (pvm_mytid() < 0) return 1;
  if (is_worker) {
    worker(&o, start);
    return 0;
  }
  /* by its name: pvm_spawn finds it on the VM's ep= path (a path with
   * "/../" in it is not found, and the spawned task never starts) */
  char *self = strrchr(argv[0], '/');
  return master(&o, self ? self + 1 : argv[0], start);
}
