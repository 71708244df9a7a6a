/*
 * ab_core.c -- finding abmon, sending the event buffer, the end of a task.
 *
 * The rule for everything here: the program must not be able to tell.
 * libab's own message is built in a buffer of its own (made and freed around
 * the send, so PVM's LIFO buffer-id list hands the program the same ids as
 * without libab), sent in abmon's message context (switched only around the
 * send, so children spawned later inherit the program's context), with
 * PvmAutoErr off so no error of ours is ever printed.
 */
#define _GNU_SOURCE
#include "ab_core.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
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

void xab_flush_auto(void) {
  if (xab_st.mode == XAB_MODE_ACTIVE)
    xab_flush_now(0);
  else
    xab_st.last_flush_ns = xab_clock(); /* not attached: keep, check again later */
}

/* ---------------------------------------------------------------- sending */

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

static int host_little_endian(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}

/* A PVM fragment that holds the whole message (PVM writes a message
 * fragment by fragment, a system call each), but no bigger: the fragment
 * is allocated at every send, and a 160 KB one for a one-record message
 * (immediate mode) costs more than the send. */
static int message_bytes(void) {
  size_t bytes = 1024 + XAB_HDR_INTS * 4 + (size_t)xab_st.n * sizeof(struct xab_event);
  for (int id = strs.sent + 1; id <= strs.n; id++) bytes += 16 + strlen(strs.text[id - 1]);
  return (int)((bytes + 4095) & ~(size_t)4095);
}

static void fill_header(int hdr[XAB_HDR_INTS], int final) {
  hdr[XAB_HDR_MAGIC] = XAB_WIRE_MAGIC;
  hdr[XAB_HDR_VERSION] = XAB_WIRE_VERSION;
  hdr[XAB_HDR_FLAGS] = (host_little_endian() ? XAB_HDRF_LITTLE_ENDIAN : 0) | (final ? XAB_HDRF_FINAL : 0) |
                       (xab_st.mhid >= 0 ? XAB_HDRF_POKE : 0);
  hdr[XAB_HDR_SEQ] = xab_st.seq;
  hdr[XAB_HDR_NSTRINGS] = strs.n - strs.sent;
  hdr[XAB_HDR_NEVENTS] = xab_st.n;
  hdr[XAB_HDR_LOST] = xab_st.lost;
  hdr[XAB_HDR_RECSIZE] = (int)sizeof(struct xab_event);
}

/* A message has reached abmon (or is lost for good): start the next. */
static void sent(int ok) {
  if (!ok) {
    xab_st.lost += xab_st.n;
    if (++xab_st.send_failures >= 3) xab_st.mode = XAB_MODE_OFF;
  } else {
    strs.sent = strs.n;
    xab_st.lost = 0;
    xab_st.send_failures = 0;
    xab_st.seq++;
  }
  xab_st.n = 0;
  xab_st.last_flush_ns = xab_clock();
}

/* ---------------------------------------------------------------- the local socket */

/* A task on abmon's host writes its messages to abmon's local socket
 * (wire.h): one sendmsg, no pvmd, no PVM buffer, nothing for the program to
 * see but a descriptor well above its own.  Only system calls that are
 * async-signal-safe: the SIGTERM handler sends from here too. */

/* How long a task waits for abmon to make room before it gives up the
 * socket for PVM messages (which pvmd queues for as long as it takes). */
#define XAB_SOCKET_WAIT_MS 1000

static void connect_local(const char *name, int len) {
  if (len <= 0 || len > XAB_SOCKET_NAME_MAX) return;
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  memcpy(addr.sun_path + 1, name, (size_t)len); /* abstract: sun_path[0] is NUL */
  int sndbuf = XAB_SOCKET_MSG_MAX;
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
  int hello[XAB_HELLO_INTS] = {XAB_WIRE_MAGIC, XAB_WIRE_VERSION, xab_st.mytid};
  if (connect(fd, (struct sockaddr *)&addr, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len)) < 0 ||
      send(fd, hello, sizeof hello, MSG_NOSIGNAL) != (ssize_t)sizeof hello) {
    close(fd);
    return;
  }
  /* Out of the way: the program's next open() gets the number it would. */
  struct rlimit rl;
  int floor = 1000;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 1016)
    floor = rl.rlim_cur > 32 ? (int)rl.rlim_cur - 16 : fd;
  int high = floor > fd ? fcntl(fd, F_DUPFD_CLOEXEC, floor) : -1;
  if (high >= 0) {
    close(fd);
    fd = high;
  }
  xab_st.sock = fd;
  xab_st.have_sock = 1;
}

/* From now on PVM messages: abmon reads the socket dry before it takes
 * this task's first PVM message, so the order holds. */
static void local_give_up(void) {
  if (!xab_st.have_sock) return;
  close(xab_st.sock);
  xab_st.have_sock = 0;
}

/* Header and strings are laid out here; the records go from buf as they are. */
static char local_head[16384];

