/* abrun_dates: a task that sends abmon, in abmon's own context, trace
 * events of its own shaped and dated as libpvm's (libpvm dates each event
 * when it begins it: a call's entry before its work, its exit after it;
 * tests/examples/abrun_test.sh).  Each call's exit comes 5 ms after its
 * entry, as when the task loses the CPU inside the call:
 *   mcast, entry at 1000.000001 s: its message left after that, so its
 *     record (one: an mcast does not block) is dated at the entry;
 *   nrecv, entry at 2000.000001 s: the message was there at its exit, so
 *     its record is dated at the exit, 2000.005001;
 *   recv, entry at 3000.000001 s: recv.begin at the entry, recv at the exit.
 * It makes none of these calls itself, so no event of libpvm's own shares
 * their descriptors. */
#include <pvm3.h>
#include <pvmtev.h>
#include <stdio.h>

static void pk(int v) { pvm_pkint(&v, 1, 1); }
static void datum(int did, int v) { pk(did); pk(TEV_DATA_INT); pk(v); }

/* One event with its descriptor: id, name, date, this task's tid. */
static void begin_event(int eid, const char *name, int sec, int usec, int me) {
  pk(TEV_MARK_EVENT_DESC);
  pk(eid);
  pvm_pkstr((char *)name);
  datum(TEV_DID_TS, sec);
  datum(TEV_DID_TU, usec);
  datum(TEV_DID_TID, me);
}

int main(void) {
  /* The tracer PVM gave this task (abmon: not looked up in its mailbox
   * entry, as libab would, or abmon would take this task for libab's). */
  int me = pvm_mytid();
  int tracer = pvm_getopt(PvmSelfTraceTid), tag = pvm_getopt(PvmSelfTraceCode);
  if (me < 0 || tracer <= 0) {
    printf("not traced\n");
    return 1;
  }
  pvm_setcontext(pvm_getopt(PvmSelfTraceContext));
  pvm_initsend(PvmDataDefault);
  begin_event(TEV_MCAST | TEV_EVENT_ENTRY, "mcast", 1000, 1, me);
  datum(TEV_DID_MNB, 4);
  pk(TEV_DID_MDL); pk(TEV_DATA_INT | TEV_DATA_ARRAY); pk(1); pk(me);
  datum(TEV_DID_MC, 21);
  pk(TEV_MARK_EVENT_DESC_END);
  begin_event(TEV_MCAST | TEV_EVENT_EXIT, "mcast", 1000, 5001, me);
  datum(TEV_DID_CC, 0);
  pk(TEV_MARK_EVENT_DESC_END);
  for (int k = 0; k < 2; k++) {
    int eid = k == 0 ? TEV_NRECV : TEV_RECV, sec = k == 0 ? 2000 : 3000;
    const char *name = k == 0 ? "nrecv" : "recv";
    begin_event(eid | TEV_EVENT_ENTRY, name, sec, 1, me);
    datum(TEV_DID_RST, me);
    datum(TEV_DID_RMC, 21);
    pk(TEV_MARK_EVENT_DESC_END);
    begin_event(eid | TEV_EVENT_EXIT, name, sec, 5001, me);
    datum(TEV_DID_MB, 7);
    datum(TEV_DID_MNB, 4);
    datum(TEV_DID_MC, 21);
    datum(TEV_DID_SRC, me);
    pk(TEV_MARK_EVENT_DESC_END);
  }
  pvm_send(tracer, tag);
  printf("dated\n");
  pvm_exit();
  return 0;
}
