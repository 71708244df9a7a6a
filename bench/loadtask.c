/*
 * loadtask.c -- the many-tasks, many-hosts load (bench/run-load-bench.sh,
 * docs/performance.md "Load: 256 tasks over 8 hosts"): many instrumented
 * tasks, each making a known number of PVM calls as fast as it can, and
 * saying how many it made.
 *
 *   loadtask [-n TASKS] [-c CALLS]
 *
 * The master spawns TASKS copies of itself (PVM places them round robin
 * over the hosts) and waits.  Each makes CALLS calls, alternating
 * pvm_nrecv and pvm_probe on a tag nobody sends (each one record in the
 * trace), then sends its counts to the master, which prints one line per
 * task, `task=tTID host=HOSTTID nrecv=N probe=P`, and a total line.  The
 * bench compares those with the trace's records of each task.
 */
#include <xab.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { TAG_NOBODY = 77, TAG_COUNTS = 78, MAX_TASKS = 4096 };

static void worker(int calls) {
  int counts[3] = {pvm_mytid(), 0, 0};
  for (int i = 0; i < calls; i++) {
    if (i & 1) {
      pvm_probe(-1, TAG_NOBODY);
      counts[2]++;
    } else {
      pvm_nrecv(-1, TAG_NOBODY);
      counts[1]++;
    }
  }
  pvm_initsend(PvmDataDefault);
  pvm_pkint(counts, 3, 1);
  pvm_send(pvm_parent(), TAG_COUNTS);
}

int main(int argc, char **argv) {
  int tasks = 256, calls = 20000, opt;
  if (argc == 3 && strcmp(argv[1], "worker") == 0) {
    pvm_mytid();
    worker(atoi(argv[2]));
    pvm_exit();
    return 0;
  }
  while ((opt = getopt(argc, argv, "n:c:")) != -1) {
    if (opt == 'n') tasks = atoi(optarg);
    else if (opt == 'c') calls = atoi(optarg);
    else {
      fprintf(stderr, "usage: loadtask [-n TASKS] [-c CALLS]\n");
      return 2;
    }
  }
  if (tasks < 1 || tasks > MAX_TASKS || calls < 0) return 2;
  if (pvm_mytid() < 0) return 1;
  static int tids[MAX_TASKS];
  char count[16];
  snprintf(count, sizeof count, "%d", calls);
  char *args[] = {"worker", count, NULL};
  int started = 0;
  while (started < tasks) { /* pvm_spawn places a batch round robin over the hosts */
    int want = tasks - started < 64 ? tasks - started : 64;
    int n = pvm_spawn(argv[0], args, PvmTaskDefault, "", want, tids + started);
    if (n <= 0) {
      fprintf(stderr, "loadtask: pvm_spawn: %d (%d started)\n", n, started);
      break;
    }
    started += n;
  }
  long long total = 0;
  for (int i = 0; i < started; i++) {
    int c[3];
    pvm_recv(-1, TAG_COUNTS);
    pvm_upkint(c, 3, 1);
    printf("task=t%x host=t%x nrecv=%d probe=%d\n", (unsigned)c[0], (unsigned)pvm_tidtohost(c[0]), c[1], c[2]);
    total += c[1] + c[2];
  }
  printf("loadtask: tasks=%d calls=%lld\n", started, total);
  pvm_exit();
  return started == tasks ? 0 : 1;
}
