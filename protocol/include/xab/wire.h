/*
 * xab/wire.h -- what travels from libab to abmon, and how abmon is found.
 *
 * Finding abmon.  abmon puts one entry in PVM's mailbox under the class name
 * XAB_MBOX_NAME.  The entry's message holds, packed with pvm_pkint in this
 * order: XAB_WIRE_VERSION, abmon's tid, the message context, the message tag,
 * the batch size (events), the flush interval (milliseconds), the poke
 * interval (milliseconds, 0: abmon does not poke; see Pokes below); then
 * the name of abmon's local socket (below) as an int length and that many
 * bytes (pvm_pkbyte), length 0 when abmon takes PVM messages only.  Tasks
 * read it once, so every task uses the settings abmon was started with (a
 * spawned task inherits only the environment named in PVM_EXPORT).
 *
 * Event messages.  Each is a PVM message in that context with that tag:
 *   int[XAB_HDR_INTS]  header (pvm_pkint), see enum xab_hdr
 *   n_strings times:   int id (pvm_pkint), then the text (pvm_pkstr)
 *   n_events * sizeof(struct xab_event) bytes (pvm_pkbyte), the records in
 *                      the byte order named by XAB_HDR_FLAGS
 * A string (task name, host, group name, spawn file, ...) is sent once per
 * task, in the first message after it was first used, and referred to by id.
 *
 * The local socket.  A task on abmon's own host (the host part of its tid
 * is abmon's) sends the same messages through a Unix socket instead of
 * PVM: one datagram each (SOCK_SEQPACKET) on a connection to the abstract
 * address "\0" + the name in the mailbox entry.  No pvmd in between, one
 * system call per message, and what a task has written is abmon's even if
 * the task is killed the next instant.  The first datagram of a
 * connection is the hello: three ints, XAB_WIRE_MAGIC, XAB_WIRE_VERSION
 * and the task's tid.  Every datagram after it is one event message laid
 * out as above, ints in host order, a string as an int length then its
 * bytes (no NUL), the records as raw bytes.  A task whose datagram does not
 * go (abmon too far behind for a second, or a message too big) sends that
 * message and every later one through PVM; abmon reads a task's socket dry
 * before it takes the task's PVM messages and its exit, so order holds.
 *
 * Message serials.  A user message sent by an instrumented task carries
 * XAB_WID_MARK | serial in the wait-id field of its PVM header (the "wid" of
 * pvm_getminfo/pvm_setminfo), which leaves the body alone.  The receiving
 * wrapper reads it and clears it again, so the program sees wid 0 as usual.
 */
#ifndef XAB_WIRE_H
#define XAB_WIRE_H

#include <stdint.h>

#define XAB_MBOX_NAME "xab.abmon"
/* A relay (`abmon --relay` on a host other than abmon's) puts an
 * entry of the same layout under this name + the host's pvmd tid in hex
 * (pvm_tidtohost), e.g. "xab.relay.80000": a task whose host is not
 * abmon's uses its host's relay (tid, context, local socket) if it finds one. */
#define XAB_RELAY_MBOX_PREFIX "xab.relay."
/* 2: the header's poke key (Pokes below).  A reader refuses every other
 * version (libab: the mailbox entry; abmon: each message's header), so a
 * libab and an abmon of different versions never talk. */
#define XAB_WIRE_VERSION 2
#define XAB_WIRE_MAGIC 0x58414231 /* "XAB1" */
#define XAB_DEFAULT_TAG 0x7ab0
#define XAB_DEFAULT_BATCH 512
#define XAB_DEFAULT_FLUSH_MS 200
#define XAB_SOCKET_NAME_MAX 100 /* bytes of the local socket's name */
#define XAB_HELLO_INTS 3
#define XAB_SOCKET_MSG_MAX (1 << 20) /* longest datagram; a longer message goes through PVM */

/* Serials live in the low 30 bits of the wid; the mark tells them apart
 * from a wid that pvmd or an uninstrumented task put there. */
#define XAB_WID_MARK 0x40000000
#define XAB_WID_SERIAL_MASK 0x3fffffff

