/* clock_tree [DEPTH [ROUNDS]]: a recursive spawn tree, the shape of the
 * programs that showed clocks that disagree (tests/multihost/clocks_test.sh).
 * Each task above the leaves spawns two copies of itself (PvmTaskDefault:
 * pvmd places them round-robin over the hosts), then for ROUNDS rounds
 * sends each child a number and waits for both answers; a leaf answers
 * its parent ROUNDS times.  Then every task sends its subtree's task count
 * up and calls pvm_exit.  The root prints "tree N tasks" (2^(DEPTH+1) - 1
 * when every spawn worked).  No libab: built plain for abrun, and with
 * -include xab.h for abmon. */
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>

enum { TAG_GO = 11, TAG_ANSWER = 12, TAG_COUNT = 13 };

int main(int argc, char **argv) {
  int depth = argc > 1 ? atoi(argv[1]) : 3, rounds = argc > 2 ? atoi(argv[2]) : 20;
  int parent, kids[2], n = 0, count = 1;
  char d[16], r[16];
  char *args[] = {d, r, NULL};
  if (pvm_mytid() < 0) return 1;
  parent = pvm_parent();
  if (depth > 0) {
    snprintf(d, sizeof d, "%d", depth - 1);
    snprintf(r, sizeof r, "%d", rounds);
    n = pvm_spawn(argv[0], args, PvmTaskDefault, "", 2, kids);
    if (n < 0) n = 0;
  }
  for (int round = 0; round < rounds; round++) {
    int x = round;
    if (parent > 0) {
      pvm_recv(parent, TAG_GO);
      pvm_upkint(&x, 1, 1);
    }
    for (int k = 0; k < n; k++) {
      pvm_initsend(PvmDataDefault);
      pvm_pkint(&x, 1, 1);
      pvm_send(kids[k], TAG_GO);
    }
    for (int k = 0; k < n; k++) {
      int y;
      pvm_recv(kids[k], TAG_ANSWER);
      pvm_upkint(&y, 1, 1);
    }
    if (parent > 0) {
      pvm_initsend(PvmDataDefault);
      pvm_pkint(&x, 1, 1);
      pvm_send(parent, TAG_ANSWER);
    }
  }
  for (int k = 0; k < n; k++) {
    int c;
    pvm_recv(kids[k], TAG_COUNT);
    pvm_upkint(&c, 1, 1);
    count += c;
  }
  if (parent > 0) {
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&count, 1, 1);
    pvm_send(parent, TAG_COUNT);
  } else {
    printf("tree %d tasks\n", count);
  }
  pvm_exit();
  return 0;
}
