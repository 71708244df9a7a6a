/*
 * why_slow.c -- a PVM program with a task made slow on purpose, for the
 * tests of abstat --why and --compare (tests/tools/abstat_why_pvm_test.cpp).
 * Built with libab (xab.h); the workers are spawned by the program's own
 * name.  The work is a sleep, so the waiting it causes does not depend on
 * how loaded the machine is.
 *
 *   why_slow barrier N R W D   N workers in group "why", R rounds: each
 *                              works W ms (worker N-1: W + D ms), then all
 *                              pass barrier "why"; at the end each sends
 *                              the master a result, taken in worker order
 *   why_slow chain R W D       a chain of two workers, R rounds: the master
 *                              sends "go" to worker 0, which works W + D ms
 *                              and sends to worker 1, which waits for it
 *                              (late because worker 0 is), works W ms and
 *                              sends to the master, who waits for it
 *   why_slow order R W D       two workers, R rounds: worker 0 sends the
 *                              master a result after W ms, worker 1 after
 *                              W + D ms; the master takes worker 1's first,
 *                              waiting with worker 0's already there
 *   why_slow reduce N R W D    N workers in group "whyr", R rounds: each
 *                              works W ms (instance N-1: W + D ms), then
 *                              all sum into instance 0 with pvm_reduce; the
 *                              master only spawns them
 *   why_slow spawn W D         the master spawns worker 0 and waits for a
 *                              message from any task; worker 0 works D ms,
 *                              then spawns worker 1, which works W ms and
 *                              sends it: the master waits for a task not
 *                              spawned yet
 *   why_slow join W D          worker 0 joins group "whyj" and asks for
 *                              instance 1's tid every 10 ms until worker 1,
 *                              after D ms of work, joins
 * D = 0 gives the same program run even.
 */
#include "xab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TAG_GO 11
#define TAG_NEXT 12
#define TAG_DONE 13

static void work(int ms) {
  struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0) {
  }
}

static void spawn(const char *self, char **args, int n, int *tids) {
  if (pvm_spawn((char *)self, args, PvmTaskDefault, "", n, tids) != n) {
    printf("spawn failed\n");
    pvm_exit();
    exit(1);
  }
}

/* N workers of the shape argv[1] with its four numbers, each told its index. */
static void spawnWorkers(const char *self, char **argv, int n, int *tids) {
  for (int k = 0; k < n; k++) {
    char idx[16];
    char *args[] = {argv[1], argv[2], argv[3], argv[4], argv[5], idx, NULL};
    snprintf(idx, sizeof idx, "%d", k);
    spawn(self, args, 1, &tids[k]);
  }
}

static int barrier(const char *self, int argc, char **argv) {
  int n = atoi(argv[2]), rounds = atoi(argv[3]), w = atoi(argv[4]), d = atoi(argv[5]);
  if (argc > 6) { /* a worker: its index */
    int me = atoi(argv[6]), r, x = me;
    pvm_joingroup("why");
    for (r = 0; r < rounds; r++) {
      work(me == n - 1 ? w + d : w);
      pvm_barrier("why", n);
    }
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&x, 1, 1);
    pvm_send(pvm_parent(), TAG_DONE);
    pvm_lvgroup("why");
    return 0;
  }
  int tids[64], k;
  if (n < 1 || n > 64) return 1;
  spawnWorkers(self, argv, n, tids);
  for (k = 0; k < n; k++) {
    int x;
    pvm_recv(tids[k], TAG_DONE);
    pvm_upkint(&x, 1, 1);
  }
  printf("barrier done\n");
  return 0;
}

static int chain(const char *self, int argc, char **argv) {
  int rounds = atoi(argv[2]), w = atoi(argv[3]), d = atoi(argv[4]), r, x = 0;
  if (argc > 5) { /* a worker: 0 or 1 */
    int me = atoi(argv[5]), next = 0;
    for (r = 0; r < rounds; r++) {
      if (me == 0) {
        pvm_recv(pvm_parent(), TAG_GO);
        pvm_upkint(&next, 1, 1);
      } else {
        pvm_recv(-1, TAG_NEXT);
      }
      work(me == 0 ? w + d : w);
      pvm_initsend(PvmDataDefault);
      pvm_pkint(&x, 1, 1);
      pvm_send(me == 0 ? next : pvm_parent(), me == 0 ? TAG_NEXT : TAG_DONE);
    }
    return 0;
  }
  int tids[2];
  char *args0[] = {"chain", argv[2], argv[3], argv[4], "0", NULL};
  char *args1[] = {"chain", argv[2], argv[3], argv[4], "1", NULL};
  spawn(self, args0, 1, &tids[0]);
  spawn(self, args1, 1, &tids[1]);
  for (r = 0; r < rounds; r++) {
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&tids[1], 1, 1);
    pvm_send(tids[0], TAG_GO);
    pvm_recv(tids[1], TAG_DONE);
  }
  printf("chain done\n");
  return 0;
}

