/*
 * ab_msg.c -- sending and receiving user messages, with serial numbers.
 *
 * A serial travels in the PVM header's wait id (pvm_setminfo), not in the
 * body: the program's message is byte for byte what it packed.  The sender
 * puts the old wid back after the send; the receiver clears it, so the
 * program's pvm_getminfo shows what it would without libab.
 *
 * A receive records `recv.begin` and waits as PVM's own call does: a
 * message that is already there, or arrives soon (a ping-pong), costs no
 * extra message, and a task that blocks for long still shows it within a
 * fraction of a second, because abmon pokes quiet tasks (ab_poke.c).
 */
#include "ab_core.h"
#include "ab_rr.h"

#include <stdlib.h>

/* ---------------------------------------------------------------- serials */

/* Serials are stamped while abmon listens, and always in record and replay
 * mode, which name messages by them. */
static int serials_wanted(void) { return xab_st.mode != XAB_MODE_OFF || xab_rr_on(); }

int xab_stamp_serial(int mid, int *bytes, int *saved_wid) {
  struct pvmminfo mi;
  if (mid <= 0 || !serials_wanted()) return 0;
  if (xab_rr.replay) xab_replay_publish(); /* before anyone can get a message of ours */
  if (pvm_getminfo(mid, &mi) < 0) return 0;
  xab_st.serial = (xab_st.serial + 1) & XAB_WID_SERIAL_MASK;
  if (xab_st.serial == 0) xab_st.serial = 1;
  *bytes = mi.len > 0 ? mi.len : xab_inplace_bytes(mid);
  *saved_wid = mi.wid;
  mi.wid = XAB_WID_MARK | (int)xab_st.serial;
  pvm_setminfo(mid, &mi);
  return (int)xab_st.serial;
}

void xab_unstamp(int mid, int saved_wid) {
  struct pvmminfo mi;
  if (mid > 0 && pvm_getminfo(mid, &mi) >= 0 && mi.wid != saved_wid) {
    mi.wid = saved_wid;
    pvm_setminfo(mid, &mi);
  }
}

int xab_read_serial(int mid, int clear, int *bytes, int *src, int *tag) {
  struct pvmminfo mi;
  if (mid <= 0 || pvm_getminfo(mid, &mi) < 0) return 0;
  *bytes = mi.len;
  *src = mi.src;
  *tag = mi.tag;
  if ((mi.wid & ~XAB_WID_SERIAL_MASK) != XAB_WID_MARK) return 0;
  int serial = mi.wid & XAB_WID_SERIAL_MASK;
  if (clear) {
    mi.wid = 0;
    pvm_setminfo(mid, &mi);
  }
  return serial;
}

/* ---------------------------------------------------------------- sending */

int xab_send(int tid, int tag) {
  xab_step(XAB_EV_SEND, tid, tag);
  int64_t t = xab_clock();
  xab_own_entry(t);
  int mid = pvm_getsbuf(), bytes = 0, wid = 0;
  int serial = xab_stamp_serial(mid, &bytes, &wid);
  xab_enter();
  int rc = pvm_send(tid, tag);
  xab_leave();
  if (serial) xab_unstamp(mid, wid);
  xab_rec(XAB_EV_SEND, XAB_PHASE_END, t, rc, XAB_A(tid, tag, bytes, serial));
  xab_enrolled(rc >= 0);
  return rc;
}

int xab_mcast(int *tids, int n, int tag) {
  xab_step(XAB_EV_MCAST, 0, tag);
  int64_t t = xab_clock();
  xab_own_entry(t);
  int mid = pvm_getsbuf(), bytes = 0, wid = 0;
  int serial = xab_stamp_serial(mid, &bytes, &wid);
  xab_enter();
  int rc = pvm_mcast(tids, n, tag);
  xab_leave();
  if (serial) xab_unstamp(mid, wid);
  xab_rec_list(XAB_EV_MCAST, t, rc, XAB_A(n, tag, bytes, serial), 0, tids, n);
  xab_enrolled(rc >= 0);
  return rc;
}

/* Bytes of n items of a PVM data type, or a PVM error for a type psend and
 * precv refuse. */
static int typed_bytes(int type, int n) {
  switch (type) {
  case PVM_BYTE: return n;
  case PVM_SHORT: case PVM_USHORT: return n * (int)sizeof(short);
  case PVM_INT: case PVM_UINT: return n * (int)sizeof(int);
  case PVM_LONG: case PVM_ULONG: return n * (int)sizeof(long);
  case PVM_FLOAT: return n * (int)sizeof(float);
  case PVM_CPLX: return n * 2 * (int)sizeof(float);
  case PVM_DOUBLE: return n * (int)sizeof(double);
  case PVM_DCPLX: return n * 2 * (int)sizeof(double);
  case PVM_STR: return PvmNotImpl;
  default: return PvmBadParam;
  }
}

