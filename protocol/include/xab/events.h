/*
 * xab/events.h -- the one table of every event kind xab records.
 *
 * libab writes these kinds, abmon formats them, the trace model parses the
 * names back.  Nothing here depends on PVM, so the model (which links neither
 * PVM nor Qt) includes it too.
 *
 * XAB_CALL(ID, name, flags, rc_kind, begin_slots, end_slots)
 *   ID           enumerator suffix: XAB_EV_<ID>
 *   name         the record's event name: the PVM call without "pvm_";
 *                a begin record is written "<name>.begin"
 *   flags        XAB_F_BLOCKING: the call also records a begin event and
 *                flushes the task's buffer before it may block for long;
 *                XAB_F_MSG_OUT / XAB_F_MSG_IN: the call sends / receives a
 *                user message (carries a serial);
 *                XAB_F_PACK / XAB_F_UNPACK: packs / unpacks data;
 *                XAB_F_LOCAL: only touches the task's own message buffers
 *                (in immediate mode such records ride with the next call
 *                that talks to another task or to pvmd)
 *   rc_kind      how the result is printed: 'i' decimal, 't' a tid
 *   begin_slots  the meaning of a[0..5] in the begin record ("" if none)
 *   end_slots    the meaning of a[0..5] in the end (or only) record
 *
 * A slot list is space-separated "key:kind" items, one per a[] slot in
 * order.  Kinds:  t tid   i int   s string id   y PVM data type
 *                 l tid list: a[] holds the count, the tids follow in
 *                   XAB_EV_TIDS continuation records
 * docs/trace-format.md is the reference for what each field means.
 */
#ifndef XAB_EVENTS_H
#define XAB_EVENTS_H

#define XAB_F_BLOCKING 0x01
#define XAB_F_MSG_OUT 0x02
#define XAB_F_MSG_IN 0x04
#define XAB_F_PACK 0x08
#define XAB_F_UNPACK 0x10
#define XAB_F_LOCAL 0x20

#define XAB_PK_SLOTS "type:y n:i stride:i"

