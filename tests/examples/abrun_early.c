/* abrun_early N [quick]: a parent spawns N copies of itself, sends each a
 * message (tag 1) and ends at once with status 21, without pvm_exit; no
 * libab (tests/examples/abrun_safety_test.sh).  Each child receives it,
 * works for a while after its parent has gone (500 ms), prints a line and
 * ends: the even ones with pvm_exit, the odd ones without.  abmon waits for
 * every task the program started, and the trace tells the two ends apart.
 * With "quick" every child answers (tag 2) right after its receive and
 * ends without pvm_exit, and the parent waits for the answers (3 s at
 * most): PVM may lose the last messages of such a task (its trace events
 * too). */
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
  int me = pvm_mytid();
  if (me < 0) return 1;
  int parent = pvm_parent();
  if (parent > 0) {
    int who = -1;
    pvm_recv(parent, 1);
    pvm_upkint(&who, 1, 1);
    if (argc > 1) { /* "quick": answers, and is gone at once without pvm_exit */
      pvm_initsend(PvmDataDefault);
      pvm_pkint(&who, 1, 1);
      pvm_send(parent, 2);
      return 0;
    }
    struct timespec work = {0, 500 * 1000 * 1000};
    nanosleep(&work, NULL);
    printf("child %d done\n", who);
    fflush(stdout);
    if (who % 2 == 0) pvm_exit();
    return 0;
  }
  int n = argc > 1 ? atoi(argv[1]) : 4;
  int tids[64];
  if (n < 1 || n > 64) n = 4;
  char *quick[] = {"quick", NULL};
  int started = pvm_spawn("abrun_early", argc > 2 ? quick : NULL, PvmTaskDefault, "", n, tids);
  for (int i = 0; i < started; ++i) {
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&i, 1, 1);
    pvm_send(tids[i], 1);
  }
  printf("started %d\n", started);
  if (argc > 2) { /* "quick": their answers, for 3 s at most */
    struct timeval wait = {3, 0};
    for (int got = 0; got < started && pvm_trecv(-1, 2, &wait) > 0; ++got) {}
  }
  return 21;
}
