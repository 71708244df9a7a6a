/*
 * ab_replay_force.c -- replay mode: forcing a receive to the recorded
 * outcome with a matching function (pvm_recvf).
 */
#define _GNU_SOURCE
#include "ab_core.h"
#include "ab_replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the forcing match accepts. */
static struct {
  int (*program_match)(int, int, int);
  int tid, serial, tag;
  int pvmd, other;   /* from a pvmd / from a task that stamps no serial */
} want;

static int match_recorded(int mid, int tid, int tag) {
  int ok = want.program_match(mid, tid, tag);
  if (ok <= 0) return ok;
  int src = 0, mtag = 0, serial = xab_message_serial(mid, &src, &mtag);
  if (want.pvmd) return serial == 0 && (src & 0x80000000) && mtag == want.tag ? ok : 0;
  if (want.other) return serial == 0 && !(src & 0x80000000) && mtag == want.tag ? ok : 0;
  return src == want.tid && serial == want.serial ? ok : 0;
}

int xab_rp_match_nothing(int mid, int tid, int tag) {
  (void)mid, (void)tid, (void)tag;
  return 0;
}

match_fn xab_rp_use_match(match_fn fn) { return (match_fn)(void (*)(void))pvm_recvf(fn); }

/* The real call, unforced. */
static int real_call(int kind, int tid, int tag, struct timeval *tmout) {
  switch (kind) {
  case XAB_EV_TRECV: return pvm_trecv(tid, tag, tmout);
  case XAB_EV_NRECV: return pvm_nrecv(tid, tag);
  case XAB_EV_PROBE: return pvm_probe(tid, tag);
  default: return pvm_recv(tid, tag);
  }
}

/* The real call with a match that accepts nothing: nothing found, a
 * timeout, or (pending: the record ended in this call) blocked for ever. */
static int call_finding_nothing(int kind, int tid, int tag, struct timeval *tmout) {
  match_fn old = xab_rp_use_match(xab_rp_match_nothing);
  int mid = real_call(kind, tid, tag, tmout);
  xab_rp_use_match(old);
  return mid;
}

/* Waits for the recorded message, then makes the call with a match that
 * accepts only it.  0 if it did not come in time. */
static int call_getting(int kind, int tid, int tag, struct timeval *tmout) {
  want.program_match = xab_rp_use_match(match_recorded);
  int mid;
  if (kind == XAB_EV_PROBE) { /* a probe must leave it queued: look until it is there */
    int64_t end = xab_clock() + (int64_t)xab_rp.timeout_s * 1000000000;
    struct timeval tick = {0, 2000};
    while ((mid = pvm_probe(tid, tag)) == 0 && xab_clock() < end) {
      xab_rp_use_match(xab_rp_match_nothing);
      pvm_trecv(-1, -1, &tick);
      xab_rp_use_match(match_recorded);
    }
  } else {
    struct timeval limit = {xab_rp.timeout_s, 0};
    mid = pvm_trecv(tid, tag, &limit);
  }
  xab_rp_use_match(want.program_match);
  (void)tmout;
  return mid;
}

static int forced(const struct plan_call *c, uint32_t seq, int kind, int tid, int tag, struct timeval *tmout) {
  char why[512];
  switch (c->outcome) {
  case XAB_REC_PENDING:
  case XAB_REC_NONE:
  case XAB_REC_TIMEOUT:
    return call_finding_nothing(kind, tid, tag, tmout);
  case XAB_REC_GOT:
    break;
  default:
    return real_call(kind, tid, tag, tmout);
  }
  want.pvmd = strcmp(c->sender, "pvmd") == 0;
  want.other = strcmp(c->sender, "-") == 0;
  want.tid = want.pvmd || want.other ? 0 : xab_rp_tid_of(c->sender);
  want.serial = c->serial;
  want.tag = c->tag;
  if (!want.pvmd && !want.other && want.tid <= 0) {
    snprintf(why, sizeof why, "the recorded message's sender, task %s, did not appear within %d s", c->sender,
             xab_rp.timeout_s);
    xab_rp_depart(seq, kind, tid, tag, why);
    return real_call(kind, tid, tag, tmout);
  }
  int mid = call_getting(kind, tid, tag, tmout);
  if (mid != 0) return mid;
  snprintf(why, sizeof why, "the recorded message, serial %d from task %s (t%x) with tag %d, did not come within %d s",
           c->serial, c->sender, (unsigned)want.tid, c->tag, xab_rp.timeout_s);
  xab_rp_depart(seq, kind, tid, tag, why);
  return real_call(kind, tid, tag, tmout);
}

int xab_rr_receive(int kind, int tid, int tag, struct timeval *tmout) {
  uint32_t seq = ++xab_rr.seq;
  int idx = xab_rr.record ? xab_record_begin(seq, kind, tid, tag) : -1;
  const struct plan_call *c = NULL;
  if (xab_rr.replay && xab_rp.forcing) {
    xab_rp_ensure_plan(seq, kind, tid, tag);
    if (xab_rp.forcing) c = xab_rp_planned(seq, kind, tid, tag);
  }
  int mid = c && xab_rp.forcing ? forced(c, seq, kind, tid, tag, tmout) : real_call(kind, tid, tag, tmout);
  if (xab_rr.record) xab_record_end(idx, seq, kind, tid, tag, mid);
  return mid;
}
