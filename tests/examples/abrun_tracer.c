/* abrun_tracer: a second tracer (as XPVM would be): registers with
 * pvm_reg_tracer, says so on stdout, and reads what comes for SECONDS
 * seconds (tests/examples/abrun_test.sh). */
#include <pvm3.h>
#include <pvmtev.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int seconds = argc > 1 ? atoi(argv[1]) : 20;
  pvm_mytid();
  Pvmtmask mask;
  TEV_MASK_INIT(mask);
  int ctx = pvm_newcontext();
  pvm_setcontext(ctx);
  int rc = pvm_reg_tracer(ctx, 100, ctx, 101, mask, 0, PvmTraceFull);
  printf("registered rc=%d\n", rc);
  fflush(stdout);
  for (int i = 0; i < seconds * 10; i++) {
    struct timeval tv = {0, 100000};
    int b = pvm_trecv(-1, -1, &tv);
    if (b > 0) pvm_freebuf(b);
  }
  pvm_exit();
  return 0;
}
