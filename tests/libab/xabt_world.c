/*
 * xabt_world.c -- what a program sees of the virtual machine and of PVM,
 * with libab and without: libab's tests compare the two builds' output
 * (xabt_world, xabt_world_plain), and libab's trace of the first.  Output
 * holds no tids, only what is the same on every run.
 *
 *   xabt_world tasks N    spawn N-1 children (by its own name) and list
 *                         the VM's tasks, as a program that counts its
 *                         peers does (PVM's pvm_tasks); the children wait
 *                         for a message, then exit (tasks whose process
 *                         has ended are left out)
 *   xabt_world errors     a sweep of failing calls: each prints its result
 *                         on stdout, libpvm its error line on stderr
 *   xabt_world inplace    in-place messages (PvmDataInPlace) to itself:
 *                         prints the size each arrived with
 *   xabt_world twoexit [catchout-first]
 *                         pvm_exit twice after pvm_catchout: libpvm's
 *                         second exit enrols the process anew and exits
 *                         it (its error lines on stderr); then a third
 *                         enrolment by pvm_mytid, and its exit.  The first
 *                         call is pvm_mytid, or pvm_catchout itself
 */
#include <stdio.h> /* before pvm3.h, which declares pvm_catchout only after it */

#include "xab.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *self_name(const char *argv0) {
  const char *slash = strrchr(argv0, '/');
  return slash ? slash + 1 : argv0;
}

static const char *base(const char *path) {
  const char *slash = path ? strrchr(path, '/') : NULL;
  return slash ? slash + 1 : path ? path : "";
}

/* ---------------------------------------------------------------- tasks */

#define GO_TAG 4711
#define EXIT_TAG 4712

static const char *prog_name;

static const char *a_out(const char *path) { /* the two builds have two names */
  return strcmp(base(path), prog_name) == 0 ? "this program" : base(path);
}


/* A task of a run before whose process has ended may still be listed for
 * a moment, until pvmd has seen it go, and a process that is connecting
 * to pvmd is listed with pid 0 until it has said who it is: the listing
 * leaves those out (the tests' VMs have one host, so every task's pid is
 * on this one). */
static int alive(const struct pvmtaskinfo *t) {
  return t->ti_pid > 0 && (kill(t->ti_pid, 0) == 0 || errno == EPERM);
}

static void list_tasks(const char *what, int where, int me, const int *kids, int nkids) {
  int n = -1, live = 0;
  struct pvmtaskinfo *t = NULL;
  int rc = pvm_tasks(where, &n, &t);
  for (int i = 0; i < n; i++) live += alive(&t[i]);
  printf("%s: rc=%d ntask=%d\n", what, rc, live);
  for (int i = 0; i < n; i++) {
    if (!alive(&t[i])) continue;
    const char *who = t[i].ti_tid == me ? "me" : "other";
    for (int k = 0; k < nkids; k++)
      if (t[i].ti_tid == kids[k]) who = "child";
    /* a program that takes every task with a parent for a peer */
    printf("  %s parent=%s a_out=%s\n", who, t[i].ti_ptid == me ? "me" : t[i].ti_ptid ? "other" : "none",
           a_out(t[i].ti_a_out));
  }
}

static int mode_tasks(const char *prog, int ntasks) {
  prog_name = prog;
  int me = pvm_mytid();
  int kids[16], nkids = ntasks - 1 > 16 ? 16 : ntasks - 1;
  char *args[] = {"child", NULL};
  if (nkids > 0 && pvm_spawn((char *)prog, args, PvmTaskDefault, "", nkids, kids) != nkids) return 1;
  list_tasks("tasks(0)", 0, me, kids, nkids);
  list_tasks("tasks(host)", pvm_tidtohost(me), me, kids, nkids);
  list_tasks("tasks(me)", me, me, kids, nkids);
  pvm_initsend(PvmDataDefault);
  if (nkids > 0) pvm_notify(PvmTaskExit, EXIT_TAG, nkids, kids);
  if (nkids > 0) pvm_mcast(kids, nkids, GO_TAG);
  for (int k = 0; k < nkids; k++) pvm_recv(-1, EXIT_TAG); /* none left when it ends */
  pvm_exit();
  return 0;
}

static int mode_child(void) {
  pvm_recv(pvm_parent(), GO_TAG);
  pvm_exit();
  return 0;
}

/* ---------------------------------------------------------------- errors */

/* A tid no task has: on this host, a task number PVM has not given (a
 * send to it succeeds: pvmd drops it). */
#define NO_SUCH_TID(me) (((me) & ~0x3ffff) | 0x3fff0)