/* PVM's psend is mkbuf + pkbyte + send + free (lpvm.c); doing the same
 * here lets the serial ride on the buffer.  Bad types go to PVM's own
 * psend so the error (and its message) is PVM's.  A failing send says so
 * as in PVM's psend: pvm_send's own error line (PvmAutoErr), then
 * psend's. */
int xab_psend(int tid, int tag, void *p, int n, int type) {
  xab_step(XAB_EV_PSEND, tid, tag);
  int64_t t = xab_clock();
  xab_own_entry(t);
  int len = typed_bytes(type, n), rc, serial = 0, bytes = 0, wid = 0;
  xab_enter();
  if (len < 0 || !serials_wanted()) {
    rc = pvm_psend(tid, tag, p, n, type);
  } else {
    int user_sbuf = pvm_setsbuf(pvm_mkbuf(PvmDataInPlace));
    pvm_pkbyte((char *)p, len, 1);
    serial = xab_stamp_serial(pvm_getsbuf(), &bytes, &wid);
    bytes = len; /* an in-place buffer has no length until it is sent */
    rc = pvm_send(tid, tag);
    if (rc > 0) rc = 0;
    pvm_freebuf(pvm_setsbuf(user_sbuf));
    if (rc < 0) lpvmerr("pvm_psend", rc);
  }
  xab_leave();
  xab_rec(XAB_EV_PSEND, XAB_PHASE_END, t, rc, XAB_A(tid, tag, bytes, serial, type, n));
  xab_enrolled(rc >= 0);
  return rc;
}

/* libgpvm3's own: the group's members, from the group server or from the
 * cache of a frozen group (PVM's pvmgsu_core.c).  Not in pvm3.h, but exported,
 * and what pvm_bcast itself calls. */
extern int gs_get_tidlist(char *group, int msgtag, int *ntids, int **tids, int holes_not_allowed);

/* pvm_bcast, step by step as libgpvm3 does it (PVM's pvmgsu_core.c): the member
 * list, pvm_mytid, the sender taken out (the last member moved into its
 * place), pvm_mcast.  Done here, the list the message went to is the one
 * recorded: asking the group server again before or after could see
 * another membership, and would send the program an extra message.  Same
 * messages, same buffer ids, same results and pvm_errno as PVM's.  *tids
 * (malloc'ed, the caller frees it) and *ndst: the destinations, 0 when
 * nothing was sent. */
static int bcast_as_pvm(char *group, int tag, int **tids, int *ndst) {
  int ntids = 0;
  int cc = gs_get_tidlist(group, tag, &ntids, tids, 0);
  int bailout = cc < 0;
  int mytid = pvm_mytid(); /* called whatever happened before, as PVM does */
  if (mytid < 0 && !bailout) {
    pvm_perror("pvm_bcast");
    cc = PvmSysErr;
    bailout = 1;
  }
  if (!bailout && ntids == 1 && (*tids)[0] == mytid) {
    cc = PvmNoInst;
    bailout = 1;
  }
  *ndst = 0;
  if (!bailout) {
    for (int i = 0; i < ntids; i++)
      if ((*tids)[i] == mytid) {
        (*tids)[i] = (*tids)[--ntids];
        break;
      }
    if ((cc = pvm_mcast(*tids, ntids, tag)) > 0) cc = 0;
    if (cc >= 0) *ndst = ntids;
  }
  if (cc < 0) pvm_errno = cc;
  return cc;
}

int xab_bcast(char *group, int tag) {
  xab_step(XAB_EV_BCAST, 0, tag);
  int64_t t = xab_clock();
  xab_own_entry(t);
  int mid = pvm_getsbuf(), bytes = 0, wid = 0, ndst = 0;
  int *tids = NULL;
  int serial = xab_stamp_serial(mid, &bytes, &wid);
  xab_enter();
  int rc = bcast_as_pvm(group, tag, &tids, &ndst);
  xab_leave();
  if (serial) xab_unstamp(mid, wid);
  xab_rec_list(XAB_EV_BCAST, t, rc, XAB_A(xab_str(group), tag, bytes, serial, ndst), 4, tids, ndst);
  free(tids);
  return rc;
}

/* ---------------------------------------------------------------- receiving */

/* The end record of a receive: the message got, or what was asked. */
static int recv_end(int kind, int64_t t, int mid, int src, int tag, int clear) {
  int bytes = 0, serial = 0;
  if (mid > 0) serial = xab_read_serial(mid, clear, &bytes, &src, &tag);
  xab_rec(kind, XAB_PHASE_END, t, mid, XAB_A(src, tag, bytes, serial));
  return mid;
}

/* Wait for a message, as pvm_trecv(tid, tag, tmout) would (tmout NULL:
 * forever).  A message that is there, or comes soon, costs nothing extra;
 * if the wait gets long, abmon's poke sends the records from inside it. */
