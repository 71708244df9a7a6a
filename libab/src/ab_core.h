/*
 * ab_core.h -- what libab's rooms share: the task's state (ab_state.h),
 * the hot path that records a call (ab_hot.h), libab's cost on the task
 * (ab_cost_sample.h) and each room's entry points (ab_rooms.h).
 *
 * The hot path: a wrapper reads the clock, makes the real PVM call, and
 * appends one fixed-size record to this task's buffer (xab_rec).  Strings
 * are interned once (xab_str) and travel by number.  Formatting and I/O are
 * abmon's job.  The buffer goes to abmon when it fills, every flush_ms
 * while calls happen, when abmon pokes a task that has been quiet (from
 * inside the call it is blocked in), and at the end.
 *
 * The rooms (docs/libab.md, "Inside libab"):
 *   ab_buffer.c        the record buffer and the string table
 *   ab_send.c          when the buffer goes to abmon, and which way;
 *   ab_send_socket.c   through abmon's local socket,
 *   ab_send_pvm.c      or as a PVM message (ab_send.h)
 *   ab_poke.c          abmon's pokes: sending from inside a blocked call
 *   ab_clock.c         the clock exchanges with abmon (clock records)
 *   ab_cost.c          libab's own cost on the task (cost, flush records)
 *   ab_attach.c        finding abmon; forgetting it when the task leaves PVM
 *   ab_end.c           the end of the task: exit() and SIGTERM (pvm_kill)
 *   ab_step.c          control mode: waiting for abmon's go before a call
 *   ab_msg.c, ab_pack.c, ab_group.c, ab_task.c   the wrappers of pvm3.h
 *   ab_mhf.c           the program's message handlers, as PVM keeps them
 *   ab_record.c        record mode: the task's record file (ab_rr.h)
 *   ab_replay.c        replay mode: settings, departures (ab_rr.h, ab_replay.h);
 *   ab_replay_plan.c   the task's plan,
 *   ab_replay_paths.c  task paths and this run's tids,
 *   ab_replay_force.c  forcing each recorded outcome of a receive,
 *   ab_replay_check.c  checking the outcomes that cannot be forced,
 *   ab_replay_spawn.c  one child per spawn, on its recorded host
 */
#ifndef XAB_AB_CORE_H
#define XAB_AB_CORE_H

#include "ab_state.h"
#include "ab_rooms.h"
#include "ab_cost_sample.h"
#include "ab_hot.h"

#endif /* XAB_AB_CORE_H */