static int mode_errors(void) {
  int me = pvm_mytid();
  int bad = NO_SUCH_TID(me), i = 1, n = 0, *tids = NULL, bytes, tag, src;
  double d = 1.5;
  struct pvmtaskinfo *t = NULL;
  printf("psend bad tid: %d\n", pvm_psend(bad, 1, &i, 1, PVM_INT));
  printf("psend tid 0: %d\n", pvm_psend(0, 1, &i, 1, PVM_INT));
  printf("psend bad type: %d\n", pvm_psend(me, 1, &i, 1, 99));
  printf("psend string: %d\n", pvm_psend(me, 1, "x", 1, PVM_STR));
  pvm_initsend(PvmDataDefault);
  pvm_pkdouble(&d, 1, 1);
  printf("send bad tid: %d\n", pvm_send(bad, 1));
  printf("send tid 0: %d\n", pvm_send(0, 1));
  printf("send bad tag: %d\n", pvm_send(me, -5));
  int two[2] = {bad, 0};
  printf("mcast bad tids: %d\n", pvm_mcast(two, 2, 1));
  printf("bcast no group: %d\n", pvm_bcast("xabt.nogroup", 1));
  printf("barrier no group: %d\n", pvm_barrier("xabt.nogroup", 2));
  printf("getinst no group: %d\n", pvm_getinst("xabt.nogroup", me));
  printf("gettid no group: %d\n", pvm_gettid("xabt.nogroup", 0));
  printf("gsize no group: %d\n", pvm_gsize("xabt.nogroup"));
  printf("lvgroup no group: %d\n", pvm_lvgroup("xabt.nogroup"));
  printf("reduce no group: %d\n", pvm_reduce(PvmSum, &i, 1, PVM_INT, 1, "xabt.nogroup", 0));
  printf("freebuf bad: %d\n", pvm_freebuf(9999));
  printf("setsbuf bad: %d\n", pvm_setsbuf(9999));
  printf("setrbuf bad: %d\n", pvm_setrbuf(9999));
  printf("bufinfo bad: %d\n", pvm_bufinfo(9999, &bytes, &tag, &src));
  pvm_setrbuf(0);
  printf("upkint no buffer: %d\n", pvm_upkint(&i, 1, 1));
  pvm_freebuf(pvm_setsbuf(0));
  printf("pkint no buffer: %d\n", pvm_pkint(&i, 1, 1));
  printf("send no buffer: %d\n", pvm_send(me, 1));
  printf("nrecv bad tid: %d\n", pvm_nrecv(-7, 1));
  printf("probe bad tid: %d\n", pvm_probe(-7, 1));
  printf("kill bad tid: %d\n", pvm_kill(bad));
  printf("sendsig bad tid: %d\n", pvm_sendsig(bad, 0));
  printf("pstat bad tid: %d\n", pvm_pstat(bad));
  printf("tasks bad tid: %d\n", pvm_tasks(bad, &n, &t));
  printf("recvinfo none: %d\n", pvm_recvinfo("xabt.nothing", 0, PvmMboxDefault));
  printf("delinfo none: %d\n", pvm_delinfo("xabt.nothing", 0, PvmMboxDefault));
  printf("notify bad what: %d\n", pvm_notify(12345, 1, 1, &me));
  printf("siblings: %d\n", pvm_siblings(&tids) >= 0);
  printf("exit: %d\n", pvm_exit());
  return 0;
}

/* ---------------------------------------------------------------- in place */

static void arrived(const char *what) {
  int bytes = -1, tag, src;
  pvm_bufinfo(pvm_recv(-1, 5), &bytes, &tag, &src);
  printf("%s: %d bytes\n", what, bytes);
}

static int mode_inplace(void) {
  int me = pvm_mytid();
  int a[10] = {0};
  double d[3] = {0};
  short s[3] = {0};
  char c[5] = "abcd";
  pvm_initsend(PvmDataInPlace);
  pvm_pkint(a, 10, 1);
  pvm_pkdouble(d, 3, 1);
  pvm_send(me, 5);
  arrived("10 int + 3 double");
  int mid = pvm_mkbuf(PvmDataInPlace), old = pvm_setsbuf(mid);
  pvm_pkshort(s, 3, 1);
  pvm_pkbyte(c, 5, 1);
  pvm_pkint(a, 5, 2); /* refused in place: adds nothing */
  pvm_send(me, 5);
  arrived("3 short + 5 byte");
  pvm_freebuf(pvm_setsbuf(old));
  pvm_psend(me, 5, a, 4, PVM_INT);
  arrived("psend 4 int");
  int other = pvm_mkbuf(PvmDataInPlace); /* a second one, made before the first is sent */
  mid = pvm_initsend(PvmDataInPlace);
  pvm_pkfloat((float *)d, 2, 1);
  old = pvm_setsbuf(other);
  pvm_pkdouble(d, 1, 1);
  pvm_send(me, 5);
  arrived("1 double");
  pvm_setsbuf(mid);
  pvm_send(me, 5);
  arrived("2 float");
  pvm_freebuf(other);
  pvm_initsend(PvmDataDefault); /* the same ids again, not in place */
  pvm_pkint(a, 2, 1);
  pvm_send(me, 5);
  arrived("default 2 int");
  pvm_exit();
  return 0;
}

/* ---------------------------------------------------------------- two exits */

static int mode_twoexit(int catchout_first) {
  if (catchout_first) pvm_catchout(stdout);
  int first = pvm_mytid();
  if (!catchout_first) pvm_catchout(stdout);
  printf("exit: %d\n", pvm_exit());
  printf("exit again: %d\n", pvm_exit());
  int again = pvm_mytid();
  printf("enrolled again: %s\n", again > 0 && again != first ? "a new tid" : "no");
  printf("exit: %d\n", pvm_exit());
  return 0;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (!strcmp(mode, "tasks")) return mode_tasks(self_name(argv[0]), argc > 2 ? atoi(argv[2]) : 2);
  if (!strcmp(mode, "child")) return mode_child();
  if (!strcmp(mode, "errors")) return mode_errors();
  if (!strcmp(mode, "inplace")) return mode_inplace();
  if (!strcmp(mode, "twoexit")) return mode_twoexit(argc > 2 && !strcmp(argv[2], "catchout-first"));
  fprintf(stderr, "xabt_world: unknown mode %s\n", mode);
  return 2;
}
