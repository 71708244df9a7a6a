
/*
 * ab_replay.c -- replay mode: every receive-like call gets the outcome the
 * record run's call got (docs/replay.md).
 *
 * abreplay turns a record into a plan: one text file per task, named by the
 * task's spawn path ("1" the command, "1.2" its second child, ...), listing
 * each recorded call by its number (seq) with the message it got, named by
 * its sender's path and serial.  The command gets its path from abreplay
 * (XAB_REPLAY_PATH); libab gives each child its own when it spawns it, one
 * child per pvm_spawn, each with XAB_REPLAY_PATH in its environment.
 *
 * Forcing a receive: PVM's own receive, with a matching function
 * (pvm_recvf) that accepts only the recorded message (its sender's tid in
 * this run, its serial) on top of the program's own match: the call waits
 * for exactly that message and leaves the others queued.  A call that
 * found nothing finds nothing (a match that accepts nothing); a timed-out
 * pvm_trecv times out again; a call still pending when the record ended
 * (a hang) blocks for ever again.
 *
 * Departing: a call the record does not have there, or a message that does
 * not come within XAB_REPLAY_TIMEOUT seconds.  libab says where and why (on
 * stderr, in the plan directory's `departures` file, and as a
 * `replay.depart` record), stops forcing, and either goes on or, with
 * XAB_REPLAY_DEPART=stop, kills the tasks it knows (parent, children) and
 * exits with status 3.
 */
#define _GNU_SOURCE
#include "ab_core.h"
#include "ab_replay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct xab_rr_state xab_rr;
struct xab_replay xab_rp;

/* ---------------------------------------------------------------- setup */

static int env_flag(const char *name) {
  const char *v = getenv(name);
  return v && *v;
}

/* Spawned tasks get only what PVM_EXPORT names: a recording task's
 * children must record too. */
static void export_var(const char *var) {
  const char *ex = getenv("PVM_EXPORT");
  if (ex) {
    size_t n = strlen(var);
    for (const char *p = ex; (p = strstr(p, var)); p += n)
      if ((p == ex || p[-1] == ':') && (p[n] == 0 || p[n] == ':')) return;
  }
  char buf[4096];
  snprintf(buf, sizeof buf, "%s%s%s", ex && *ex ? ex : "", ex && *ex ? ":" : "", var);
  setenv("PVM_EXPORT", buf, 1);
}

void xab_rr_init(void) {
  xab_rr.init = 1;
  xab_rr.record = env_flag("XAB_RECORD");
  xab_rr.replay = env_flag("XAB_REPLAY");
  if (xab_rr.record) export_var("XAB_RECORD");
  if (xab_rr.replay) xab_replay_init();
}

void xab_replay_init(void) {
  xab_rp.dir = getenv("XAB_REPLAY");
  const char *path = getenv("XAB_REPLAY_PATH");
  snprintf(xab_rp.path, sizeof xab_rp.path, "%s", path && *path ? path : "1");
  const char *t = getenv("XAB_REPLAY_TIMEOUT");
  xab_rp.timeout_s = t && atoi(t) > 0 ? atoi(t) : 10;
  const char *d = getenv("XAB_REPLAY_DEPART");
  xab_rp.stop_on_departure = !d || strcmp(d, "go-on") != 0;
  xab_rp.forcing = 1;
  for (const char *v = "XAB_REPLAY\0XAB_REPLAY_PATH\0XAB_REPLAY_TIMEOUT\0XAB_REPLAY_DEPART\0"; *v; v += strlen(v) + 1)
    export_var(v);
}

/* ---------------------------------------------------------------- departing */

static void stop_the_run(void) {
  if (xab_st.mode == XAB_MODE_ACTIVE) xab_flush_now(1); /* the departure reaches abmon */
  int autoerr = pvm_setopt(PvmAutoErr, 0);
  for (int i = 0; i < xab_rp.nchildren; i++) pvm_kill(xab_rp.children[i]);
  int parent = pvm_parent();
  if (parent > 0) pvm_kill(parent);
  pvm_setopt(PvmAutoErr, autoerr);
  exit(3);
}

/* The program departs from the record at call seq: say where and why. */
void xab_rp_depart(uint32_t seq, int kind, int tid, int tag, const char *why) {
  char line[1024];
  snprintf(line, sizeof line, "xab replay: task %s (%s t%x), call %u %s(%d, %d): %s", xab_rp.path,
           program_invocation_short_name, (unsigned)pvmmytid, seq, xab_rp_call_name(kind), tid, tag, why);
  fprintf(stderr, "%s; %s\n", line, xab_rp.stop_on_departure ? "stopping the run" : "going on unforced");
  char file[4096];
  snprintf(file, sizeof file, "%s/departures", xab_rp.dir);
  FILE *f = fopen(file, "a");
  if (f) {
    fprintf(f, "%s\n", line);
    fclose(f);
  }
  xab_rec(XAB_EV_REPLAY_DEPART, XAB_PHASE_END, xab_clock(), 0,
          XAB_A((int)seq, xab_str(xab_rp_call_name(kind)), tid, tag, xab_str(why)));
  xab_rp.forcing = 0;
  if (xab_rp.stop_on_departure) stop_the_run();
}
