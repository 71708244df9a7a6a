/* recvfhang: a receive that never returns because the program's own
 * matching function (pvm_recvf) accepts nothing.  The parent spawns one
 * copy of itself, installs a matching function that looks at every
 * message with pvm_bufinfo and refuses it, and waits in pvm_recv for the
 * child's tag-1 message, which is there but never accepted.  The test ends
 * the parent with SIGTERM. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "xab.h"

static int refuse_all(int mid, int tid, int tag) {
  int bytes, msgtag, src;
  (void)tid;
  (void)tag;
  pvm_bufinfo(mid, &bytes, &msgtag, &src);
  return 0;
}

int main(void) {
  int kid, one = 1;
  int parent = pvm_parent();
  if (parent == PvmNoParent || parent == PvmParentNotSet) {
    if (pvm_spawn("recvfhang", NULL, PvmTaskDefault, "", 1, &kid) != 1) return 1;
    pvm_recvf(refuse_all);
    printf("waiting\n");
    fflush(stdout);
    pvm_recv(kid, 1); /* never returns */
  } else {
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&one, 1, 1);
    pvm_send(parent, 1);
  }
  pvm_exit();
  return 0;
}
