/*
 * ab_buffer.c -- the record buffer and the string table; for now also
 * pokes, finding abmon and the end of a task (moving to rooms of their own).
 * Sending is ab_send.c's.
 */
#define _GNU_SOURCE
#include "ab_core.h"
#include "ab_send.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

struct xab_state xab_st = {
    .mode = XAB_MODE_UNATTACHED,
    .batch = XAB_DEFAULT_BATCH,
    .flush_ns = (int64_t)XAB_DEFAULT_FLUSH_MS * 1000000,
    .mhid = -1,
    .final_seq = -1,
};

/* ---------------------------------------------------------------- strings */

/* Interned strings: id 1.. in order of first use; ids below `sent` have
 * reached abmon.  Open addressing on a power-of-two table. */
struct xab_strtab {
  char **text;   /* by id - 1 */
  int n, cap;
  int sent;      /* strings already sent */
  int *slot;     /* hash slot -> id, 0 = empty */
  int nslot;
};
static struct xab_strtab strs;

static uint32_t hash_str(const char *s) {
  uint32_t h = 2166136261u;
  while (*s) h = (h ^ (unsigned char)*s++) * 16777619u;
  return h;
}

static int strtab_grow(void) {
  int nslot = strs.nslot ? strs.nslot * 2 : 64;
  int *slot = calloc((size_t)nslot, sizeof *slot);
  char **text = realloc(strs.text, (size_t)nslot * sizeof *text);
  if (!slot || !text) {
    free(slot);
    if (text) strs.text = text;
    return -1;
  }
  strs.text = text;
  for (int id = 1; id <= strs.n; id++) {
    uint32_t i = hash_str(text[id - 1]) & (uint32_t)(nslot - 1);
    while (slot[i]) i = (i + 1) & (uint32_t)(nslot - 1);
    slot[i] = id;
  }
  free(strs.slot);
  strs.slot = slot;
  strs.nslot = nslot;
  strs.cap = nslot / 2;
  return 0;
}

int xab_str(const char *s) {
  if (!s || xab_st.mode == XAB_MODE_OFF) return 0;
  if (strs.n >= strs.cap && strtab_grow() < 0) return 0;
  uint32_t i = hash_str(s) & (uint32_t)(strs.nslot - 1);
  for (; strs.slot[i]; i = (i + 1) & (uint32_t)(strs.nslot - 1))
    if (strcmp(strs.text[strs.slot[i] - 1], s) == 0) return strs.slot[i];
  char *copy = strdup(s);
  if (!copy) return 0;
  strs.text[strs.n++] = copy;
  strs.slot[i] = strs.n;
  return strs.n;
}

int xab_strings_count(void) { return strs.n; }
int xab_strings_sent(void) { return strs.sent; }
const char *xab_string(int id) { return strs.text[id - 1]; }
void xab_strings_mark_sent(void) { strs.sent = strs.n; }
void xab_strings_forget_sent(void) { strs.sent = 0; }

/* ---------------------------------------------------------------- records */

const unsigned char xab_kind_local[XAB_EV_COUNT_] = {
#define XAB_LOCAL_(id, name, flags, rck, b, e) ((flags) & (XAB_F_LOCAL | XAB_F_PACK | XAB_F_UNPACK)) != 0,
    XAB_CALLS(XAB_LOCAL_)
#undef XAB_LOCAL_
};

