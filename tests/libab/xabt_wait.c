/*
 * xabt_wait.c -- a task that waits for a message that never comes: its
 * first call, then pvm_trecv with a timeout of SECONDS (default 1.5), then
 * pvm_exit.  libab's clock tests run it under an abmon slow to answer
 * (test_libab_clock.cpp): the wait lets abmon's late answers arrive before
 * the task's next clock exchanges.
 *
 *   xabt_wait [SECONDS]
 */
#include "xab.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  double s = argc > 1 ? atof(argv[1]) : 1.5;
  struct timeval tv = {(long)s, (long)((s - (long)s) * 1e6)};
  int me = pvm_mytid();
  if (me < 0) return 1;
  int rc = pvm_trecv(-1, 999, &tv);
  printf("trecv=%d\n", rc);
  pvm_exit();
  return 0;
}
