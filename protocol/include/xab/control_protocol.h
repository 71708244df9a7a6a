/*
 * xab/control_protocol.h -- abmon's control socket: the line protocol a
 * client (xabview --control, or any program) speaks to step the live
 * program (docs/abmon.md "Control mode"; xab/control_path.h says where the
 * socket is).  abmon serves it (abmon/src/control.cpp), xabview is a client
 * (xabview/control_panel.cpp); both spell its words from here.
 *
 * Lines of text, each ended by a newline.  abmon greets with
 * XAB_CONTROL_GREETING.  Requests:
 *   list | step TID | step all | continue | stop | breaks |
 *   break call NAME | break tag N | break task TID | clear all |
 *   clear call NAME | clear tag N | clear task TID |
 *   filter TID WORDS | filter all WORDS | quit
 * Each is answered by zero or more data lines and then a line starting
 * "ok" or "error" (XAB_CONTROL_OK, XAB_CONTROL_ERROR):
 *   list     "wait TID seq N call NAME peer TID tag N" per held task, then
 *            "ok COUNT"
 *   step TID "ok 1", or "error TID is not waiting"
 *   step all "ok COUNT"
 *   breaks   "break call NAME", "break tag N", "break task TID" per
 *            breakpoint, then "ok"
 *   filter   "filter TID WORDS" per task told, then "ok COUNT"; or
 *            "error unknown filter word ...", "error TID is not a task of
 *            this abmon", "error TID takes no pokes"
 *   others   "ok"
 * Lines starting with "event " come at any time, between answers:
 *   event wait TID seq N call NAME peer TID tag N   (a task is held)
 *   event gone TID [host NAME HOW]                  (a held task went; with
 *                                                    its host: HOW delete,
 *                                                    lost or relay-exit)
 * filter sets what the task(s) omit from then on (filtering at the source,
 * xab/filter.h): WORDS are XAB_FILTER_NAME_PACK, _CLOCK or _NONE,
 * separated by spaces or commas.  abmon tells each task in a poke
 * (wire.h, "Pokes"); "all" is every task that sends to this abmon and
 * takes pokes.  A task reached through a relay is not one of them (a
 * relay pokes its own tasks and forwards no filter).
 * NAME is the call's event name (events.h: send, recv, barrier, ...); peer
 * is its tid argument (-1 any, t0 none).  TIDs are written t<hex>, as in
 * the trace (a request may give a decimal number too).
 *
 * One client at a time: another that connects meanwhile reads one line
 * starting XAB_CONTROL_BUSY and is closed, never left waiting for a
 * greeting.  A client that leaves (or sends quit) releases every held task
 * and clears its breakpoints.
 */
#ifndef XAB_CONTROL_PROTOCOL_H
#define XAB_CONTROL_PROTOCOL_H

#define XAB_CONTROL_GREETING "xab-control 1"

/* Requests: the first word of a line. */
#define XAB_CONTROL_LIST "list"         /* the held tasks */
#define XAB_CONTROL_STEP "step"         /* step TID | step all: let held tasks make their call */
#define XAB_CONTROL_CONTINUE "continue" /* hold only at breakpoints; let every held task go */
#define XAB_CONTROL_STOP "stop"         /* hold every call again (a client starts so) */
#define XAB_CONTROL_BREAK "break"       /* break call NAME | tag N | task TID */
#define XAB_CONTROL_CLEAR "clear"       /* clear call NAME | tag N | task TID | all */
#define XAB_CONTROL_BREAKS "breaks"     /* the breakpoints */
#define XAB_CONTROL_FILTER "filter"     /* filter TID|all WORDS: what the task(s) omit from now on */
#define XAB_CONTROL_QUIT "quit"         /* leave, as closing the connection */

/* Their second word. */
#define XAB_CONTROL_ALL "all"   /* step all, clear all, filter all */
#define XAB_CONTROL_CALL "call" /* a breakpoint on a call's name */
#define XAB_CONTROL_TAG "tag"   /* ... on a call's tag argument */
#define XAB_CONTROL_TASK "task" /* ... on every communicating call of a task */

/* How an answer ends, and the line a second client reads. */
#define XAB_CONTROL_OK "ok"
#define XAB_CONTROL_ERROR "error"
#define XAB_CONTROL_BUSY "error busy"

/* Data lines and events: their first words. */
#define XAB_CONTROL_WAIT "wait"             /* a held task, in list's answer */
#define XAB_CONTROL_EVENT_WAIT "event wait" /* a task is held */
#define XAB_CONTROL_EVENT_GONE "event gone" /* a held task went */

#endif /* XAB_CONTROL_PROTOCOL_H */