static int order(const char *self, int argc, char **argv) {
  int rounds = atoi(argv[2]), w = atoi(argv[3]), d = atoi(argv[4]), r, x = 0;
  if (argc > 5) { /* a worker: 0 or 1 */
    int me = atoi(argv[5]);
    for (r = 0; r < rounds; r++) {
      pvm_recv(pvm_parent(), TAG_GO);
      work(me == 0 ? w : w + d);
      pvm_initsend(PvmDataDefault);
      pvm_pkint(&x, 1, 1);
      pvm_send(pvm_parent(), TAG_DONE);
    }
    return 0;
  }
  int tids[2];
  char *args0[] = {"order", argv[2], argv[3], argv[4], "0", NULL};
  char *args1[] = {"order", argv[2], argv[3], argv[4], "1", NULL};
  spawn(self, args0, 1, &tids[0]);
  spawn(self, args1, 1, &tids[1]);
  for (r = 0; r < rounds; r++) {
    pvm_initsend(PvmDataDefault);
    pvm_mcast(tids, 2, TAG_GO);
    pvm_recv(tids[1], TAG_DONE);
    pvm_recv(tids[0], TAG_DONE);
  }
  printf("order done\n");
  return 0;
}

static int reduce(const char *self, int argc, char **argv) {
  int n = atoi(argv[2]), rounds = atoi(argv[3]), w = atoi(argv[4]), d = atoi(argv[5]);
  if (argc > 6) { /* a worker: its index */
    int me = pvm_joingroup("whyr"), r, x = 1; /* its instance: 0 is the root */
    pvm_barrier("whyr", n);
    for (r = 0; r < rounds; r++) {
      work(me == n - 1 ? w + d : w);
      x = 1;
      pvm_reduce(PvmSum, &x, 1, PVM_INT, 100 + r, "whyr", 0); /* a tag per round: the root takes this round's */
    }
    pvm_barrier("whyr", n);
    pvm_lvgroup("whyr");
    return 0;
  }
  int tids[64];
  if (n < 1 || n > 64) return 1;
  spawnWorkers(self, argv, n, tids);
  printf("reduce spawned\n"); /* the master waits for nobody: the reduces' waits are the run's */
  return 0;
}

static int spawnLate(const char *self, int argc, char **argv) {
  int w = atoi(argv[2]), d = atoi(argv[3]), x = 0, tid;
  if (argc > 5) { /* a worker: 0 spawns 1, 1 answers the master (argv[5]) */
    int master = (int)strtol(argv[5], NULL, 10);
    if (argc == 6) {
      char *args[] = {"spawn", argv[2], argv[3], argv[4], argv[5], "1", NULL};
      work(d);
      spawn(self, args, 1, &tid);
    } else {
      work(w);
      pvm_initsend(PvmDataDefault);
      pvm_pkint(&x, 1, 1);
      pvm_send(master, TAG_DONE);
    }
    return 0;
  }
  char me[16];
  snprintf(me, sizeof me, "%d", pvm_mytid());
  char *args[] = {"spawn", argv[2], argv[3], "0", me, NULL};
  spawn(self, args, 1, &tid);
  pvm_recv(-1, TAG_DONE);
  printf("spawn done\n");
  return 0;
}

static int join(const char *self, int argc, char **argv) {
  int d = atoi(argv[3]), tids[2];
  if (argc > 4) { /* a worker: 0 waits for 1 to join */
    if (atoi(argv[4]) == 0) {
      pvm_joingroup("whyj");
      while (pvm_gettid("whyj", 1) < 0) work(10);
    } else {
      work(d);
      pvm_joingroup("whyj");
    }
    pvm_barrier("whyj", 2);
    pvm_lvgroup("whyj");
    return 0;
  }
  char *args0[] = {"join", argv[2], argv[3], "0", NULL};
  char *args1[] = {"join", argv[2], argv[3], "1", NULL};
  spawn(self, args0, 1, &tids[0]);
  spawn(self, args1, 1, &tids[1]);
  printf("join spawned\n");
  return 0;
}

int main(int argc, char **argv) {
  int rc = 1;
  if (pvm_mytid() < 0) return 1;
  if (argc >= 6 && strcmp(argv[1], "barrier") == 0) rc = barrier(argv[0], argc, argv);
  else if (argc >= 5 && strcmp(argv[1], "chain") == 0) rc = chain(argv[0], argc, argv);
  else if (argc >= 5 && strcmp(argv[1], "order") == 0) rc = order(argv[0], argc, argv);
  else if (argc >= 6 && strcmp(argv[1], "reduce") == 0) rc = reduce(argv[0], argc, argv);
  else if (argc >= 4 && strcmp(argv[1], "spawn") == 0) rc = spawnLate(argv[0], argc, argv);
  else if (argc >= 4 && strcmp(argv[1], "join") == 0) rc = join(argv[0], argc, argv);
  else printf("usage: why_slow barrier N R W D | chain R W D | order R W D | reduce N R W D | spawn W D | join W D\n");
  pvm_exit();
  return rc;
}
