/*
 * f2x_calls.c -- the Fortran entry points that share one shape.
 *
 * One row per libfpvm3 routine: X(name, call, arity, kinds of the arguments
 * before the result).  `pvmfsend(tid, msgtag, info)` is
 * X(pvmfsend, xab_send, 2, I, I): `info = xab_send(*tid, *msgtag)`.
 * The kinds are explained in f2x.h.  Argument orders and results are
 * libfpvm3's (PVM 3.4.6, libfpvm/pvmf*.m4); where libfpvm3 does a little
 * more than pass arguments on, a small adapter below does the same.
 */
#include <stdio.h>

#include "f2x.h"

/* ---------------------------------------------------------------- adapters */

/* pvmfmcast(ntid, tids, msgtag, info): the count comes first in Fortran. */
static int f2x_mcast(int ntid, int *tids, int tag) { return xab_mcast(tids, ntid, tag); }

/* pvmftrecv(tid, msgtag, sec, usec, info): sec = -1 means wait forever. */
static int f2x_trecv(int tid, int tag, int sec, int usec) {
  struct timeval tmout = {.tv_sec = sec, .tv_usec = usec};
  return xab_trecv(tid, tag, sec == -1 ? NULL : &tmout);
}

/* pvmfspawn(task, flag, where, ntask, tids, numt): no argv from Fortran. */
static int f2x_spawn(char *file, int flag, char *where, int count, int *tids) {
  return xab_spawn(file, NULL, flag, where, count, tids);
}

/* pvmfaddhost/pvmfdelhost(host, info): info is the host's dtid (or the
 * error); pvm_addhosts' own result (hosts added) when it failed. */
static int one_host(int (*call)(char **, int, int *), char *host) {
  int dtid = 0;
  int rc = call(&host, 1, &dtid);
  return rc >= 0 ? dtid : rc;
}
static int f2x_addhost(char *host) { return one_host(xab_addhosts, host); }
static int f2x_delhost(char *host) { return one_host(xab_delhosts, host); }

/* pvmfcatchout(onoff, info): Fortran cannot name a FILE; on means stdout. */
static int f2x_catchout(int on) { return xab_catchout(on ? stdout : NULL); }

/* pvmfhostsync(host, clksec, clkusec, deltasec, deltausec, info). */
static int f2x_hostsync(int host, int *sec, int *usec, int *dsec, int *dusec) {
  struct timeval clk = {0, 0}, delta = {0, 0};
  int rc = xab_hostsync(host, &clk, &delta);
  *sec = (int)clk.tv_sec;
  *usec = (int)clk.tv_usec;
  *dsec = (int)delta.tv_sec;
  *dusec = (int)delta.tv_usec;
  return rc;
}

/* pvmfaddmhf(src, tag, ctx, mid, func, info): libfpvm3 ignores `mid`. */
static int f2x_addmhf(int src, int tag, int ctx, int *mid, int (*fn)(int)) {
  (void)mid;
  return xab_addmhf(src, tag, ctx, fn);
}

/* ---------------------------------------------------------------- the table */

/* clang-format off */
#define F2X_CALLS(X) \
  /* message buffers */ \
  X(pvmfinitsend,    xab_initsend,    1, I) \
  X(pvmfmkbuf,       xab_mkbuf,       1, I) \
  X(pvmffreebuf,     xab_freebuf,     1, I) \
  X(pvmfgetsbuf,     xab_getsbuf,     0, -) \
  X(pvmfgetrbuf,     xab_getrbuf,     0, -) \
  X(pvmfsetsbuf,     xab_setsbuf,     1, I) \
  X(pvmfsetrbuf,     xab_setrbuf,     1, I) \
  X(pvmfbufinfo,     xab_bufinfo,     4, I, P, P, P) \
  /* sending and receiving */ \
  X(pvmfsend,        xab_send,        2, I, I) \
  X(pvmfmcast,       f2x_mcast,       3, I, P, I) \
  X(pvmfpsend,       xab_psend,       5, I, I, V, I, I) \
  X(pvmfrecv,        xab_recv,        2, I, I) \
  X(pvmfnrecv,       xab_nrecv,       2, I, I) \
  X(pvmftrecv,       f2x_trecv,       4, I, I, I, I) \
  X(pvmfprobe,       xab_probe,       2, I, I) \
  X(pvmfprecv,       xab_precv,       8, I, I, V, I, I, P, P, P) \
  /* groups and collectives */ \
  X(pvmfjoingroup,   xab_joingroup,   1, G) \
  X(pvmflvgroup,     xab_lvgroup,     1, G) \
  X(pvmfgsize,       xab_gsize,       1, G) \
  X(pvmfbarrier,     xab_barrier,     2, G, I) \
  X(pvmfbcast,       xab_bcast,       2, G, I) \
  X(pvmfgetinst,     xab_getinst,     2, G, I) \
  X(pvmfgettid,      xab_gettid,      2, G, I) \
  X(pvmffreezegroup, xab_freezegroup, 2, G, I) \
  X(pvmfreduce,      xab_reduce,      7, R, V, I, I, I, G, I) \
  X(pvmfgather,      xab_gather,      7, V, V, I, I, I, G, I) \
  X(pvmfscatter,     xab_scatter,     7, V, V, I, I, I, G, I) \
  /* task control and the virtual machine */ \
  X(pvmfmytid,       xab_mytid,       0, -) \
  X(pvmfparent,      xab_parent,      0, -) \
  X(pvmfspawn,       f2x_spawn,       5, H, I, W, I, P) \
  X(pvmfexit,        xab_exit,        0, -) \
  X(pvmfkill,        xab_kill,        1, I) \
  X(pvmfnotify,      xab_notify,      4, I, I, I, P) \
  X(pvmfaddhost,     f2x_addhost,     1, H) \
  X(pvmfdelhost,     f2x_delhost,     1, H) \
  X(pvmfpstat,       xab_pstat,       1, I) \
  X(pvmfmstat,       xab_mstat,       1, H) \
  X(pvmfsendsig,     xab_sendsig,     2, I, I) \
  X(pvmfhalt,        xab_halt,        0, -) \
  X(pvmftidtohost,   xab_tidtohost,   1, I) \
  X(pvmfarchcode,    xab_archcode,    1, H) \
  X(pvmfgetopt,      xab_getopt,      1, I) \
  X(pvmfsetopt,      xab_setopt,      2, I, I) \
  X(pvmfcatchout,    f2x_catchout,    1, I) \
  X(pvmfhostsync,    f2x_hostsync,    5, I, P, P, P, P) \
  /* mailbox */ \
  X(pvmfputinfo,     xab_putinfo,     3, H, I, I) \
  X(pvmfrecvinfo,    xab_recvinfo,    3, H, I, I) \
  X(pvmfdelinfo,     xab_delinfo,     3, H, I, I) \
  /* contexts and message handlers */ \
  X(pvmfnewcontext,  xab_newcontext,  0, -) \
  X(pvmfsetcontext,  xab_setcontext,  1, I) \
  /* sic: PVM 3.4.6's pvmffreecontext calls pvm_setcontext, not \
   * pvm_freecontext; f2x keeps that so programs behave as they did. */ \
  X(pvmffreecontext, xab_setcontext,  1, I) \
  X(pvmfgetcontext,  xab_getcontext,  0, -) \
  X(pvmfaddmhf,      f2x_addmhf,      5, I, I, I, P, M) \
  X(pvmfdelmhf,      xab_delmhf,      1, I)
/* clang-format on */

F2X_CALLS(F2X_DEFINE)
