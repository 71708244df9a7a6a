/*
 * gather.c -- what record mode costs a many-to-one wildcard program.
 *
 * The master spawns W workers by its own name; each sends M one-int
 * messages to the master as fast as it can; the master takes all W*M with
 * pvm_recv(-1, tag) -- the receive whose outcome depends on timing, which
 * record mode logs one entry for -- and prints the time per message
 * received.  Built twice (bench/libab_bench.cmake): gather-plain
 * (XAB_DISABLE) and gather-xab.  docs/performance.md, "Record mode".
 *
 *   gather-xab [-w W] [-m M] [-r REPS]     (default 4 workers, 20000, 5)
 *   gather-xab --probe N    N pvm_nrecv(-1, tag) finding nothing: ns per call
 * Output: `gather variant=... workers=W msgs=N ns_per_msg_median=... min=...
 *          cpu_ns_per_msg_median=...` (the master's CPU time per message)
 */
#include <xab.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#ifdef XAB_DISABLE
#define VARIANT "plain"
#else
#define VARIANT "xab"
#endif

enum { TAG_GO = 201, TAG_DATA, MAX_W = 64, MAX_REPS = 51 };

static void worker(void) {
  int parent = pvm_parent(), m = 0, reps = 0;
  pvm_recv(parent, TAG_GO);
  pvm_upkint(&m, 1, 1);
  pvm_upkint(&reps, 1, 1);
  for (int r = 0; r < reps; r++) {
    pvm_recv(parent, TAG_GO);
    for (int i = 0; i < m; i++) {
      pvm_initsend(PvmDataDefault);
      pvm_pkint(&i, 1, 1);
      pvm_send(parent, TAG_DATA);
    }
  }
}

/* --probe N: N pvm_nrecv(-1, tag) that find nothing, in one task: the
 * cost of one recorded (or traced) receive, without a message's cost. */
static int probe_loop(int n, int reps) {
  double per[MAX_REPS];
  pvm_mytid();
  for (int r = 0; r < reps; r++) {
    int64_t t0 = bench_now_ns();
    for (int i = 0; i < n; i++) pvm_nrecv(-1, TAG_DATA);
    per[r] = (double)(bench_now_ns() - t0) / n;
  }
  bench_sort(per, (size_t)reps);
  printf("probe variant=%s calls=%d ns_per_call_median=%.0f min=%.0f\n", VARIANT, n, per[reps / 2], per[0]);
  pvm_exit();
  return 0;
}

int main(int argc, char **argv) {
  int w = 4, m = 20000, reps = 5;
  const struct bench_flag flags[] = {{"-w", &w}, {"-m", &m}, {"-r", &reps}};
  if (argc >= 3 && !strcmp(argv[1], "--probe")) return probe_loop(atoi(argv[2]) > 0 ? atoi(argv[2]) : 100000, 7);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--worker")) {
      worker();
      pvm_exit();
      return 0;
    }
    if (bench_int_flag(argc, argv, &i, flags, 3, 1) < 0) {
      fprintf(stderr, "Usage: gather-{plain,xab} [-w WORKERS] [-m MSGS_EACH] [-r REPS]\n");
      return 2;
    }
  }
  if (w > MAX_W) w = MAX_W;
  if (reps > MAX_REPS) reps = MAX_REPS;
  const char *self = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  int tids[MAX_W];
  char *args[] = {"--worker", NULL};
  if (pvm_mytid() < 0 || pvm_spawn((char *)self, args, PvmTaskDefault, "", w, tids) != w) {
    fprintf(stderr, "gather: cannot start %d workers named %s\n", w, self);
    pvm_exit();
    return 1;
  }
  int params[2] = {m, reps};
  pvm_initsend(PvmDataDefault);
  pvm_pkint(params, 2, 1);
  pvm_mcast(tids, w, TAG_GO);
  double per[MAX_REPS], cpu[MAX_REPS];
  for (int r = 0; r < reps; r++) {
    pvm_initsend(PvmDataDefault);
    int64_t t0 = bench_now_ns(), c0 = bench_cpu_ns();
    pvm_mcast(tids, w, TAG_GO);
    long sum = 0;
    for (int i = 0; i < w * m; i++) {
      int x = 0;
      pvm_recv(-1, TAG_DATA);
      pvm_upkint(&x, 1, 1);
      sum += x;
    }
    per[r] = (double)(bench_now_ns() - t0) / (w * m);
    cpu[r] = (double)(bench_cpu_ns() - c0) / (w * m);
    if (sum != (long)w * m * (m - 1) / 2) fprintf(stderr, "gather: lost messages\n");
  }
  bench_sort(per, (size_t)reps);
  bench_sort(cpu, (size_t)reps);
  printf("gather variant=%s workers=%d msgs=%d ns_per_msg_median=%.0f min=%.0f cpu_ns_per_msg_median=%.0f\n", VARIANT,
         w, w * m, per[reps / 2], per[0], cpu[reps / 2]);
  pvm_exit();
  return 0;
}