void xab_rec_list(int kind, int64_t t, int rc, const int a[6], int count_slot, const int *tids, int ntids) {
  if (xab_st.mode == XAB_MODE_OFF) {
    xab_term_check();
    return;
  }
  if (ntids < 0 || !tids) ntids = 0;
  int need = 1 + (ntids + 5) / 6;
  int slots[6];
  memcpy(slots, a, sizeof slots);
  if (need > XAB_MAX_BATCH) { /* keep what fits in one message, and say so */
    need = XAB_MAX_BATCH;
    ntids = (XAB_MAX_BATCH - 1) * 6;
    slots[count_slot] = ntids;
  }
  a = slots;
  if (xab_st.n + need > XAB_MAX_BATCH) {
    if (xab_st.mode == XAB_MODE_ACTIVE) xab_flush_now(0);
    if (xab_st.n + need > XAB_MAX_BATCH) {
      xab_st.lost++;
      xab_term_check();
      return;
    }
  }
  xab_put(kind, XAB_PHASE_END, t, rc, a);
  for (int i = 0; i < ntids; i += 6) {
    int chunk[6] = {0};
    int k = ntids - i < 6 ? ntids - i : 6;
    memcpy(chunk, tids + i, (size_t)k * sizeof(int));
    xab_put(XAB_EV_TIDS, XAB_PHASE_CONT, t, k, chunk);
  }
  if (xab_due(kind, t)) xab_flush_auto();
  xab_attach_if_enrolled();
  xab_term_check();
}

/* ---------------------------------------------------------------- the identity record */

static void pack_identity(int parent) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  extern char *program_invocation_short_name;
  int a[6] = {xab_str(program_invocation_short_name), xab_str(host), parent, xab_st.lang,
              (int)getpid(), 0};
  /* The identity record leads the task's first message.  A buffer filled
   * before abmon was found gives up its newest record for it. */
  if (xab_st.n == XAB_MAX_BATCH) xab_st.n--, xab_st.lost++;
  memmove(&xab_st.buf[1], &xab_st.buf[0], (size_t)xab_st.n * sizeof xab_st.buf[0]);
  xab_st.n++;
  struct xab_event *e = &xab_st.buf[0];
  e->t_ns = xab_st.n > 1 ? xab_st.buf[1].t_ns : xab_clock();
  e->kind = XAB_EV_INFO;
  e->phase = XAB_PHASE_END;
  e->flags = 0;
  e->rc = 0;
  memcpy(e->a, a, sizeof e->a);
}

/* ---------------------------------------------------------------- pokes */

/* abmon's poke: "send what you have" (empty), or "your final message has
 * come" (one int: its seq).  PVM calls this from inside whatever call reads
 * the poke off the socket -- typically a receive that has blocked for a
 * while.  A send from here is queued by PVM and written by the call that
 * is running once we return.  The records travel in the poke's own buffer:
 * a buffer made here would be freed only after that write, after the
 * poke's, and swap the two ids on PVM's free list. */
int xab_poke(int mid) {
  int bytes = 0, tag = 0, src = 0;
  if (pvm_bufinfo(mid, &bytes, &tag, &src) < 0 || src != xab_st.abmon_tid) return 0;
  if (bytes > 0) {
    int seq = -1;
    int autoerr = pvm_setopt(PvmAutoErr, 0);
    pvm_upkint(&seq, 1, 1);
    pvm_setopt(PvmAutoErr, autoerr);
    /* abmon has the final message, so pvmd has read it: the kill may go on */
    if (xab_st.term_pending && xab_st.final_seq >= 0 && seq == xab_st.final_seq) {
      signal(SIGTERM, SIG_DFL);
      raise(SIGTERM);
    }
    return 0;
  }
  if (xab_st.mode != XAB_MODE_ACTIVE || xab_st.flushing) return 0;
  /* The socket involves no PVM buffer: send from whatever call this is. */
  if ((xab_st.n > 0 || xab_st.lost > 0) && xab_socket_flush(0) == 0) return 0;
  if (!xab_st.waiting) {
    /* A call that returns soon (a send, a probe, ...): its record sends,
     * and PVM frees the poke now, which keeps the buffer ids in order. */
    xab_st.last_flush_ns = INT64_MIN / 2;
    return 0;
  }
  /* Killed while blocked: the last message, then wait (still blocked) for
   * abmon to say it has come. */
  int final = xab_st.term_pending;
  if (xab_st.n == 0 && xab_st.lost == 0 && !final) return 0;
  pvm_setrbuf(0); /* the poke's buffer is ours now; PVM frees it once sent */
  if (final) xab_st.final_seq = xab_st.seq;
  xab_pvm_flush(final, mid);
  if (final) {
    xab_st.mode = XAB_MODE_OFF;
  } else {
    /* The call this runs in may return before PVM writes the queued send
     * (when the awaited message came in the same read), and the poke's
     * buffer id stays taken until then.  The next record flushes: its
     * pvm_probe writes the queue first, and the ids are back in order
     * before the program makes another buffer. */
    xab_st.last_flush_ns = INT64_MIN / 2;
  }
  return 0;
}

