/*
 * ab_replay_plan.c -- replay mode: the task's plan (docs/replay.md),
 * read at its first receive-like call or spawn, and walked call by call.
 */
#define _GNU_SOURCE
#include "ab_core.h"
#include "ab_replay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- the calls' names */

const char *xab_rp_call_name(int kind) {
  switch (kind) {
  case XAB_EV_RECV: return "pvm_recv";
  case XAB_EV_TRECV: return "pvm_trecv";
  case XAB_EV_NRECV: return "pvm_nrecv";
  case XAB_EV_PROBE: return "pvm_probe";
  case XAB_EV_PRECV: return "pvm_precv";
  case XAB_EV_SPAWN: return "pvm_spawn";
  case XAB_EV_CONFIG: return "pvm_config";
  case XAB_EV_TASKS: return "pvm_tasks";
  case XAB_EV_HANDLER: return "pvm_addmhf handler";
  default: return "?";
  }
}

/* ---------------------------------------------------------------- the plan */

static int parse_header(FILE *f) {
  char line[512];
  if (!fgets(line, sizeof line, f) || sscanf(line, XAB_PLAN_WORD " %d", &xab_rp.plan_version) != 1 ||
      xab_rp.plan_version < 1 || xab_rp.plan_version > XAB_PLAN_VERSION)
    return -1;
  unsigned last = 0;
  if (!fgets(line, sizeof line, f) ||
      sscanf(line, "task %*s %63s %71s %u %d", xab_rp.name, xab_rp.build_id, &last, &xab_rp.exited) != 4)
    return -1;
  xab_rp.last_seq = last;
  return 0;
}

static int parse_call(const char *line, struct plan_call *c) {
  char kind[16], out[16];
  if (sscanf(line, "%u %15s %15s %d %d %127s %d %d %d", &c->seq, kind, out, &c->arg_src, &c->arg_tag, c->sender,
             &c->serial, &c->tag, &c->rc) != 9)
    return -1;
  /* The words are record.h's; "host" (XAB_REC_HOSTNAME): a spawned task's host name. */
  c->kind = xab_rec_call_kind(kind);
  c->outcome = xab_rec_plan_outcome(out);
  return c->kind < 0 || c->outcome < 0 ? -1 : 0;
}

static const char *load_plan(void) {
  char file[4096], line[512];
  snprintf(file, sizeof file, "%s/%s.plan", xab_rp.dir, xab_rp.path);
  FILE *f = fopen(file, "r");
  if (!f) return "the record has no such task (more tasks than recorded?)";
  const char *err = NULL;
  if (parse_header(f) < 0) err = "its plan is unreadable";
  int cap = 0;
  while (!err && fgets(line, sizeof line, f)) {
    if (xab_rp.ncalls == cap) {
      cap = cap ? 2 * cap : 64;
      struct plan_call *more = realloc(xab_rp.calls, (size_t)cap * sizeof *more);
      if (!more) { err = "out of memory"; break; }
      xab_rp.calls = more;
    }
    if (parse_call(line, &xab_rp.calls[xab_rp.ncalls]) < 0) err = "its plan is unreadable";
    else xab_rp.ncalls++;
  }
  fclose(f);
  /* Numbered calls stay in calls (xab_rp_planned() walks them by seq); the rest go to extra. */
  xab_rp.extra = malloc((size_t)(xab_rp.ncalls ? xab_rp.ncalls : 1) * sizeof *xab_rp.extra);
  int kept = 0;
  for (int i = 0; !err && i < xab_rp.ncalls; i++) {
    if (xab_rp.calls[i].outcome >= XAB_REC_HOSTNAME && xab_rp.extra) xab_rp.extra[xab_rp.nextra++] = xab_rp.calls[i];
    else xab_rp.calls[kept++] = xab_rp.calls[i];
  }
  xab_rp.ncalls = kept;
  return err;
}

