/*
 * ab_replay.h -- what the replay rooms share: ab_replay.c (setup and
 * departing), ab_replay_plan.c (the plan), ab_replay_paths.c (task paths),
 * ab_replay_force.c (forcing a receive), ab_replay_check.c (what cannot
 * be forced, checked) and ab_replay_spawn.c (spawning).
 */
#ifndef XAB_AB_REPLAY_H
#define XAB_AB_REPLAY_H

#include <stdint.h>

#include "ab_rr.h"

#define XAB_PATH_MAX 128
#define XAB_MAX_CHILDREN 4096

/* One recorded call of the plan. */
struct plan_call {
  uint32_t seq;
  int kind, outcome;
  int arg_src, arg_tag;
  char sender[XAB_PATH_MAX]; /* a path, "pvmd", or "-" (no serial: not instrumented) */
  int serial, tag, rc;
};

/* The task's replay (defined in ab_replay.c). */
struct xab_replay {
  const char *dir;
  char path[XAB_PATH_MAX];
  int forcing;                 /* 0 once departed */
  int stop_on_departure;
  int timeout_s;
  int loaded;
  char name[64], build_id[72];
  uint32_t last_seq;
  int exited;
  struct plan_call *calls;
  int ncalls, next;
  int plan_version;            /* 2: results, handlers and hosts are recorded */
  struct plan_call *extra;     /* not numbered calls (results, handlers, hosts), in record order */
  int nextra, next_result, next_handler;
  int children[XAB_MAX_CHILDREN];
  int nchildren;
};
extern struct xab_replay xab_rp;

/* ---------------------------------------------------------------- ab_replay.c */

/* The program departs from the record at call seq: say where and why. */
void xab_rp_depart(uint32_t seq, int kind, int tid, int tag, const char *why);

/* ---------------------------------------------------------------- ab_replay_plan.c */

/* The PVM call of an event kind, as the plan and departures name it. */
const char *xab_rp_call_name(int kind);
/* At the task's first receive-like call or spawn: the plan, read. */
void xab_rp_ensure_plan(uint32_t seq, int kind, int tid, int tag);
/* The plan's call for seq, or NULL; departs when the program's call is
 * not the recorded one. */
const struct plan_call *xab_rp_planned(uint32_t seq, int kind, int tid, int tag);
/* The next entry of the plan's extra ones of kind a or b, from *cursor on. */
const struct plan_call *xab_rp_next_extra(int *cursor, int a, int b);

/* ---------------------------------------------------------------- ab_replay_paths.c */

/* The tid, in this run, of the task with this path: the task itself, its
 * parent or one of its children, or any other from the directory; 0 if it
 * never appears. */
int xab_rp_tid_of(const char *path);
/* Without the directory (no message taken: a handler may ask): the task
 * itself, its parent, its children; 0 for any other. */
int xab_rp_known_tid_of(const char *path);

/* ---------------------------------------------------------------- ab_replay_force.c */

/* PVM's matching function (pvm_recvf): one that accepts nothing, and
 * setting one (returns the one it replaces). */
typedef int (*match_fn)(int, int, int);
int xab_rp_match_nothing(int mid, int tid, int tag);
match_fn xab_rp_use_match(match_fn fn);

#endif /* XAB_AB_REPLAY_H */
