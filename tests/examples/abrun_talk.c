/* abrun_talk [kill]: a parent spawns two copies of itself, which print two
 * lines each and answer; no libab (tests/examples/abrun_test.sh).  With
 * "kill" the children then wait for a message (tag 99): the parent kills
 * the second one while it waits, lets the first one go, and exits. */
#include <pvm3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int tids[2], killing = argc > 1 && strcmp(argv[1], "kill") == 0;
  char *args[] = {killing ? "kill" : NULL, NULL};
  pvm_mytid();
  if (pvm_parent() == PvmNoParent) {
    int n = pvm_spawn(argv[0], args, PvmTaskDefault, "", 2, tids);
    for (int i = 0; i < n; i++) {
      pvm_initsend(PvmDataDefault);
      pvm_pkint(&i, 1, 1);
      pvm_send(tids[i], 7);
    }
    for (int i = 0; i < n; i++) {
      int x;
      pvm_recv(-1, 8);
      pvm_upkint(&x, 1, 1);
    }
    if (killing && n == 2) {
      sleep(2); /* the child answered and now enters pvm_recv: killed there */
      pvm_kill(tids[1]);
      pvm_initsend(PvmDataDefault);
      pvm_send(tids[0], 99);
    }
    printf("parent done %d\n", n);
  } else {
    int i;
    pvm_recv(pvm_parent(), 7);
    pvm_upkint(&i, 1, 1);
    printf("child %d says hello\n", i);
    printf("second line of %d\n", i);
    fflush(stdout);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&i, 1, 1);
    pvm_send(pvm_parent(), 8);
    if (killing) pvm_recv(pvm_parent(), 99);
  }
  pvm_exit();
  return 0;
}