static void poke_handler_register(void) {
  int autoerr = pvm_setopt(PvmAutoErr, 0);
  int id = pvm_addmhf(xab_st.abmon_tid, xab_st.tag + XAB_POKE_TAG_OFFSET, xab_st.ctx, xab_poke);
  pvm_setopt(PvmAutoErr, autoerr);
  xab_st.mhid = id >= 0 ? id : -1;
}

int xab_poke_handler_off(void) {
  if (xab_st.mhid < 0) return 0;
  int autoerr = pvm_setopt(PvmAutoErr, 0);
  pvm_delmhf(xab_st.mhid);
  pvm_setopt(PvmAutoErr, autoerr);
  xab_st.mhid = -1;
  return 1;
}

/* If a program's handler covers abmon's pokes, ours cannot come back: the
 * task then sends before it blocks, and its messages stop asking for
 * pokes (the program's trampoline still passes a poke in flight here). */
void xab_poke_handler_on(void) {
  if (xab_st.mode == XAB_MODE_ACTIVE && xab_st.pokes_wanted && xab_st.mhid < 0) poke_handler_register();
}

void xab_rec_quiet(int kind, int64_t t, int rc, const int a[6]) {
  if (xab_st.mode == XAB_MODE_OFF) return;
  if (xab_st.n >= XAB_MAX_BATCH) {
    xab_st.lost++;
    return;
  }
  xab_put(kind, XAB_PHASE_END, t, rc, a);
  if (!xab_due(kind, t)) return;
  if (xab_st.mode != XAB_MODE_ACTIVE || xab_st.flushing || xab_socket_flush(0) < 0)
    xab_st.last_flush_ns = INT64_MIN / 2; /* the next call's record sends */
}

/* ---------------------------------------------------------------- attaching */

static int env_int(const char *name, int fallback) {
  const char *v = getenv(name);
  if (!v || !*v) return fallback;
  char *end;
  long x = strtol(v, &end, 10);
  return (*end || x < 0 || x > 1000000) ? fallback : (int)x;
}

/* PVM hands out buffer ids from a LIFO free list.  A mailbox lookup makes
 * buffers (request, reply, ...) and frees them in another order, which
 * would change the next ids the program gets.  Note the ids on top of the
 * list before, and put them back in that order after. */
#define XAB_ID_PEEK 6
static void peek_free_ids(int ids[XAB_ID_PEEK]) {
  for (int i = 0; i < XAB_ID_PEEK; i++) ids[i] = pvm_mkbuf(PvmDataDefault);
  for (int i = XAB_ID_PEEK - 1; i >= 0; i--) pvm_freebuf(ids[i]);
}

static void restore_free_ids(const int ids[XAB_ID_PEEK]) {
  int got[XAB_ID_PEEK];
  for (int i = 0; i < XAB_ID_PEEK; i++) got[i] = pvm_mkbuf(PvmDataDefault);
  for (int i = 0; i < XAB_ID_PEEK; i++) {
    int known = 0;
    for (int j = 0; j < XAB_ID_PEEK; j++) known |= got[j] == ids[i];
    if (!known) { /* a message arrived meanwhile and took an id: leave it */
      for (int j = XAB_ID_PEEK - 1; j >= 0; j--) pvm_freebuf(got[j]);
      return;
    }
  }
  for (int i = XAB_ID_PEEK - 1; i >= 0; i--) pvm_freebuf(ids[i]);
}