enum xab_hdr {
  XAB_HDR_MAGIC = 0,   /* XAB_WIRE_MAGIC */
  XAB_HDR_VERSION,     /* XAB_WIRE_VERSION */
  XAB_HDR_FLAGS,       /* XAB_HDRF_* */
  XAB_HDR_SEQ,         /* message sequence number of this task, from 0 */
  XAB_HDR_NSTRINGS,    /* strings that follow the header */
  XAB_HDR_NEVENTS,     /* records that follow the strings */
  XAB_HDR_LOST,        /* events this task dropped since its last message */
  XAB_HDR_RECSIZE,     /* sizeof(struct xab_event) as the sender built it */
  XAB_HDR_POKE_KEY_LO, /* the task's poke key (Pokes below): low 32 bits */
  XAB_HDR_POKE_KEY_HI, /* ... high 32 bits; 0 and 0 from a task that takes no pokes */
  XAB_HDR_INTS
};

#define XAB_HDRF_LITTLE_ENDIAN 0x1 /* records are little-endian */
#define XAB_HDRF_FINAL 0x2         /* the task's last message (pvm_exit, exit, signal) */
#define XAB_HDRF_POKE 0x4          /* the sender takes pokes (below) */

/* Pokes.  abmon sends a task whose messages carry XAB_HDRF_POKE a message
 * with tag (the mailbox tag + XAB_POKE_TAG_OFFSET) in its own context,
 * always through pvmd (abmon refuses direct routes).  It starts with the
 * task's poke key, the two ints of the header's XAB_HDR_POKE_KEY_LO and
 * _HI (pvm_pkint, in that order), as the task's latest message had them:
 *   key         the task has been quiet for a while: send what you have.
 *               libab's message handler sends it from inside whatever PVM
 *               call reads the poke (a blocked receive, typically).
 *   key, int    the seq of a message with XAB_HDRF_FINAL that abmon has
 *               received: a task killed while blocked waits for this
 *               before it dies, so pvmd has read its last message.
 *   key, XAB_POKE_FILTER, int
 *               filtering at the source (xab/filter.h): from now on omit
 *               the XAB_FILTER_* families in the int (0: none), as
 *               XAB_FILTER at attach does; the task's `filter` record
 *               (events.h) says so.  abmon sends it for its control
 *               socket's "filter" request (xab/control_protocol.h).
 *               XAB_POKE_FILTER is negative, never a seq (seqs count
 *               from 0), so a libab that does not know this form takes
 *               it for a confirmation of no message and does nothing.
 * The key is 64 random bits the task draws when it attaches (getrandom)
 * and sends only to abmon: a poke without it is not abmon's.  The source
 * tid cannot tell: libpvm believes the one a direct route's peer writes
 * in its fragment headers, so any task may claim to be abmon. */

#define XAB_POKE_FILTER (-0x58414246) /* -"XABF": a filter poke (above) */

/* The tags abmon and its relays use: the mailbox tag (event messages)
 * plus one of these offsets each, all in abmon's context.  The one table:
 * abmon's --tag is at most INT_MAX - XAB_TAG_OFFSET_MAX. */
#define XAB_EXIT_TAG_OFFSET 1        /* pvmd -> abmon: a task exited (pvm_notify) */
#define XAB_POKE_TAG_OFFSET 2        /* abmon -> task: a poke (above) */
#define XAB_TRACE_TAG_OFFSET 3       /* pvmd -> abmon --pvm-tracer: PVM's trace events */
#define XAB_OUTPUT_TAG_OFFSET 4      /* pvmd -> abmon --pvm-tracer: the tasks' output */
#define XAB_RELAY_TAG_OFFSET 5       /* relay <-> abmon (abmon/src/relay.h) */
#define XAB_HOST_ADD_TAG_OFFSET 6    /* pvmd -> abmon: a host was added (pvm_notify) */
#define XAB_HOST_DELETE_TAG_OFFSET 7 /* pvmd -> abmon: a host went (pvm_notify) */
#define XAB_CLOCK_PONG_TAG_OFFSET 8  /* abmon -> relay: a clock pong (PVM messages) */
#define XAB_TAG_OFFSET_MAX 8