static int wait_message(int kind, int tid, int tag, struct timeval *tmout) {
  xab_block_begin();
  xab_enter();
  int mid = xab_rr_on() ? xab_rr_receive(kind, tid, tag, tmout) : tmout ? pvm_trecv(tid, tag, tmout) : pvm_recv(tid, tag);
  xab_leave();
  xab_block_end();
  return mid;
}

int xab_recv(int tid, int tag) {
  xab_step(XAB_EV_RECV, tid, tag);
  xab_rec(XAB_EV_RECV, XAB_PHASE_BEGIN, xab_clock(), 0, XAB_A(tid, tag));
  int mid = wait_message(XAB_EV_RECV, tid, tag, NULL);
  recv_end(XAB_EV_RECV, xab_clock(), mid, tid, tag, 1);
  xab_enrolled(mid >= 0);
  return mid;
}

int xab_trecv(int tid, int tag, struct timeval *tmout) {
  xab_step(XAB_EV_TRECV, tid, tag);
  int us = tmout ? (int)(tmout->tv_sec * 1000000 + tmout->tv_usec) : -1;
  xab_rec(XAB_EV_TRECV, XAB_PHASE_BEGIN, xab_clock(), 0, XAB_A(tid, tag, us));
  int mid = wait_message(XAB_EV_TRECV, tid, tag, tmout);
  recv_end(XAB_EV_TRECV, xab_clock(), mid, tid, tag, 1);
  xab_enrolled(mid >= 0);
  return mid;
}

/* A receive that does not wait (nrecv, probe): one record after the call. */
static int recv_now(int kind, int (*call)(int, int), int tid, int tag, int clear) {
  xab_step(kind, tid, tag);
  int64_t t = xab_clock();
  xab_enter();
  int mid = xab_rr_on() ? xab_rr_receive(kind, tid, tag, NULL) : call(tid, tag);
  xab_leave();
  recv_end(kind, t, mid, tid, tag, clear);
  xab_enrolled(mid >= 0);
  return mid;
}

int xab_nrecv(int tid, int tag) { return recv_now(XAB_EV_NRECV, pvm_nrecv, tid, tag, 1); }
/* A probe leaves the serial in place: the receive that follows reads it again. */
int xab_probe(int tid, int tag) { return recv_now(XAB_EV_PROBE, pvm_probe, tid, tag, 0); }

/* PVM's precv is setrbuf(0) + recv + bufinfo + upkbyte + freebuf +
 * setrbuf(old) (lpvm.c); the same here, with our receive in the middle. */
int xab_precv(int tid, int tag, void *p, int n, int type, int *rtid, int *rtag, int *rlen) {
  xab_step(XAB_EV_PRECV, tid, tag);
  int len = typed_bytes(type, n);
  xab_rec(XAB_EV_PRECV, XAB_PHASE_BEGIN, xab_clock(), 0, XAB_A(tid, tag, type, n));
  int rc, bytes = 0, src = tid, mtag = tag, serial = 0;
  if (len < 0 || !serials_wanted()) {
    xab_block_begin();
    xab_enter();
    rc = pvm_precv(tid, tag, p, n, type, rtid, rtag, rlen);
    xab_leave();
    xab_block_end();
    if (rc == 0 && xab_st.mode != XAB_MODE_OFF) {
      if (rtid) src = *rtid;
      if (rtag) mtag = *rtag;
      if (rlen) bytes = *rlen;
    }
  } else {
    int user_rbuf = pvm_setrbuf(0);
    int mid = wait_message(XAB_EV_PRECV, tid, tag, NULL);
    rc = mid;
    if (mid > 0) {
      serial = xab_read_serial(mid, 1, &bytes, &src, &mtag);
      if (rlen) *rlen = bytes;
      if (rtag) *rtag = mtag;
      if (rtid) *rtid = src;
      pvm_upkbyte((char *)p, bytes < len ? bytes : len, 1);
      pvm_freebuf(mid);
      rc = 0;
    } else if (mid < 0 && (pvm_getopt(PvmAutoErr) == 1 || pvm_getopt(PvmAutoErr) == 3)) {
      pvm_perror("pvm_precv()");
    }
    pvm_setrbuf(user_rbuf);
  }
  xab_rec(XAB_EV_PRECV, XAB_PHASE_END, xab_clock(), rc, XAB_A(src, mtag, bytes, serial, type, n));
  xab_enrolled(rc >= 0);
  return rc;
}

int xab_bufinfo(int mid, int *bytes, int *tag, int *tid) {
  int64_t t = xab_clock();
  int b = 0, g = 0, s = 0;
  xab_enter();
  int rc = pvm_bufinfo(mid, &b, &g, &s);
  xab_leave();
  if (rc >= 0) {
    if (bytes) *bytes = b;
    if (tag) *tag = g;
    if (tid) *tid = s;
  }
  xab_rec(XAB_EV_BUFINFO, XAB_PHASE_END, t, rc, XAB_A(mid, b, g, s));
  return rc;
}