/* The binary must be the one recorded. */
static const char *check_identity(void) {
  static char why[256];
  if (strcmp(xab_rp.name, program_invocation_short_name) != 0) {
    snprintf(why, sizeof why, "the record's task %s is %s, not %s", xab_rp.path, xab_rp.name,
             program_invocation_short_name);
    return why;
  }
  char mine[72] = "";
  xab_record_identity(mine, sizeof mine);
  /* "-": a record made from a trace, which names the program but not its build. */
  if (strcmp(xab_rp.build_id, "-") != 0 && strcmp(xab_rp.build_id, mine) != 0) {
    snprintf(why, sizeof why, "%s is another binary than the one recorded (build id %s, recorded %s)",
             program_invocation_short_name, mine, xab_rp.build_id);
    return why;
  }
  return NULL;
}

/* At the task's first receive-like call or spawn. */
void xab_rp_ensure_plan(uint32_t seq, int kind, int tid, int tag) {
  if (xab_rp.loaded) return;
  xab_rp.loaded = 1;
  xab_replay_publish();
  xab_rec(XAB_EV_REPLAY_TASK, XAB_PHASE_END, xab_clock(), 0, XAB_A(xab_str(xab_rp.path)));
  const char *err = load_plan();
  if (!err) err = check_identity();
  if (err) xab_rp_depart(seq, kind, tid, tag, err);
}

/* ---------------------------------------------------------------- walking the plan */

/* The plan's call for seq, or NULL; departs when the program's call is
 * not the recorded one. */
const struct plan_call *xab_rp_planned(uint32_t seq, int kind, int tid, int tag) {
  while (xab_rp.next < xab_rp.ncalls && xab_rp.calls[xab_rp.next].seq < seq) xab_rp.next++;
  const struct plan_call *c =
      xab_rp.next < xab_rp.ncalls && xab_rp.calls[xab_rp.next].seq == seq ? &xab_rp.calls[xab_rp.next] : NULL;
  char why[512];
  /* A specific source is a tid of the record run: only "one task or any" must agree. */
  /* XAB_REC_ARG_UNKNOWN (a record made from a trace): only the call's kind must agree. */
  int src_differs = kind == XAB_EV_SPAWN ? c && c->arg_src != tid
                                         : c && c->arg_src != XAB_REC_ARG_UNKNOWN && (c->arg_src == -1) != (tid == -1);
  if (c && c->kind == XAB_EV_SPAWN && kind == XAB_EV_SPAWN && src_differs) {
    snprintf(why, sizeof why, "the recorded run spawned %d task(s) here, this one %d: a record of another task count?",
             c->arg_src, tid);
    xab_rp_depart(seq, kind, tid, tag, why);
    return NULL;
  }
  if (c && (c->kind != kind || src_differs || (c->arg_tag != XAB_REC_ARG_UNKNOWN && c->arg_tag != tag))) {
    snprintf(why, sizeof why, "the record has %s(%d, %d) here", xab_rp_call_name(c->kind), c->arg_src, c->arg_tag);
    xab_rp_depart(seq, kind, tid, tag, why);
    return NULL;
  }
  if (!c && xab_record_wanted(kind, tid, tag)) {
    if (seq > xab_rp.last_seq)
      snprintf(why, sizeof why, "the record ends before this call (the recorded task %s after call %u)",
               xab_rp.exited ? "ended" : "was stopped", xab_rp.last_seq);
    else
      snprintf(why, sizeof why, "the record has no call whose outcome depends on timing here");
    xab_rp_depart(seq, kind, tid, tag, why);
  }
  if (c) xab_rp.next++;
  return c;
}

/* The next entry of the plan's extra ones of kind a or b, from *cursor on. */
const struct plan_call *xab_rp_next_extra(int *cursor, int a, int b) {
  while (*cursor < xab_rp.nextra && xab_rp.extra[*cursor].kind != a && xab_rp.extra[*cursor].kind != b) (*cursor)++;
  return *cursor < xab_rp.nextra ? &xab_rp.extra[(*cursor)++] : NULL;
}