/* Clock exchanges (docs/global-time.md).  On its local socket a
 * task may send a ping instead of an event message: struct xab_clock_ping,
 * t1 its clock just before sending.  abmon answers at once on the same
 * connection with struct xab_clock_pong: t2 its clock when it read the
 * ping, t3 just before it answers.  The task notes t4 when the answer
 * comes and records the four dates as an XAB_EV_CLOCK record.  A ping is
 * told from an event message by its size and magic.
 *
 * A task makes XAB_CLOCK_EDGE_EXCHANGES exchanges when it starts and when
 * it ends, and XAB_CLOCK_RUN_EXCHANGES every XAB_CLOCK_PERIOD_NS while it
 * runs; a relay samples abmon's clock in the same phases with the same
 * counts.  The phase is the record's phase slot (events.h, XAB_EV_CLOCK). */
#define XAB_CLOCK_MAGIC 0x58414243 /* "XABC" */
enum xab_clock_phase { XAB_CLOCK_START = 0, XAB_CLOCK_RUN = 1, XAB_CLOCK_END = 2 };
#define XAB_CLOCK_EDGE_EXCHANGES 16        /* at the start and at the end */
#define XAB_CLOCK_RUN_EXCHANGES 4          /* each period while running */
#define XAB_CLOCK_PERIOD_NS 1000000000     /* between running phases */
struct xab_clock_ping {
  int32_t magic; /* XAB_CLOCK_MAGIC */
  int32_t k;     /* the exchange's number, never the same twice on a connection; echoed in the pong */
  int64_t t1;
};
struct xab_clock_pong {
  int32_t magic, k;
  int64_t t2, t3;
};

/* Whether an exchange's four dates are a sample, the one rule for a task
 * and a relay alike: the answer's dates not negative, its turn (t3 - t2,
 * the answerer's clock) not negative and no longer than the round trip
 * (t4 - t1, the asker's clock) that holds it, and the round trip below
 * 2^31 ns (the record's field).  Any other is recorded by nobody. */
static inline int xab_clock_exchange_usable(int64_t t1, int64_t t2, int64_t t3, int64_t t4) {
  const int64_t rtt = t4 - t1, turn = t3 - t2;
  return t2 >= 0 && turn >= 0 && rtt >= turn && rtt <= INT32_MAX;
}

/* Stepping (docs/abmon.md "Control mode").  abmon started with
 * --control appends one int, 1, to its mailbox entry (after the socket
 * name), then its control socket's path as an int length and that many
 * bytes (pvm_pkbyte; xab/control_path.h has the default path); a relay of
 * such an abmon (--relay-step) appends 1 and length 0.  A task connected to the local socket then stops before each
 * communicating call: it sends its buffered records (the last one an
 * XAB_EV_STEP_WAIT record), then struct xab_step_ask, and waits on the
 * socket (no PVM call) for struct xab_step_go with the same seq.  Told from
 * an event message and a clock ping by its size and magic. */
#define XAB_STEP_MAGIC 0x58414253 /* "XABS" */
struct xab_step_ask {
  int32_t magic; /* XAB_STEP_MAGIC */
  int32_t seq;   /* the task's ask number, echoed in the go */
  int32_t kind;  /* the call about to be made (enum xab_event_kind) */
  int32_t peer;  /* its tid argument (destination, source, -1 any; 0 none) */
  int32_t tag;   /* its tag argument (-1 any; 0 none) */
};
struct xab_step_go {
  int32_t magic, seq;
};

/* One event: fixed size, no pointers.  a[] holds the slots that events.h
 * names for the kind and phase. */
struct xab_event {
  int64_t t_ns;   /* the task's own clock: ns since the Unix epoch */
  uint16_t kind;  /* enum xab_event_kind */
  uint8_t phase;  /* enum xab_phase */
  uint8_t flags;  /* reserved, 0 */
  int32_t rc;     /* the call's result; in XAB_EV_TIDS, how many a[] hold */
  int32_t a[6];
};

#ifdef __cplusplus
static_assert(sizeof(struct xab_event) == 40, "xab_event is 40 bytes on the wire");
#else
_Static_assert(sizeof(struct xab_event) == 40, "xab_event is 40 bytes on the wire");
#endif

#endif /* XAB_WIRE_H */