/* Read abmon's mailbox entry; 0 when found. */
static int read_mailbox(int *abmon, int *ctx, int *tag, int *batch, int *flush_ms, int *poke_ms,
                        char sock_name[XAB_SOCKET_NAME_MAX], int *sock_len) {
  int user_rbuf = pvm_setrbuf(0);
  int mid = pvm_recvinfo(XAB_MBOX_NAME, 0, PvmMboxDefault);
  int ok = -1;
  if (mid > 0) {
    int v[6] = {0};
    pvm_setrbuf(mid);
    if (pvm_upkint(v, 6, 1) >= 0 && v[0] == XAB_WIRE_VERSION && v[1] > 0) {
      *abmon = v[1], *ctx = v[2], *tag = v[3], *batch = v[4], *flush_ms = v[5];
      if (pvm_upkint(poke_ms, 1, 1) < 0) *poke_ms = 0; /* an abmon that does not poke */
      /* an abmon without a local socket: none, or length 0 */
      if (pvm_upkint(sock_len, 1, 1) < 0 || *sock_len < 0 || *sock_len > XAB_SOCKET_NAME_MAX ||
          (*sock_len > 0 && pvm_upkbyte(sock_name, *sock_len, 1) < 0))
        *sock_len = 0;
      ok = 0;
    } else if (v[0] != XAB_WIRE_VERSION) {
      fprintf(stderr, "xab: abmon speaks event format %d, this program's libab %d: not monitored\n",
              v[0], XAB_WIRE_VERSION);
      ok = -2;
    }
    pvm_freebuf(mid);
  }
  /* A lookup that finds nothing leaves pvmd's reply as the receive buffer:
   * free it, or its id would be missing from the program's ids. */
  int left = pvm_setrbuf(user_rbuf);
  if (left > 0 && left != mid) pvm_freebuf(left);
  return ok;
}

static void on_sigterm(int sig);
static void at_process_exit(void);

void xab_attach(void) {
  if (xab_st.mode != XAB_MODE_UNATTACHED || xab_st.flushing) return;
  xab_st.flushing = 1; /* our own PVM calls below must not re-enter */
  int autoerr = pvm_setopt(PvmAutoErr, 0);
  pvm_probe(-1, -1);
  xab_st.mytid = pvm_mytid();
  int parent = xab_st.mytid > 0 ? pvm_parent() : 0;
  int abmon = 0, ctx = 0, tag = XAB_DEFAULT_TAG, batch = XAB_DEFAULT_BATCH, flush_ms = XAB_DEFAULT_FLUSH_MS;
  int poke_ms = 0, sock_len = 0;
  char sock_name[XAB_SOCKET_NAME_MAX];
  int ids[XAB_ID_PEEK];
  if (xab_st.mytid > 0) peek_free_ids(ids);
  int found = xab_st.mytid > 0
                  ? read_mailbox(&abmon, &ctx, &tag, &batch, &flush_ms, &poke_ms, sock_name, &sock_len)
                  : -1;
  if (xab_st.mytid > 0) restore_free_ids(ids);
  pvm_setopt(PvmAutoErr, autoerr);
  xab_st.flushing = 0;
  if (found != 0) {
    if (found == -1 && xab_st.mytid > 0) /* no pvmd: PVM reports that itself */
      fprintf(stderr, "xab: abmon is not running in this virtual machine; t%x runs unmonitored\n",
              (unsigned)xab_st.mytid);
    xab_st.mode = XAB_MODE_OFF;
    xab_st.n = 0;
    return;
  }
  xab_st.abmon_tid = abmon;
  xab_st.ctx = ctx;
  xab_st.tag = tag;
  xab_st.batch = env_int("XAB_BATCH", batch);
  xab_st.flush_ns = (int64_t)env_int("XAB_FLUSH_MS", flush_ms) * 1000000;
  if (xab_st.batch < 1) xab_st.batch = 1;
  if (xab_st.batch > XAB_MAX_BATCH) xab_st.batch = XAB_MAX_BATCH;
  xab_st.immediate = xab_st.batch == 1;
  xab_st.mode = XAB_MODE_ACTIVE;
  /* The local socket only reaches an abmon on this host. */
  if (pvm_tidtohost(abmon) == pvm_tidtohost(xab_st.mytid)) xab_socket_connect(sock_name, sock_len);
  xab_st.pokes_wanted = !xab_st.immediate && poke_ms > 0; /* immediate mode sends at once */
  if (xab_st.pokes_wanted) poke_handler_register();
  pack_identity(parent);
  /* A task ended by pvm_kill gets SIGTERM: send what waits before dying.
   * Only where the program has not chosen its own disposition. */
  struct sigaction old;
  if (sigaction(SIGTERM, NULL, &old) == 0 && old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO)) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigterm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
  }
  static int registered;
  if (!registered) registered = atexit(at_process_exit) == 0;
  xab_flush_now(0);
}

