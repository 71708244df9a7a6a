/* abmon_exitonly: the parent spawns two copies of itself (argv[0]), one
 * whose only PVM call is pvm_exit ("exit": libpvm enrols it there, as
 * libab does), one that makes no PVM call at all ("silent": it never
 * speaks to PVM or abmon), each after 1 s.  The parent asks pvmd for
 * their exits (pvm_notify PvmTaskExit) and receives both notices
 * (tests/abmon/abmon_program_test.cpp). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "xab.h"

int main(int argc, char **argv) {
  if (argc > 1) {
    sleep(1);
    if (strcmp(argv[1], "exit") == 0) pvm_exit();
    return 0;
  }
  char *exit_kid[] = {"exit", NULL}, *silent_kid[] = {"silent", NULL};
  int tids[2];
  int n = pvm_spawn(argv[0], exit_kid, PvmTaskDefault, "", 1, tids);
  n += pvm_spawn(argv[0], silent_kid, PvmTaskDefault, "", 1, tids + 1);
  if (n == 2) pvm_notify(PvmTaskExit, 100, n, tids);
  for (int i = 0; i < n; i++) pvm_recv(-1, 100);
  printf("spawned %d, both ended\n", n);
  pvm_exit();
  return n == 2 ? 0 : 1;
}