/* 0 when sent; -1: not sent, nothing changed (send it through PVM). */
static int send_local(int final) {
  size_t len = 0;
  int hdr[XAB_HDR_INTS];
  fill_header(hdr, final);
  memcpy(local_head, hdr, sizeof hdr);
  len = sizeof hdr;
  for (int id = strs.sent + 1; id <= strs.n; id++) {
    const char *text = strs.text[id - 1];
    size_t tl = strlen(text);
    if (len + 2 * sizeof(int) + tl > sizeof local_head) return -1; /* rare: PVM takes it */
    int v[2] = {id, (int)tl};
    memcpy(local_head + len, v, sizeof v);
    memcpy(local_head + len + sizeof v, text, tl);
    len += sizeof v + tl;
  }
  struct iovec iov[2] = {{local_head, len}, {xab_st.buf, (size_t)xab_st.n * sizeof(struct xab_event)}};
  if (len + iov[1].iov_len > XAB_SOCKET_MSG_MAX) return -1;
  struct msghdr mh;
  memset(&mh, 0, sizeof mh);
  mh.msg_iov = iov;
  mh.msg_iovlen = xab_st.n > 0 ? 2 : 1;
  for (int waited = 0;;) {
    if (sendmsg(xab_st.sock, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0) break;
    if (errno == EINTR) continue;
    if ((errno != EAGAIN && errno != EWOULDBLOCK) || waited) return -1;
    /* abmon is behind: give it a moment to catch up */
    struct pollfd p = {xab_st.sock, POLLOUT, 0};
    poll(&p, 1, XAB_SOCKET_WAIT_MS);
    waited = 1;
  }
  sent(1);
  return 0;
}

/* Through the socket if there is one: 0 when sent. */
static int flush_local(int final) {
  if (!xab_st.have_sock) return -1;
  int was = xab_st.flushing;
  xab_st.flushing = 1;
  int rc = send_local(final);
  xab_st.flushing = was;
  if (rc < 0) local_give_up();
  return rc;
}

/* ---------------------------------------------------------------- through PVM */

/* Pack what waits into `mid` and send it to abmon.  `mid` is a buffer of
 * our own, or (from the poke handler) the poke's own buffer. */
static void send_records(int final, int mid) {
  xab_st.flushing = 1;
  int autoerr = pvm_setopt(PvmAutoErr, 0);
  /* Through pvmd, never on a direct route: on a direct socket the program
   * would wait whenever abmon reads slower than it writes.  In one
   * fragment (message_bytes). */
  int route = pvm_setopt(PvmRoute, PvmDontRoute);
  int frag = pvm_setopt(PvmFragSize, message_bytes());
  int ctx = pvm_setcontext(xab_st.ctx);
  if (mid == 0) mid = pvm_mkbuf(PvmDataDefault);
  int user_sbuf = pvm_setsbuf(mid);
  int hdr[XAB_HDR_INTS];
  fill_header(hdr, final);
  pvm_pkint(hdr, XAB_HDR_INTS, 1);
  for (int id = strs.sent + 1; id <= strs.n; id++) {
    pvm_pkint(&id, 1, 1);
    pvm_pkstr(strs.text[id - 1]);
  }
  if (xab_st.n > 0) pvm_pkbyte((char *)xab_st.buf, xab_st.n * (int)sizeof(struct xab_event), 1);
  int rc = pvm_send(xab_st.abmon_tid, xab_st.tag);
  pvm_setsbuf(user_sbuf);
  pvm_freebuf(mid);
  pvm_setcontext(ctx);
  if (frag > 0) pvm_setopt(PvmFragSize, frag);
  if (route >= 0) pvm_setopt(PvmRoute, route);
  pvm_setopt(PvmAutoErr, autoerr);
  sent(rc >= 0);
  xab_st.flushing = 0;
}

void xab_flush_now(int final) {
  if (xab_st.mode != XAB_MODE_ACTIVE || xab_st.flushing) return;
  if (xab_st.n == 0 && !final && xab_st.lost == 0) return;
  if (flush_local(final) == 0) return;
  /* Let PVM take in what has already arrived before our buffer takes an id,
   * so arriving messages get the ids they would get without libab. */
  xab_st.flushing = 1;
  int autoerr = pvm_setopt(PvmAutoErr, 0);
  pvm_probe(-1, -1);
  pvm_setopt(PvmAutoErr, autoerr);
  send_records(final, 0);
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
  if ((xab_st.n > 0 || xab_st.lost > 0) && flush_local(0) == 0) return 0;
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
  send_records(final, mid);
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
  if (xab_st.mode != XAB_MODE_ACTIVE || xab_st.flushing || flush_local(0) < 0)
    xab_st.last_flush_ns = INT64_MIN / 2; /* the next call's record sends */
}

void xab_flush(void) { xab_flush_now(0); }

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
  if (pvm_tidtohost(abmon) == pvm_tidtohost(xab_st.mytid)) connect_local(sock_name, sock_len);
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
  local_give_up();
  xab_st.mode = XAB_MODE_UNATTACHED;
  xab_st.mhid = -1; /* pvm_exit deleted it */
  xab_st.final_seq = -1;
  xab_st.n = 0;
  xab_st.seq = 0;
  xab_st.lost = 0;
  xab_st.send_failures = 0;
  xab_st.serial = 0;
  strs.sent = 0; /* the next task's abmon knows none of them */
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
    if (xab_st.waiting && !xab_st.flushing && flush_local(1) == 0) {
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
