/*
 * xab/record.h -- the record file of record mode (docs/replay.md).
 *
 * A task run with XAB_RECORD=DIR writes DIR/t<tid in hex>.rec: one header,
 * then fixed-size entries, one per receive-like call whose outcome depends
 * on timing (a wildcard pvm_recv/pvm_precv; every pvm_trecv, pvm_nrecv and
 * pvm_probe) and one per pvm_spawn (with the tids started, so that abreplay
 * can name every task by its spawn path), and, from version 2, where each
 * spawned task was put, what pvm_config and pvm_tasks returned, and which
 * message each pvm_addmhf handler took.  libab writes it through a shared
 * memory mapping: no system call per entry, and what was written survives
 * SIGKILL.  A record is also made from a full trace (abreplay
 * --from-trace: the replay library's recordFromTrace, record_set.h, which
 * writes it with RecordSet::write): the rules of what is recorded and how
 * a call is numbered are here, once, for both (xab_record_numbered,
 * xab_record_wanted).  The replay library's RecordSet is the one reader.  All fields
 * in the host's byte order.  Times are the task's own host's clock;
 * `abreplay --record` also writes DIR/clocks, each host's clock against
 * its own (xab/replay/host_clocks.h), to put them on one.
 */
#ifndef XAB_RECORD_H
#define XAB_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "xab/events.h"

#define XAB_REC_MAGIC 0x31524258u /* "XBR1" */
#define XAB_REC_VERSION 2u /* 2: start_ns is the start of call 1, a spawn too */
#define XAB_REC_HEADER_BYTES 256

/* A replay plan's first line is "XAB_PLAN_WORD VERSION" (docs/replay-plan.md):
 * the replay library's RecordSet writes it, libab's replay reads it.  A
 * plan's version is its record's (xab_plan_version); a reader takes 1 to
 * XAB_PLAN_VERSION. */
#define XAB_PLAN_WORD "xab-plan"
#define XAB_PLAN_VERSION 2

/* The version of the plan made from a record of record_version. */
static inline int xab_plan_version(uint32_t record_version) {
  return record_version >= 2 ? 2 : 1;
}

/* What a call got: XAB_REC_<ID> = value; the word abreplay's plans and
 * dumps write for it; 1 when a plan's line may hold that word (a spawn's
 * tids are never a line of their own, its hosts are "host" lines).
 * The one table: the model's RecordSet writes the words, libab's replay
 * reads them back (xab_rec_outcome_name, xab_rec_plan_outcome). */
/* clang-format off */
#define XAB_REC_OUTCOMES(X) \
  /* begun, not ended: the task was still in it when it died */ \
  X(PENDING,   0, "pending", 1) \
  /* a message: src, tag, serial */ \
  X(GOT,       1, "got",     1) \
  /* pvm_nrecv / pvm_probe found nothing */ \
  X(NONE,      2, "none",    1) \
  /* pvm_trecv timed out */ \
  X(TIMEOUT,   3, "timeout", 1) \
  /* the call failed: rc */ \
  X(ERROR,     4, "error",   1) \
  /* pvm_spawn: rc tasks started, their tids follow */ \
  X(SPAWN,     5, "spawn",   1) \
  /* continuation of a spawn: up to 6 tids in v[] */ \
  X(TIDS,      6, "tids",    0) \
  /* Version 2 (not numbered calls: seq is the task's last numbered call): */ \
  /* continuation of a spawn after its tids: up to 6 hosts (pvmd tids) in v[] */ \
  X(HOSTS,     7, "hosts",   0) \
  /* v[0] a pvmd tid, v[1..5] its host's name (20 bytes, NUL-padded), once per host */ \
  X(HOSTNAME,  8, "host",    1) \
  /* pvm_config: nhost narch 0 0 0 rc; pvm_tasks: where ntask 0 0 0 rc */ \
  X(RESULT,    9, "result",  1) \
  /* a message a pvm_addmhf handler took: 0 0 src tag serial 1 */ \
  X(HANDLER,  10, "taken",   1)
/* clang-format on */

enum xab_rec_outcome {
#define XAB_REC_ENUM_(id, value, word, in_plan) XAB_REC_##id = value,
  XAB_REC_OUTCOMES(XAB_REC_ENUM_)
#undef XAB_REC_ENUM_
};

/* The calls a record holds, by kind (events.h); a plan names each by its
 * event name ("recv", "spawn", "handler", ...). */
#define XAB_REC_CALLS(X) X(RECV) X(TRECV) X(NRECV) X(PROBE) X(PRECV) X(SPAWN) X(CONFIG) X(TASKS) X(HANDLER)

struct xab_rec_header {
  uint32_t magic, version;
  int32_t tid, parent;      /* this run's tids: abreplay turns them into spawn paths */
  int64_t start_ns;         /* the task's clock when its first receive-like call or spawn began */
  int32_t pid;
  uint32_t count;           /* entries complete (a reader reads no further) */
  uint32_t last_seq;        /* the receive-like call begun last (0: none) */
  uint32_t exited;          /* 1: the task ended normally (exit, return from main) */
  char name[64];            /* program name (argv[0]'s last part) */
  char build_id[72];        /* the binary's GNU build id in hex, or size:mtime */
  char pad[XAB_REC_HEADER_BYTES - 40 - 64 - 72];
};

/* One call.  seq numbers every receive-like call and spawn of the task,
 * recorded or not, from 1: replay finds the same call by it. */
