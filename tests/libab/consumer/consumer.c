/* A user's program: unchanged but for the include. */
#include "xab.h"
#include <stdio.h>
int main(void) {
  xab_mark("consumer built");
  printf("%s\n", pvm_version());
  return 0;
}
