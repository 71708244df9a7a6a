/* abrun_montecarlo ROUNDS WORKERS CHUNKS: a master/worker Monte Carlo
 * estimate of pi, no libab (tests/examples/abrun_window_test.sh).  Each
 * round the master spawns WORKERS copies of itself and deals each CHUNKS
 * chunks of points (tag 1), one at a time: a worker counts the points of a
 * chunk inside the quarter circle and answers (tag 2), then waits for the
 * next.  After its last answer a worker receives a stop (tag 3) and returns
 * from main without pvm_exit: PVM's tracer loses the last events of such a
 * task (its stop's receive, often more).  The master prints the estimate
 * and calls pvm_exit. */
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>

enum { kWork = 1, kAnswer = 2, kStop = 3, kPoints = 2000 };

static int worker(int parent) {
  for (;;) {
    int bufid = pvm_recv(parent, -1);
    int tag = -1, bytes = 0, src = 0;
    if (bufid < 0 || pvm_bufinfo(bufid, &bytes, &tag, &src) < 0 || tag != kWork) return 0;
    unsigned seed = 0;
    pvm_upkuint(&seed, 1, 1);
    int in = 0;
    for (int i = 0; i < kPoints; ++i) {
      double x = (double)rand_r(&seed) / RAND_MAX, y = (double)rand_r(&seed) / RAND_MAX;
      in += x * x + y * y <= 1.0;
    }
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&in, 1, 1);
    pvm_send(parent, kAnswer);
  }
}

int main(int argc, char **argv) {
  if (pvm_mytid() < 0) return 1;
  int parent = pvm_parent();
  if (parent > 0) return worker(parent);
  int rounds = argc > 1 ? atoi(argv[1]) : 4;
  int n = argc > 2 ? atoi(argv[2]) : 4;
  int chunks = argc > 3 ? atoi(argv[3]) : 50;
  int tids[64];
  if (n < 1 || n > 64) n = 4;
  long inside = 0, total = 0;
  unsigned seed = 1;
  for (int r = 0; r < rounds; ++r) {
    int started = pvm_spawn("abrun_montecarlo", NULL, PvmTaskDefault, "", n, tids);
    if (started < 1) break;
    for (int c = 0; c < chunks; ++c) {
      for (int w = 0; w < started; ++w) {
        pvm_initsend(PvmDataDefault);
        pvm_pkuint(&seed, 1, 1);
        ++seed;
        pvm_send(tids[w], kWork);
      }
      for (int w = 0; w < started; ++w) {
        int in = 0;
        pvm_recv(-1, kAnswer);
        pvm_upkint(&in, 1, 1);
        inside += in;
        total += kPoints;
      }
    }
    for (int w = 0; w < started; ++w) {
      pvm_initsend(PvmDataDefault);
      pvm_send(tids[w], kStop);
    }
  }
  printf("pi is about %.4f (%ld points)\n", total ? 4.0 * (double)inside / (double)total : 0.0, total);
  pvm_exit();
  return 0;
}
