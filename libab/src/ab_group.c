/*
 * ab_group.c -- groups, barriers and collectives (libgpvm3).
 *
 * Barriers and the collectives that wait (reduce, gather, scatter) record a
 * begin and an end event (XAB_BLOCKING): the paper's barrier before/after
 * events, which the barrier-wait analysis is built on.  The begin event
 * reaches abmon while the task waits, by abmon's poke (ab_poke.c).
 */
#include "ab_core.h"

int xab_joingroup(char *group) {
  int64_t t = xab_clock();
  xab_enter();
  int rc = pvm_joingroup(group);
  xab_leave();
  xab_enrolled(rc >= 0);
  xab_rec(XAB_EV_JOINGROUP, XAB_PHASE_END, t, rc, XAB_A(xab_str(group)));
  return rc;
}
int xab_lvgroup(char *group) { XAB_SIMPLE(XAB_EV_LVGROUP, pvm_lvgroup(group), xab_str(group)); }
int xab_gsize(char *group) { XAB_SIMPLE(XAB_EV_GSIZE, pvm_gsize(group), xab_str(group)); }
int xab_getinst(char *group, int tid) { XAB_SIMPLE(XAB_EV_GETINST, pvm_getinst(group, tid), xab_str(group), tid); }
int xab_gettid(char *group, int inst) { XAB_SIMPLE(XAB_EV_GETTID, pvm_gettid(group, inst), xab_str(group), inst); }
int xab_freezegroup(char *group, int size) {
  XAB_SIMPLE(XAB_EV_FREEZEGROUP, pvm_freezegroup(group, size), xab_str(group), size);
}

int xab_barrier(char *group, int count) {
  xab_step(XAB_EV_BARRIER, 0, 0);
  XAB_BLOCKING(XAB_EV_BARRIER, pvm_barrier(group, count), xab_str(group), count);
}

static const char *reduce_op_name(xab_reduce_fn fn) {
  if (fn == PvmSum) return "PvmSum";
  if (fn == PvmProduct) return "PvmProduct";
  if (fn == PvmMax) return "PvmMax";
  if (fn == PvmMin) return "PvmMin";
  return "user";
}

int xab_reduce(xab_reduce_fn fn, void *data, int n, int type, int tag, char *group, int root) {
  XAB_BLOCKING(XAB_EV_REDUCE, pvm_reduce(fn, data, n, type, tag, group, root), xab_str(group), tag, root,
               type, n, xab_str(reduce_op_name(fn)));
}

int xab_gather(void *result, void *data, int n, int type, int tag, char *group, int root) {
  XAB_BLOCKING(XAB_EV_GATHER, pvm_gather(result, data, n, type, tag, group, root), xab_str(group), tag, root,
               type, n);
}

int xab_scatter(void *result, void *data, int n, int type, int tag, char *group, int root) {
  XAB_BLOCKING(XAB_EV_SCATTER, pvm_scatter(result, data, n, type, tag, group, root), xab_str(group), tag, root,
               type, n);
}
