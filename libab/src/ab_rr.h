/*
 * ab_rr.h -- record and replay (docs/replay.md): what the
 * receive wrappers (ab_msg.c) and pvm_spawn (ab_task.c) call, and what
 * ab_record.c and the replay rooms (ab_replay*.c) share.
 *
 * Record (XAB_RECORD=DIR): every receive-like call and spawn gets a number
 * (seq); the calls whose outcome depends on timing are written to the
 * task's record file (xab/record.h).  Replay (XAB_REPLAY=PLANDIR, set by
 * abreplay): the same calls are forced to the recorded outcome.  Both need
 * message serials, so a task in either mode stamps them even without abmon.
 */
#ifndef XAB_AB_RR_H
#define XAB_AB_RR_H

#include <stdint.h>
#include <sys/time.h>

#include <pvm3.h>

#include "xab/record.h"

struct xab_rr_state {
  int init;          /* the environment has been read */
  int record;        /* XAB_RECORD names a directory */
  int replay;        /* XAB_REPLAY names abreplay's plan directory */
  uint32_t seq;      /* receive-like calls and spawns made so far */
};
extern struct xab_rr_state xab_rr;

void xab_rr_init(void);

/* Record or replay mode (reads the environment on first use). */
static inline int xab_rr_on(void) {
  if (!xab_rr.init) xab_rr_init();
  return xab_rr.record | xab_rr.replay;
}

/* The real receive of kind XAB_EV_RECV/_TRECV/_NRECV/_PROBE/_PRECV (PRECV:
 * the pvm_recv precv is made of), recorded and, in replay, forced.
 * tmout: trecv's timeout (NULL: none). */
int xab_rr_receive(int kind, int tid, int tag, struct timeval *tmout);
/* The real pvm_spawn, recorded and, in replay, giving each child its path. */
int xab_rr_spawn(char *file, char **argv, int flags, char *where, int count, int *tids);

/* Outcomes that are not numbered calls, recorded after the task's last
 * numbered call (xab_rr.seq) and checked in replay: what pvm_config and
 * pvm_tasks returned (ab_task.c), which message a handler took (ab_mhf.c).
 * tasks: PVM's table (NULL: the program did not ask for it). */
void xab_rr_config(int rc, int nhost, int narch);
void xab_rr_tasks(int rc, int where, int ntask, const struct pvmtaskinfo *tasks);
void xab_rr_handler(int src, int tag, int serial);
/* pvm_tasks' count without xab's own tasks (abmon, its relays): what the
 * program would have seen with no monitor. */
int xab_rr_program_tasks(int ntask, const struct pvmtaskinfo *tasks);

/* ---------------------------------------------------------------- ab_record.c */

/* Is this call one whose outcome the record keeps?  xab_record_wanted, xab/record.h. */
/* A pending entry for call seq (before a receive that may block): its index, -1 if none. */
int xab_record_begin(uint32_t seq, int kind, int tid, int tag);
/* The outcome of entry idx (from xab_record_begin), or a new entry when idx < 0. */
void xab_record_end(int idx, uint32_t seq, int kind, int tid, int tag, int mid);
void xab_record_spawn_begin(uint32_t seq);
void xab_record_spawn(uint32_t seq, int count, int rc, const int *tids);
/* An entry that is not a numbered call (XAB_REC_RESULT, XAB_REC_HANDLER). */
void xab_record_other(int kind, int outcome, const int v[6]);
/* The program's GNU build id in hex, or its size:mtime. */
void xab_record_identity(char *out, size_t len);
/* The serial in a message's header (0: none), without clearing it. */
int xab_message_serial(int mid, int *src, int *tag);

/* ---------------------------------------------------------------- ab_replay.c, ab_replay_paths.c */

void xab_replay_init(void);
/* Tells the run's other tasks this task's tid (once; before its first send). */
void xab_replay_publish(void);

#endif /* XAB_AB_RR_H */