struct xab_rec_entry {
  int64_t t_ns;             /* the task's clock when the call ended (begun, if pending) */
  uint32_t seq;
  uint16_t kind;            /* XAB_EV_RECV, _TRECV, _NRECV, _PROBE, _PRECV, _SPAWN; _CONFIG, _TASKS, _HANDLER (events.h) */
  uint16_t outcome;         /* enum xab_rec_outcome */
  int32_t v[6];             /* receive: arg_src arg_tag src tag serial rc;
                               spawn: count asked, 0, 0, 0, 0, rc (started);
                               tids: up to 6 tids (rc: how many) */
};

/* The v[] of each entry, in order: the one place the layouts are written,
 * for libab's record mode and a record made from a trace (use them as
 * `{XAB_REC_V_...(...)}`).  A spawn's tids and hosts go 6 to an entry
 * (XAB_REC_TIDS, XAB_REC_HOSTS); a host's name takes v[1..5]. */
#define XAB_REC_V_PENDING(arg_src, arg_tag) arg_src, arg_tag, 0, 0, 0, 0
#define XAB_REC_V_RECEIVE(arg_src, arg_tag, src, tag, serial, rc) arg_src, arg_tag, src, tag, serial, rc
#define XAB_REC_V_SPAWN(asked, started) asked, 0, 0, 0, 0, started
#define XAB_REC_V_CONFIG(nhost, narch, rc) nhost, narch, 0, 0, 0, rc
#define XAB_REC_V_TASKS(where, ntask, rc) where, ntask, 0, 0, 0, rc
#define XAB_REC_V_HANDLER(src, tag, serial) 0, 0, src, tag, serial, 1
#define XAB_REC_LIST_PER_ENTRY 6
#define XAB_REC_HOSTNAME_BYTES (5 * sizeof(int32_t) - 1) /* NUL-padded, in v[1..5] */

/* An argument of the call not known: a record made from a trace, where a
 * pvm_nrecv or pvm_probe that found a message says which message, not
 * which source and tag it asked for.  Replay then checks the call's kind only. */
#define XAB_REC_ARG_UNKNOWN INT32_MIN

/* The calls numbered (seq) in record and replay: every receive-like call and spawn. */
static inline int xab_record_numbered(int kind) {
  return kind == XAB_EV_RECV || kind == XAB_EV_TRECV || kind == XAB_EV_NRECV || kind == XAB_EV_PROBE ||
         kind == XAB_EV_PRECV || kind == XAB_EV_SPAWN;
}

/* The receive-like calls that get an entry.  A blocking receive with a
 * wildcard depends on which message comes first; a blocking receive from
 * one source with one tag does not (PVM keeps each pair's messages in
 * order).  A timed or non-blocking receive depends on whether the message
 * is there yet, wildcard or not. */
static inline int xab_record_wanted(int kind, int tid, int tag) {
  if (kind == XAB_EV_RECV || kind == XAB_EV_PRECV) return tid == -1 || tag == -1;
  return kind == XAB_EV_TRECV || kind == XAB_EV_NRECV || kind == XAB_EV_PROBE;
}

/* An outcome's word (NULL: no such outcome). */
static inline const char *xab_rec_outcome_name(int outcome) {
  switch (outcome) {
#define XAB_REC_NAME_(id, value, word, in_plan) \
  case value: return word;
    XAB_REC_OUTCOMES(XAB_REC_NAME_)
#undef XAB_REC_NAME_
  default: return NULL;
  }
}

/* The outcome a plan's line names by `word`, -1 when a plan holds no such word. */
static inline int xab_rec_plan_outcome(const char *word) {
#define XAB_REC_WORD_(id, value, word_, in_plan) \
  if (in_plan && strcmp(word, word_) == 0) return value;
  XAB_REC_OUTCOMES(XAB_REC_WORD_)
#undef XAB_REC_WORD_
  return -1;
}

/* A recorded call's name in a plan, its event name (NULL: a record holds no such call). */
static inline const char *xab_rec_call_name(int kind) {
  static const char *const names[XAB_EV_COUNT_] = {
#define XAB_REC_EVENT_NAME_(id, name, flags, rck, b, e) name,
      XAB_CALLS(XAB_REC_EVENT_NAME_)
#undef XAB_REC_EVENT_NAME_
  };
  switch (kind) {
#define XAB_REC_CASE_(id) case XAB_EV_##id:
    XAB_REC_CALLS(XAB_REC_CASE_)
#undef XAB_REC_CASE_
    return names[kind];
  default: return NULL;
  }
}

/* The kind of the call a plan's line names, -1 when a record holds no such call. */
static inline int xab_rec_call_kind(const char *name) {
#define XAB_REC_KIND_(id) \
  if (strcmp(name, xab_rec_call_name(XAB_EV_##id)) == 0) return XAB_EV_##id;
  XAB_REC_CALLS(XAB_REC_KIND_)
#undef XAB_REC_KIND_
  return -1;
}

#ifdef __cplusplus
static_assert(sizeof(struct xab_rec_header) == XAB_REC_HEADER_BYTES, "record header size");
static_assert(sizeof(struct xab_rec_entry) == 40, "record entry size");
#else
_Static_assert(sizeof(struct xab_rec_header) == XAB_REC_HEADER_BYTES, "record header size");
_Static_assert(sizeof(struct xab_rec_entry) == 40, "record entry size");
#endif

#endif /* XAB_RECORD_H */
