/*
 * ab_rooms.h -- each room's entry points, in a section per room (the room
 * list: ab_core.h).  The inline pieces of the hot path are in ab_hot.h,
 * libab's cost on the task in ab_cost_sample.h.
 */
#ifndef XAB_AB_ROOMS_H
#define XAB_AB_ROOMS_H

#include "ab_state.h"

/* ---------------------------------------------------------------- ab_clock.c */

/* Ping-pong exchanges with abmon over the local socket, each recorded as
 * an XAB_EV_CLOCK record in the buffer (no-op without a socket); the
 * phases are wire.h's (enum xab_clock_phase). */
void xab_clock_sync(int phase);
/* At a flush: the start exchanges once the task's first record waits
 * (its identity rides on that record, not on a clock record), then a few
 * whenever the last ones are XAB_CLOCK_PERIOD_NS old. */
void xab_clock_sync_due(void);

/* ---------------------------------------------------------------- ab_buffer.c */

/* Filtering at the source (xab/filter.h): the XAB_FILTER_* families the
 * task omits from now on; a `filter` record says so (sent with the next). */
void xab_filter_set(unsigned omit);

/* ---------------------------------------------------------------- ab_send.c */

/* Send what waits, now (no-op unless attached and something waits). */
void xab_flush_now(int final);
/* A record found it is time to send: sends if attached (through PVM, at
 * the start of the next call that reads the network: xab_flush_waiting). */
void xab_flush_auto(void);
void xab_flush_waiting(void); /* the send xab_flush_auto left for a network call */

/* ---------------------------------------------------------------- ab_attach.c */

void xab_attach(void);
/* The task left PVM (pvm_exit): forget abmon, find it again if the
 * process enrolls again, as a new task. */
void xab_detach(void);
/* Enrols the process as the PVM call about to be made would (at its
 * entry, called from outside libpvm), for a wrapper that must follow the
 * enrolment before the call goes on.  Returns whether the process is a
 * task now. */
int xab_enrol_as_pvm(void);

/* PVM hands out buffer ids from a LIFO free list; libab's own mailbox
 * calls note the ids on top of it before and put them back after, so the
 * program's next ids are what they would be without libab. */
#define XAB_ID_PEEK 6
void xab_peek_free_ids(int ids[XAB_ID_PEEK]);
void xab_restore_free_ids(const int ids[XAB_ID_PEEK]);

/* ---------------------------------------------------------------- ab_end.c */

void xab_term_now(void);
/* Ends the task as SIGTERM's default action does. */
void xab_die_by_sigterm(void);
/* Once attached: send what is buffered at exit() and at SIGTERM. */
void xab_watch_the_end(void);

/* ---------------------------------------------------------------- ab_buffer.c */

int xab_str(const char *s);

/* A record that leads every other in the buffer (the task's identity). */
void xab_put_first(int kind, const int a[6]);

/* A record followed by a list of tids, kept in one message; a[count_slot]
 * is the list's length (lowered if the list is cut to fit a message). */
void xab_rec_list(int kind, int64_t t, int rc, const int a[6], int count_slot, const int *tids, int ntids);

/* A record made from inside a PVM call (a message handler PVM runs): it
 * waits for the next call to send it, or goes at once through the local
 * socket, never through PVM from in there. */
void xab_rec_quiet(int kind, int64_t t, int rc, const int a[6]);

/* ---------------------------------------------------------------- ab_step.c */

/* Control mode: before a communicating call, wait for
 * abmon's permission over the local socket.  peer, tag: the call's
 * arguments, for breakpoints. */
void xab_step_wait(int kind, int peer, int tag);

/* ---------------------------------------------------------------- ab_poke.c */

/* Our poke handler in PVM's real table (the program sees a shadow of the
 * table, ab_mhf.c).  A program handler that covers abmon's pokes takes
 * ours out (off returns whether it was there) and hands pokes to
 * xab_poke; on puts ours back if pokes are wanted and nothing covers them. */
int xab_poke_handler_off(void);
void xab_poke_handler_on(void);
int xab_poke(int mid);

/* ---------------------------------------------------------------- ab_pack.c */

/* An in-place buffer (PvmDataInPlace) has no length until it is sent (PVM
 * reads the program's data then): libab counts what was packed into it. */
void xab_inplace_made(int mid, int enc); /* initsend, mkbuf: mid's encoding */
void xab_inplace_freed(int mid);
/* The bytes packed into buffer mid if it is an in-place one, else 0. */
int xab_inplace_bytes(int mid);

/* ---------------------------------------------------------------- ab_msg.c, ab_mhf.c */

/* Message serials in the PVM header's wait id. */
int xab_stamp_serial(int mid, int *bytes, int *saved_wid);
void xab_unstamp(int mid, int saved_wid);
int xab_read_serial(int mid, int clear, int *bytes, int *src, int *tag);

/* The program's message handlers: ids, errors and PVM's
 * pvmdisplaymhfinfo as without libab; their messages recorded. */
int xab_mhf_add(int src, int tag, int ctx, int (*fn)(int));
int xab_mhf_del(int mhid);
void xab_mhf_exit_begin(void);
void xab_mhf_exit_end(void);
/* Around a PVM call that adds handlers of PVM's own (pvm_catchout). */
void xab_mhf_pvm_begin(void);
void xab_mhf_pvm_end(void);

#endif /* XAB_AB_ROOMS_H */
