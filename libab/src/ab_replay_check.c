/*
 * ab_replay_check.c -- replay mode: the outcomes that cannot be forced
 * (what pvm_config and pvm_tasks return, which message a handler takes)
 * checked against the record run's.
 */
#define _GNU_SOURCE
#include "ab_core.h"
#include "ab_replay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The plan, for a call that is not numbered; 0 when nothing is to be checked. */
static int checking(int kind, int a, int b) {
  if (!xab_rr.replay || !xab_rp.forcing) return 0;
  xab_rp_ensure_plan(xab_rr.seq, kind, a, b);
  return xab_rp.forcing && xab_rp.plan_version >= 2;
}

int xab_rr_program_tasks(int ntask, const struct pvmtaskinfo *tasks) {
  int n = ntask;
  for (int i = 0; tasks && i < ntask; i++) {
    const char *a = tasks[i].ti_a_out ? strrchr(tasks[i].ti_a_out, '/') : NULL;
    a = a ? a + 1 : tasks[i].ti_a_out;
    if (a && strcmp(a, "abmon") == 0) n--;
  }
  return n;
}

/* pvm_config and pvm_tasks cannot be made to return another virtual
 * machine: a replay checks that they return what the record run's did. */
static void check_result(int kind, int a, int b, int rc) {
  if (!checking(kind, a, b)) return;
  const struct plan_call *c = xab_rp_next_extra(&xab_rp.next_result, XAB_EV_CONFIG, XAB_EV_TASKS);
  char why[512];
  if (!c || c->kind != kind)
    snprintf(why, sizeof why, "the recorded run made no %s here (after call %u)", xab_rp_call_name(kind), xab_rr.seq);
  else if (kind == XAB_EV_CONFIG && (c->arg_src != a || c->arg_tag != b || (c->rc < 0) != (rc < 0)))
    snprintf(why, sizeof why, "pvm_config found %d host(s) of %d architecture(s), the recorded run %d of %d", a, b,
             c->arg_src, c->arg_tag);
  else if (kind == XAB_EV_TASKS && (c->rc < 0) != (rc < 0))
    snprintf(why, sizeof why, "pvm_tasks returned %d, the recorded run %d", rc, c->rc);
  else if (kind == XAB_EV_TASKS && c->arg_tag != b) {
    /* The machine's task table holds other programs' tasks too (a monitor,
     * another run): said, not a departure. */
    fprintf(stderr, "xab replay: task %s (%s t%x), after call %u: pvm_tasks found %d task(s), the recorded run %d\n",
            xab_rp.path, program_invocation_short_name, (unsigned)pvmmytid, xab_rr.seq, b, c->arg_tag);
    return;
  } else {
    return;
  }
  xab_rp_depart(xab_rr.seq, kind, a, b, why);
}

void xab_rr_config(int rc, int nhost, int narch) {
  if (xab_rr.record) xab_record_other(XAB_EV_CONFIG, XAB_REC_RESULT, XAB_A(XAB_REC_V_CONFIG(nhost, narch, rc)));
  check_result(XAB_EV_CONFIG, nhost, narch, rc);
}

void xab_rr_tasks(int rc, int where, int ntask, const struct pvmtaskinfo *tasks) {
  int n = xab_rr_program_tasks(ntask, tasks);
  if (xab_rr.record) xab_record_other(XAB_EV_TASKS, XAB_REC_RESULT, XAB_A(XAB_REC_V_TASKS(where, n, rc)));
  check_result(XAB_EV_TASKS, where, n, rc);
}

/* A handler's message is not forced (PVM calls the handler when it comes,
 * inside whatever call the program is in): a replay checks that each
 * handler takes the message the record run's took, in the same order. */
void xab_rr_handler(int src, int tag, int serial) {
  if (xab_rr.record) xab_record_other(XAB_EV_HANDLER, XAB_REC_HANDLER, XAB_A(XAB_REC_V_HANDLER(src, tag, serial)));
  if (!xab_rr.replay || !xab_rp.forcing || !xab_rp.loaded || xab_rp.plan_version < 2) return;
  const struct plan_call *c = xab_rp_next_extra(&xab_rp.next_handler, XAB_EV_HANDLER, XAB_EV_HANDLER);
  int want = c ? xab_rp_known_tid_of(c->sender) : 0;
  if (c && c->serial == serial && c->tag == tag && (want == 0 || want == src)) return;
  char why[512];
  if (!c)
    snprintf(why, sizeof why, "a handler took serial %d from t%x with tag %d; the recorded run's handlers took no more",
             serial, (unsigned)src, tag);
  else
    snprintf(why, sizeof why, "a handler took serial %d from t%x with tag %d, the recorded run's serial %d from task %s with tag %d",
             serial, (unsigned)src, tag, c->serial, c->sender, c->tag);
  xab_rp_depart(xab_rr.seq, XAB_EV_HANDLER, src, tag, why);
}
