/* abmon_cpuburn [WORKERS [SECONDS [burn|sleep [HOST,HOST...]]]]: the parent
 * spawns WORKERS (2) copies of itself (argv[0], which must be a path; worker
 * i on the i-th HOST, round robin, where they are given), each pinned to one CPU of its
 * own (the i-th CPU it may run on, round robin) and given the highest
 * priority it may take (nice -20 as root, for itself and its autogroup;
 * other processes of the machine then barely compete), that burns CPU for SECONDS (1.2) of wall time,
 * sends the parent the CPU time it used (getrusage, in microseconds) and
 * exits.  The parent prints each worker's tid, CPU and wall time.  A CPU
 * hog pinned beside a worker makes it wait for its CPU
 * (tests/abmon/abmon_sample_test.sh); without one it hardly waits.  With
 * `sleep`, the workers sleep instead of burning (bench/sample-bench.sh:
 * what sampling 64 tasks costs abmon). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "xab.h"

enum { kTagDone = 71 };

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The i-th CPU this process may run on (round robin), or -1. */
static int nthCpu(int i) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
  int n = CPU_COUNT(&set);
  if (n <= 0) return -1;
  for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; cpu++)
    if (CPU_ISSET(cpu, &set) && seen++ == i % n) return cpu;
  return -1;
}

static int worker(int index, double seconds, int sleeping) {
  int cpu = nthCpu(index);
  if (cpu >= 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    sched_setaffinity(0, sizeof one, &one);
  }
  (void)setpriority(PRIO_PROCESS, 0, -20); /* root only; else as it is */
  /* With autogroups (sched(7)) the nice value counts only inside the
   * session's group: the group (pvmd's session, the VM's tasks) at -20 too. */
  FILE *group = fopen("/proc/self/autogroup", "w");
  if (group) {
    fputs("-20", group);
    fclose(group);
  }
  pvm_mytid();
  double start = now();
  volatile unsigned long spin = 0;
  if (sleeping) usleep((useconds_t)(seconds * 1e6));
  while (!sleeping && now() - start < seconds)
    for (int k = 0; k < 100000; k++) spin += (unsigned long)k;
  (void)spin; /* the loop is the work: clang counts a volatile only written as unused */
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  int used[3] = {index, cpu,
                 (int)(ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec + ru.ru_stime.tv_sec * 1000000 +
                       ru.ru_stime.tv_usec)};
  pvm_initsend(PvmDataDefault);
  pvm_pkint(used, 3, 1);
  pvm_send(pvm_parent(), kTagDone);
  pvm_exit();
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "worker") == 0 && argc > 3)
    return worker(atoi(argv[2]), atof(argv[3]), argc > 4 && strcmp(argv[4], "sleep") == 0);
  int n = argc > 1 ? atoi(argv[1]) : 2;
  const char *seconds = argc > 2 ? argv[2] : "1.2";
  char *mode = argc > 3 ? argv[3] : NULL;
  char *hosts[64];
  int nhosts = 0;
  if (argc > 4)
    for (char *h = strtok(argv[4], ","); h && nhosts < 64; h = strtok(NULL, ",")) hosts[nhosts++] = h;
  if (n < 1 || n > 64) return 2;
  pvm_mytid();
  int tids[64];
  for (int i = 0; i < n; i++) {
    char index[16];
    snprintf(index, sizeof index, "%d", i);
    char *args[] = {"worker", index, (char *)seconds, mode, NULL};
    char *where = nhosts ? hosts[i % nhosts] : "";
    if (pvm_spawn(argv[0], args, nhosts ? PvmTaskHost : PvmTaskDefault, where, 1, &tids[i]) != 1) {
      fprintf(stderr, "cannot spawn worker %d\n", i);
      pvm_exit();
      return 1;
    }
  }
  for (int i = 0; i < n; i++) {
    int used[3];
    int bufid = pvm_recv(-1, kTagDone), src = 0, bytes = 0, tag = 0;
    pvm_bufinfo(bufid, &bytes, &tag, &src);
    pvm_upkint(used, 3, 1);
    printf("worker %d t%x cpu %d usage_us %d\n", used[0], src, used[1], used[2]);
  }
  pvm_exit();
  return 0;
}