/* ---------------------------------------------------------------- the end */

void xab_detach(void) {
  if (xab_st.mode != XAB_MODE_ACTIVE && xab_st.mode != XAB_MODE_UNATTACHED) return;
  xab_socket_close();
  xab_st.mode = XAB_MODE_UNATTACHED;
  xab_st.mhid = -1; /* pvm_exit deleted it */
  xab_st.final_seq = -1;
  xab_st.n = 0;
  xab_st.seq = 0;
  xab_st.lost = 0;
  xab_st.send_failures = 0;
  xab_st.serial = 0;
  xab_strings_forget_sent(); /* the next task's abmon knows none of them */
}

/* A program that returns from main without pvm_exit is still enrolled. */
static void at_process_exit(void) {
  if (xab_st.mode == XAB_MODE_ACTIVE && !xab_st.in_call) xab_flush_now(1);
}

/* Runs outside any PVM call: in the handler when the program was computing,
 * or from xab_leave() when SIGTERM came during a call. */
void xab_term_now(void) {
  xab_st.term_pending = 0;
  /* If the flush itself cannot finish (the program was inside malloc, say),
   * don't let the task outlive its kill: the alarm ends it. */
  alarm(2);
  xab_flush_now(1);
  /* pvmd reads our socket in order: once it has answered a request sent
   * after the flush, it has taken the flush too.  Without this, a task
   * killed with messages still queued in its socket dies (and pvmd reaps
   * it) before pvmd reads the flush, which is then lost.  (What went to
   * the local socket is abmon's already.) */
  if (xab_st.mode == XAB_MODE_ACTIVE && !xab_st.have_sock) {
    int autoerr = pvm_setopt(PvmAutoErr, 0);
    pvm_pstat(xab_st.abmon_tid);
    pvm_setopt(PvmAutoErr, autoerr);
  }
  xab_st.mode = XAB_MODE_OFF;
  signal(SIGTERM, SIG_DFL);
  raise(SIGTERM);
}

static void on_sigterm(int sig) {
  (void)sig;
  int saved_errno = errno;
  if (xab_st.in_call || xab_st.flushing) {
    /* Inside PVM, which cannot send from here.  Nothing waiting: die now.
     * A call that does not block: finish it, then send and die.  Blocked
     * (a receive, a barrier, ...): stay blocked until abmon's poke; its
     * handler sends the records as the final message, abmon confirms, and
     * the handler ends the task -- or SIGALRM does, if abmon is gone. */
    if (xab_st.n == 0 || xab_st.mode != XAB_MODE_ACTIVE) {
      signal(SIGTERM, SIG_DFL);
      raise(SIGTERM);
    }
    /* Blocked, with the local socket: no PVM needed, send and die now. */
    if (xab_st.waiting && !xab_st.flushing && xab_socket_flush(1) == 0) {
      xab_st.mode = XAB_MODE_OFF;
      signal(SIGTERM, SIG_DFL);
      raise(SIGTERM);
    }
    xab_st.term_pending = 1;
    if (xab_st.waiting) alarm(XAB_KILL_WAIT_S);
    errno = saved_errno;
    return;
  }
  xab_term_now();
}
