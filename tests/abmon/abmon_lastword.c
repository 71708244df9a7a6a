/* abmon_lastword: a task that says on its standard output that it ends,
 * then ends at once.  Its records are all still in libab's buffer: they go
 * to abmon in pvm_exit, after the task's end clock exchanges
 * (tests/abmon/abmon_program_test.cpp: abmon is stopped during them). */
#include <stdio.h>

#include "xab.h"

int main(void) {
  int me = pvm_mytid();
  if (me < 0) return 1;
  printf("ending t%x\n", (unsigned)me);
  fflush(stdout);
  pvm_exit();
  return 0;
}
