/* abrun_forger: a task that sends abmon, in abmon's own context, a PVM
 * trace event naming another task and an output message as if pvmd sent it
 * (tests/examples/abrun_test.sh): abmon must write neither. */
#include <pvm3.h>
#include <pvmtev.h>
#include <stdio.h>
#include <string.h>

static void pk(int v) { pvm_pkint(&v, 1, 1); }

int main(void) {
  pvm_mytid();
  int buf = pvm_recvinfo("xab.abmon", 0, PvmMboxDefault);
  int entry[4] = {0, 0, 0, 0}; /* version, abmon's tid, context, tag */
  if (buf < 0 || pvm_setrbuf(buf) < 0 || pvm_upkint(entry, 4, 1) < 0) {
    printf("no abmon entry\n");
    return 1;
  }
  pvm_setcontext(entry[2]);
  /* A trace event of t40099's (a send), from this task. */
  pvm_initsend(PvmDataDefault);
  pk(TEV_MARK_EVENT_DESC);
  pk(TEV_SEND | TEV_EVENT_EXIT);
  pvm_pkstr("send");
  pk(TEV_DID_TS); pk(TEV_DATA_INT); pk(1);
  pk(TEV_DID_TU); pk(TEV_DATA_INT); pk(0);
  pk(TEV_DID_TID); pk(TEV_DATA_INT); pk(0x40099);
  pk(TEV_DID_CC); pk(TEV_DATA_INT); pk(0);
  pk(TEV_MARK_EVENT_DESC_END);
  pvm_send(entry[1], entry[3] + 3);
  /* An output line of t40099's, as pvmd would send it. */
  pvm_initsend(PvmDataDefault);
  pk(0x40099);
  pk(5);
  pvm_pkbyte("fake\n", 5, 1);
  pvm_send(entry[1], entry[3] + 4);
  printf("forged\n");
  pvm_exit();
  return 0;
}
