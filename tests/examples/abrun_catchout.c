/* abrun_catchout [N]: a parent collects its children's output
 * (pvm_catchout) and spawns N (default 2) copies of itself, which print a
 * line and leave 500 ms later; no libab
 * (tests/examples/abrun_safety_test.sh).  pvm_catchout's output handler
 * runs inside pvm_spawn: with PVM's handler event traced, libpvm traces
 * the handler's calls from inside its message layer, and the parent
 * aborts or prints libpvm errors a plain run never prints. */
#include <stdio.h> /* before pvm3.h, which declares pvm_catchout(FILE *) after it */
#include <stdlib.h>
#include <time.h>

#include <pvm3.h>

int main(int argc, char **argv) {
  if (pvm_mytid() < 0) return 1;
  if (pvm_parent() > 0) {
    printf("kid here\n");
    fflush(stdout);
    /* Still running when the parent leaves (its pvm_exit then says it
     * waits for them, every time): 500 ms. */
    struct timespec stay = {0, 500 * 1000 * 1000};
    nanosleep(&stay, NULL);
    pvm_exit();
    return 0;
  }
  int n = argc > 1 ? atoi(argv[1]) : 2;
  int tids[64];
  if (n < 1 || n > 64) n = 2;
  pvm_catchout(stdout);
  printf("spawned %d\n", pvm_spawn("abrun_catchout", NULL, PvmTaskDefault, "", n, tids));
  fflush(stdout);
  pvm_exit();
  return 0;
}
