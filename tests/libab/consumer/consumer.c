/* A user's program: unchanged but for the include. */
#include "xab.h"
#include <stdio.h>
/* A user's own tool may read the wire format: installed beside xab.h. */
#include <xab/version.h>
#include <xab/wire.h>
int main(void) {
  xab_mark("consumer built");
  printf("%s\n", pvm_version());
  printf("xab %s, wire version %d\n", XAB_VERSION_STRING, XAB_WIRE_VERSION);
  return 0;
}
