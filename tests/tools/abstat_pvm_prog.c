/*
 * abstat_pvm_prog.c -- PVM programs in the shape of bugs whose evidence
 * sits in the trace, for abstat's tests (abstat_pvm_report_test.cpp).
 * Built with libab (xab.h); a child is spawned by the program's own name.
 *
 *   abstat_pvm_prog precvint   the parent psends one PVM_DOUBLE to a child,
 *                              which receives it with precv as one PVM_INT
 *   abstat_pvm_prog badcalls   psend to tid 0 (PvmBadParam), then upkint
 *                              with no receive buffer (PvmNoBuf)
 *   abstat_pvm_prog ring N     a token ring of N tasks: the token goes round
 *                              once; then every task waits 0.2 s for another
 *                              with pvm_trecv, takes the timeout for a
 *                              message and unpacks it (PvmNoBuf)
 *   abstat_pvm_prog halves     a parent sends each of two children a half
 *                              and takes their answers from any task, the
 *                              first for the left child's: a message race
 *                              in every run, whichever answer comes first;
 *                              then it asks them again one after the other
 *                              (the right child only once the left one has
 *                              answered), receiving from any task: no race
 */
#include "xab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define TAG_TOKEN 5
#define TAG_DATA 7
#define TAG_TIDS 9

static const char *self;

static void spawn(char **args, int n, int *tids) {
  if (pvm_spawn((char *)self, args, PvmTaskDefault, "", n, tids) != n) {
    printf("spawn failed\n");
    pvm_exit();
    exit(1);
  }
}

static int precvint(int child) {
  if (!child) {
    char *args[] = {"precvint", "child", NULL};
    int tid = 0;
    double d = 2.5;
    spawn(args, 1, &tid);
    pvm_psend(tid, TAG_DATA, &d, 1, PVM_DOUBLE);
    pvm_recv(tid, TAG_DATA); /* the child says it is done */
  } else {
    int v = 0, rtid = 0, rtag = 0, rlen = 0;
    pvm_precv(pvm_parent(), TAG_DATA, &v, 1, PVM_INT, &rtid, &rtag, &rlen);
    pvm_initsend(PvmDataDefault);
    pvm_send(pvm_parent(), TAG_DATA);
  }
  return 0;
}

static int badcalls(void) {
  double d = 1.0;
  int v = 0;
  printf("psend to tid 0: %d\n", pvm_psend(0, TAG_DATA, &d, 1, PVM_DOUBLE));
  pvm_setrbuf(0);
  printf("upkint without a receive buffer: %d\n", pvm_upkint(&v, 1, 1));
  return 0;
}

static int ring(int n, int child) {
  int tids[64], me = 0, token = 0, extra = 0;
  if (n < 2 || n > 64) return 2;
  if (!child) {
    char arg[16];
    snprintf(arg, sizeof arg, "%d", n);
    char *args[] = {"ring", arg, "child", NULL};
    tids[0] = pvm_mytid();
    spawn(args, n - 1, tids + 1);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(tids, n, 1);
    pvm_mcast(tids + 1, n - 1, TAG_TIDS);
  } else {
    pvm_recv(pvm_parent(), TAG_TIDS);
    pvm_upkint(tids, n, 1);
  }
  for (int i = 0; i < n; i++)
    if (tids[i] == pvm_mytid()) me = i;
  if (me == 0) {
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&token, 1, 1);
    pvm_send(tids[1], TAG_TOKEN);
    pvm_recv(tids[n - 1], TAG_TOKEN);
    pvm_upkint(&token, 1, 1);
  } else {
    pvm_recv(tids[me - 1], TAG_TOKEN);
    pvm_upkint(&token, 1, 1);
    token++;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&token, 1, 1);
    pvm_send(tids[(me + 1) % n], TAG_TOKEN);
  }
  /* The bug: a second token never comes; the timeout is taken for one. */
  struct timeval tmout = {0, 200000};
  pvm_trecv(-1, TAG_TOKEN, &tmout);
  pvm_upkint(&extra, 1, 1);
  if (me == 0) printf("token went round: %d\n", token);
  return 0;
}

static int halves(int child) {
  int v = 0;
  if (!child) {
    char *args[] = {"halves", "child", NULL};
    int tids[2], left = 0, right = 0;
    spawn(args, 2, tids);
    for (int k = 0; k < 2; k++) {
      v = k + 1;
      pvm_initsend(PvmDataDefault);
      pvm_pkint(&v, 1, 1);
      pvm_send(tids[k], TAG_DATA);
    }
    pvm_recv(-1, TAG_DATA); /* the bug: taken for the left child's answer */
    pvm_upkint(&left, 1, 1);
    pvm_recv(-1, TAG_DATA);
    pvm_upkint(&right, 1, 1);
    for (int k = 0; k < 2; k++) { /* one at a time: nothing to race */
      pvm_initsend(PvmDataDefault);
      pvm_pkint(&v, 1, 1);
      pvm_send(tids[k], TAG_DATA);
      pvm_recv(-1, TAG_DATA);
      pvm_upkint(&v, 1, 1);
    }
    printf("halves: answers %d\n", left + right);
  } else {
    for (int k = 0; k < 2; k++) {
      pvm_recv(pvm_parent(), TAG_DATA);
      pvm_upkint(&v, 1, 1);
      v *= 10;
      pvm_initsend(PvmDataDefault);
      pvm_pkint(&v, 1, 1);
      pvm_send(pvm_parent(), TAG_DATA);
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *slash = strrchr(argv[0], '/');
  self = slash ? slash + 1 : argv[0];
  if (pvm_mytid() < 0) return 1;
  pvm_setopt(PvmAutoErr, 0); /* the failures are the point: no libpvm lines */
  int rc = 2;
  if (argc >= 2 && strcmp(argv[1], "precvint") == 0) rc = precvint(argc >= 3);
  else if (argc >= 2 && strcmp(argv[1], "badcalls") == 0) rc = badcalls();
  else if (argc >= 3 && strcmp(argv[1], "ring") == 0) rc = ring(atoi(argv[2]), argc >= 4);
  else if (argc >= 2 && strcmp(argv[1], "halves") == 0) rc = halves(argc >= 3);
  pvm_exit();
  return rc;
}