/* clang-format off */
#define XAB_CALLS(X) \
  /* ---- records that are not PVM calls ---- */ \
  X(INFO,        "info",        0, 'i', "", "name:s host:s parent:t lang:i pid:i") \
  X(TIDS,        "tids",        0, 'i', "", "") \
  X(MARK,        "mark",        0, 'i', "", "text:s") \
  /* ---- message buffers ---- */ \
  X(INITSEND,    "initsend",    XAB_F_LOCAL, 'i', "", "enc:i") \
  X(MKBUF,       "mkbuf",       XAB_F_LOCAL, 'i', "", "enc:i") \
  X(FREEBUF,     "freebuf",     XAB_F_LOCAL, 'i', "", "mid:i") \
  X(GETSBUF,     "getsbuf",     XAB_F_LOCAL, 'i', "", "") \
  X(GETRBUF,     "getrbuf",     XAB_F_LOCAL, 'i', "", "") \
  X(SETSBUF,     "setsbuf",     XAB_F_LOCAL, 'i', "", "mid:i") \
  X(SETRBUF,     "setrbuf",     XAB_F_LOCAL, 'i', "", "mid:i") \
  X(BUFINFO,     "bufinfo",     XAB_F_LOCAL, 'i', "", "mid:i bytes:i tag:i src:t") \
  X(GETMINFO,    "getminfo",    XAB_F_LOCAL, 'i', "", "mid:i") \
  X(SETMINFO,    "setminfo",    XAB_F_LOCAL, 'i', "", "mid:i") \
  X(PKMESG,      "pkmesg",      XAB_F_LOCAL, 'i', "", "mid:i") \
  X(PKMESGBODY,  "pkmesgbody",  XAB_F_LOCAL, 'i', "", "mid:i") \
  X(UPKMESG,     "upkmesg",     XAB_F_LOCAL, 'i', "", "") \
  /* ---- packing: type= is the PVM data type, n= the item count ---- */ \
  X(PKBYTE,      "pkbyte",      XAB_F_PACK, 'i', "", XAB_PK_SLOTS) \
  X(PKCPLX,      "pkcplx",      XAB_F_PACK, 'i', "", XAB_PK_SLOTS) \
  X(PKDCPLX,     "pkdcplx",     XAB_F_PACK, 'i', "", XAB_PK_SLOTS) \
  X(PKDOUBLE,    "pkdouble",    XAB_F_PACK, 'i', "", XAB_PK_SLOTS) \
  X(PKFLOAT,     "pkfloat",     XAB_F_PACK, 'i', "", XAB_PK_SLOTS) \
  X(PKINT,       "pkint",       XAB_F_PACK, 'i', "", XAB_PK_SLOTS) \
  X(PKLONG,      "pklong",      XAB_F_PACK, 'i', "", XAB_PK_SLOTS) \
  X(PKSHORT,     "pkshort",     XAB_F_PACK, 'i', "", XAB_PK_SLOTS) \
  X(PKUINT,      "pkuint",      XAB_F_PACK, 'i', "", XAB_PK_SLOTS) \
  X(PKULONG,     "pkulong",     XAB_F_PACK, 'i', "", XAB_PK_SLOTS) \
  X(PKUSHORT,    "pkushort",    XAB_F_PACK, 'i', "", XAB_PK_SLOTS) \
  X(PKSTR,       "pkstr",       XAB_F_PACK, 'i', "", "type:y n:i") \
  X(PACKF,       "packf",       XAB_F_PACK, 'i', "", "fmt:s") \
  X(UPKBYTE,     "upkbyte",     XAB_F_UNPACK, 'i', "", XAB_PK_SLOTS) \
  X(UPKCPLX,     "upkcplx",     XAB_F_UNPACK, 'i', "", XAB_PK_SLOTS) \
  X(UPKDCPLX,    "upkdcplx",    XAB_F_UNPACK, 'i', "", XAB_PK_SLOTS) \
  X(UPKDOUBLE,   "upkdouble",   XAB_F_UNPACK, 'i', "", XAB_PK_SLOTS) \
  X(UPKFLOAT,    "upkfloat",    XAB_F_UNPACK, 'i', "", XAB_PK_SLOTS) \
  X(UPKINT,      "upkint",      XAB_F_UNPACK, 'i', "", XAB_PK_SLOTS) \
  X(UPKLONG,     "upklong",     XAB_F_UNPACK, 'i', "", XAB_PK_SLOTS) \
  X(UPKSHORT,    "upkshort",    XAB_F_UNPACK, 'i', "", XAB_PK_SLOTS) \
  X(UPKUINT,     "upkuint",     XAB_F_UNPACK, 'i', "", XAB_PK_SLOTS) \
  X(UPKULONG,    "upkulong",    XAB_F_UNPACK, 'i', "", XAB_PK_SLOTS) \
  X(UPKUSHORT,   "upkushort",   XAB_F_UNPACK, 'i', "", XAB_PK_SLOTS) \
  X(UPKSTR,      "upkstr",      XAB_F_UNPACK, 'i', "", "type:y n:i") \
  X(UNPACKF,     "unpackf",     XAB_F_UNPACK, 'i', "", "fmt:s") \
  /* ---- sending ---- */ \
  X(SEND,        "send",        XAB_F_MSG_OUT, 'i', "", "dst:t tag:i bytes:i serial:i") \
  X(MCAST,       "mcast",       XAB_F_MSG_OUT, 'i', "", "dst:l tag:i bytes:i serial:i") \
  X(PSEND,       "psend",       XAB_F_MSG_OUT, 'i', "", "dst:t tag:i bytes:i serial:i type:y n:i") \
  /* ---- receiving: end records give the message got (src, tag, serial) or, with rc=0, what was asked ---- */ \
  X(RECV,        "recv",        XAB_F_BLOCKING | XAB_F_MSG_IN, 'i', "src:t tag:i", "src:t tag:i bytes:i serial:i") \
  X(TRECV,       "trecv",       XAB_F_BLOCKING | XAB_F_MSG_IN, 'i', "src:t tag:i timeout:i", "src:t tag:i bytes:i serial:i") \
  X(PRECV,       "precv",       XAB_F_BLOCKING | XAB_F_MSG_IN, 'i', "src:t tag:i type:y n:i", "src:t tag:i bytes:i serial:i type:y n:i") \
  X(NRECV,       "nrecv",       XAB_F_MSG_IN, 'i', "", "src:t tag:i bytes:i serial:i") \
  X(PROBE,       "probe",       0, 'i', "", "src:t tag:i bytes:i serial:i") \
  /* ---- groups and collectives ---- */ \
  X(JOINGROUP,   "joingroup",   0, 'i', "", "group:s") \
  X(LVGROUP,     "lvgroup",     0, 'i', "", "group:s") \
  X(BARRIER,     "barrier",     XAB_F_BLOCKING, 'i', "group:s count:i", "group:s count:i") \
  X(BCAST,       "bcast",       XAB_F_MSG_OUT, 'i', "", "group:s tag:i bytes:i serial:i dst:l") \
  X(REDUCE,      "reduce",      XAB_F_BLOCKING, 'i', "group:s tag:i root:i type:y n:i op:s", "group:s tag:i root:i type:y n:i op:s") \
  X(GATHER,      "gather",      XAB_F_BLOCKING, 'i', "group:s tag:i root:i type:y n:i", "group:s tag:i root:i type:y n:i") \
  X(SCATTER,     "scatter",     XAB_F_BLOCKING, 'i', "group:s tag:i root:i type:y n:i", "group:s tag:i root:i type:y n:i") \
  X(GSIZE,       "gsize",       0, 'i', "", "group:s") \
  X(GETINST,     "getinst",     0, 'i', "", "group:s tid:t") \
  X(GETTID,      "gettid",      0, 't', "", "group:s inst:i") \
  X(FREEZEGROUP, "freezegroup", 0, 'i', "", "group:s count:i") \
  /* ---- task control ---- */ \
  X(MYTID,       "mytid",       0, 't', "", "") \
  X(PARENT,      "parent",      0, 't', "", "") \
  X(SPAWN,       "spawn",       XAB_F_BLOCKING, 'i', "file:s where:s flags:i count:i", "file:s count:i tids:l") \
  X(KILL,        "kill",        0, 'i', "", "tid:t") \
  X(EXIT,        "exit",        0, 'i', "", "") \
  X(NOTIFY,      "notify",      0, 'i', "", "what:i tag:i tids:l") \
  X(ADDHOSTS,    "addhosts",    XAB_F_BLOCKING, 'i', "count:i", "count:i") \
  X(DELHOSTS,    "delhosts",    0, 'i', "", "count:i") \
  X(CONFIG,      "config",      0, 'i', "", "nhost:i narch:i") \
  X(TASKS,       "tasks",       0, 'i', "", "where:t ntask:i") \
  X(PSTAT,       "pstat",       0, 'i', "", "tid:t") \
  X(MSTAT,       "mstat",       0, 'i', "", "host:s") \
  X(SENDSIG,     "sendsig",     0, 'i', "", "tid:t sig:i") \
  X(HALT,        "halt",        0, 'i', "", "") \
  X(SIBLINGS,    "siblings",    0, 'i', "", "") \
  X(TIDTOHOST,   "tidtohost",   0, 't', "", "tid:t") \
  X(ARCHCODE,    "archcode",    0, 'i', "", "arch:s") \
  X(GETOPT,      "getopt",      0, 'i', "", "what:i") \
  X(SETOPT,      "setopt",      0, 'i', "", "what:i val:i") \
  X(GETFDS,      "getfds",      0, 'i', "", "") \
  X(CATCHOUT,    "catchout",    0, 'i', "", "") \
  X(PERROR,      "perror",      0, 'i', "", "text:s") \
  X(HOSTSYNC,    "hostsync",    0, 'i', "", "host:t") \
  X(TICKLE,      "tickle",      0, 'i', "", "n:i") \
  X(GETNORESETS, "getnoresets", 0, 'i', "", "n:i") \
  X(START_PVMD,  "start_pvmd",  XAB_F_BLOCKING, 'i', "", "") \
  X(EXPORT,      "export",      0, 'i', "", "name:s") \
  X(UNEXPORT,    "unexport",    0, 'i', "", "name:s") \
  X(VERSION,     "version",     0, 'i', "", "") \
  /* ---- mailbox ---- */ \
  X(PUTINFO,     "putinfo",     0, 'i', "", "name:s mid:i flags:i") \
  X(RECVINFO,    "recvinfo",    0, 'i', "", "name:s index:i flags:i") \
  X(DELINFO,     "delinfo",     0, 'i', "", "name:s index:i flags:i") \
  X(GETMBOXINFO, "getmboxinfo", 0, 'i', "", "name:s n:i") \
  X(INSERT,      "insert",      0, 'i', "", "name:s index:i") \
  X(LOOKUP,      "lookup",      0, 'i', "", "name:s index:i") \
  X(DELETE,      "delete",      0, 'i', "", "name:s index:i") \
  /* ---- contexts, message handlers, registration ---- */ \
  X(NEWCONTEXT,  "newcontext",  0, 'i', "", "") \
  X(SETCONTEXT,  "setcontext",  0, 'i', "", "ctx:i") \
  X(FREECONTEXT, "freecontext", 0, 'i', "", "ctx:i") \
  X(GETCONTEXT,  "getcontext",  0, 'i', "", "") \
  X(ADDMHF,      "addmhf",      0, 'i', "", "src:t tag:i ctx:i") \
  X(DELMHF,      "delmhf",      0, 'i', "", "mhid:i") \
  X(RECVF,       "recvf",       0, 'i', "", "") \
  X(REG_HOSTER,  "reg_hoster",  0, 'i', "", "") \
  X(REG_RM,      "reg_rm",      0, 'i', "", "") \
  X(REG_TASKER,  "reg_tasker",  0, 'i', "", "") \
  X(REG_TRACER,  "reg_tracer",  0, 'i', "", "ctx:i tag:i") \
  /* ---- kinds added after wire version 1 was fixed: ids travel on the wire, so new kinds go last ---- */ \
  /* a message taken by a pvm_addmhf handler (PVM called the handler with it; mhid: the handler's id) */ \
  X(HANDLER,     "handler",     XAB_F_MSG_IN, 'i', "", "src:t tag:i bytes:i serial:i mhid:i") \
  /* ---- record and replay (docs/replay.md) ---- */ \
  /* a task replaying a record: its spawn path ("1" the command, "1.2" its second child) */ \
  X(REPLAY_TASK,   "replay.task",   0, 'i', "", "path:s") \
  /* the program departed from the record at receive-like call seq: replay stops forcing */ \
  X(REPLAY_DEPART, "replay.depart", 0, 'i', "", "seq:i call:s src:t tag:i why:s") \
  /* ---- global time: one ping-pong exchange of the recording clock with a reference clock ---- */ \
  /* the record's task time is t1 (ping sent); ref= the reference's tid (abmon, or later a relay); ref_s/ref_ns: */ \
  /* t2 (reference received the ping, on its clock); turn_ns = t3 - t2; rtt_ns = t4 - t1 (pong received, task clock); */ \
  /* phase: 0 start (SB), 1 while running, 2 end (SBA); rc: the exchange's number in its phase */ \
  X(CLOCK,       "clock",       XAB_F_LOCAL, 'i', "", "ref:t ref_s:i ref_ns:i turn_ns:i rtt_ns:i phase:i") \
  /* ---- PVM's tracer and output collector: written by abmon only (libab never sends them) ---- */ \
  /* a line the task wrote, as PVM's output collection handed it to abmon; stream: stdout, stderr, or - (PVM's one pipe carries both) */ \
  X(OUTPUT,      "output",      0, 'i', "", "stream:s text:s") \
  /* ---- intrusion compensation (docs/compensation.md): libab's own cost on the task ---- */ \
  /* once at attach: rc = ns one record costs the task (a clock read and a buffer append, */ \
  /* timed over a burst of `burst` records taking total_ns); cpus: the CPUs the task may run on, */ \
  /* a bit mask (bit i: CPU i), 0 when unknown or past CPU 30 (shared-core contention) */ \
  X(COST,        "cost",        XAB_F_LOCAL, 'i', "", "burst:i total_ns:i cpus:i") \
  /* a send of the buffer to abmon (a flush or a poke answer), told in the next message: the record's */ \
  /* time is when that send began, dur_ns its real duration; rc = its records; blocked: 1 when it */ \
  /* was answering a poke inside a blocked call; own_ns: libab's own time in the wrappers of the */ \
  /* own_calls calls it measured since the last flush record (one in 32), less what flush, clock */ \
  /* and cost records tell: a reader charges each call the mean (absent in older traces) */ \
  X(FLUSH,       "flush",       XAB_F_LOCAL, 'i', "", "dur_ns:i blocked:i own_ns:i own_calls:i") \
  /* ---- stepping (docs/abmon.md "Control mode") ---- */ \
  /* the task stops before call (its name) with these arguments and waits for abmon's permission; */ \
  /* rc: the ask's number.  The call's own records follow once it is allowed. */ \
  X(STEP_WAIT,   "step.wait",   0, 'i', "", "call:s peer:t tag:i") \
  /* ---- filtering at the source (xab/filter.h) ---- */ \
  /* the families of records this task omits from now on: omit = XAB_FILTER_* bits (1 pack and */ \
  /* unpack records, 2 clock records while running); written at attach when it omits any, and at */ \
  /* each change abmon asks for (omit=0: nothing omitted any more) */ \
  X(FILTER,      "filter",      XAB_F_LOCAL, 'i', "", "omit:i")
/* clang-format on */

enum xab_event_kind {
#define XAB_ENUM_(id, name, flags, rck, b, e) XAB_EV_##id,
  XAB_CALLS(XAB_ENUM_)
#undef XAB_ENUM_
      XAB_EV_COUNT_
};

/* Phases of a record. */
enum xab_phase {
  XAB_PHASE_END = 0,   /* a complete call, or the end of a blocking one */
  XAB_PHASE_BEGIN = 1, /* written before a call that may block */
  XAB_PHASE_CONT = 2   /* XAB_EV_TIDS continuation of the record before */
};

/* Languages a task can use, in XAB_EV_INFO's lang slot. */
enum xab_lang { XAB_LANG_C = 0, XAB_LANG_FORTRAN = 1 };

#endif /* XAB_EVENTS_H */
