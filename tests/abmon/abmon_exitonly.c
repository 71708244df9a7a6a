/* abmon_exitonly: the parent spawns two copies of itself (argv[0]) whose
 * only PVM call is pvm_exit, after 1 s; libpvm's pvm_exit does nothing for
 * a process that never enrolled, so they never speak to PVM or abmon.  The
 * parent asks pvmd for their exits (pvm_notify PvmTaskExit) and receives
 * both notices (tests/abmon/abmon_program_test.cpp). */
#include <stdio.h>
#include <unistd.h>

#include "xab.h"

int main(int argc, char **argv) {
  if (argc > 1) {
    sleep(1);
    pvm_exit();
    return 0;
  }
  char *kid[] = {"kid", NULL};
  int tids[2];
  int n = pvm_spawn(argv[0], kid, PvmTaskDefault, "", 2, tids);
  if (n > 0) pvm_notify(PvmTaskExit, 100, n, tids);
  for (int i = 0; i < n; i++) pvm_recv(-1, 100);
  printf("spawned %d, both ended\n", n);
  pvm_exit();
  return n == 2 ? 0 : 1;
}
