/*
 * ab_replay_spawn.c -- replay mode: spawning one child per pvm_spawn, each
 * told its path, on the host the record run put it on.
 */
#define _GNU_SOURCE
#include "ab_core.h"
#include "ab_replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- placement */

static int host_in_machine(const char *name) {
  int nh = 0, na = 0;
  struct pvmhostinfo *hi = NULL;
  xab_enter_own();
  int rc = pvm_config(&nh, &na, &hi);
  xab_leave_own();
  for (int h = 0; rc >= 0 && h < nh; h++)
    if (strcmp(hi[h].hi_name, name) == 0) return 1;
  return 0;
}

/* Where the recorded run put the n-th task of spawn seq: its host's name,
 * NULL to spawn as the program asks (no such record, or a departure). */
static const char *recorded_host(uint32_t seq, int n, const char *child, int count) {
  if (!xab_rp.forcing || xab_rp.plan_version < 2) return NULL;
  for (int i = 0; i < xab_rp.nextra; i++) {
    const struct plan_call *c = &xab_rp.extra[i];
    if (c->kind != XAB_EV_SPAWN || c->seq != seq || c->arg_src != n || strcmp(c->sender, "-") == 0) continue;
    if (host_in_machine(c->sender)) return c->sender;
    char why[512];
    snprintf(why, sizeof why, "the recorded run put task %s on host %s, which this virtual machine has not", child,
             c->sender);
    xab_rp_depart(seq, XAB_EV_SPAWN, count, 0, why);
    return NULL;
  }
  return NULL;
}

/* One child per pvm_spawn, each told its path; the tids in PVM's order
 * (the started first, then the errors). */
static int spawn_one_by_one(uint32_t seq, char *file, char **argv, int flags, char *where, int count, int *tids) {
  int started = 0, nerr = 0, errs[count > 0 ? count : 1];
  for (int i = 0; i < count; i++) {
    char child[XAB_PATH_MAX + 16];
    snprintf(child, sizeof child, "%s.%d", xab_rp.path, xab_rp.nchildren + 1);
    setenv("XAB_REPLAY_PATH", child, 1);
    const char *host = recorded_host(seq, i + 1, child, count);
    int tid = 0, rc = host ? pvm_spawn(file, argv, (flags & ~PvmTaskArch) | PvmTaskHost, (char *)host, 1, &tid)
                           : pvm_spawn(file, argv, flags, where, 1, &tid);
    if (rc == 1) {
      tids[started++] = tid;
      if (xab_rp.nchildren < XAB_MAX_CHILDREN) xab_rp.children[xab_rp.nchildren++] = tid;
    } else {
      errs[nerr++] = rc < 0 ? rc : tid;
    }
  }
  setenv("XAB_REPLAY_PATH", xab_rp.path, 1);
  for (int i = 0; i < nerr; i++) tids[started + i] = errs[i];
  return started;
}

int xab_rr_spawn(char *file, char **argv, int flags, char *where, int count, int *tids) {
  uint32_t seq = ++xab_rr.seq;
  const struct plan_call *c = NULL;
  if (xab_rr.replay && xab_rp.forcing) {
    xab_rp_ensure_plan(seq, XAB_EV_SPAWN, count, 0);
    if (xab_rp.forcing) c = xab_rp_planned(seq, XAB_EV_SPAWN, count, 0);
  }
  if (xab_rr.replay && xab_rp.forcing && !c)
    xab_rp_depart(seq, XAB_EV_SPAWN, count, 0, "the record has no pvm_spawn here");
  if (xab_rr.record) xab_record_spawn_begin(seq);
  int rc = xab_rr.replay && count > 0 ? spawn_one_by_one(seq, file, argv, flags, where, count, tids)
                                      : pvm_spawn(file, argv, flags, where, count, tids);
  if (c && xab_rp.forcing && c->rc != rc) {
    char why[256];
    snprintf(why, sizeof why, "pvm_spawn started %d task(s) of %s, the recorded run %d", rc, file, c->rc);
    xab_rp_depart(seq, XAB_EV_SPAWN, count, 0, why);
  }
  if (xab_rr.record) xab_record_spawn(seq, count, rc, tids);
  return rc;
}
