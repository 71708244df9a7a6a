/*
 * fake_task -- a PVM task that talks to abmon the way libab will, with
 * hand-made event messages, so abmon's tests do not need libab.
 *
 * It finds abmon through the mailbox entry (wire.h), then runs its
 * arguments as a little script, one message per action:
 *   info NAME      INFO (name, host, parent, lang, pid) + mytid records
 *   infoonly NAME  the INFO record alone (abmon writes it at the exit)
 *   good N         N send records (serials 1..N)
 *   mcast K        one mcast record to K tids (continuation records)
 *   mark TEXT      a mark record with TEXT as a string
 *   trunc          a header announcing 5 records, 2 packed
 *   version        XAB_HDR_VERSION 99
 *   magic          a wrong XAB_HDR_MAGIC
 *   kind           good record, record of kind 999, good record
 *   badstr         a joingroup naming string id 77, never sent
 *   seqskip        the next message skips a sequence number
 *   lost N         the next message says N events were dropped
 *   direct         ask PVM for a direct route (a socket of its own to abmon)
 *   local          send the messages that follow to abmon's local socket
 *   badhello       connect to the local socket with a wrong hello; print
 *                  "badhello=closed" once abmon has closed that connection
 *   hello TID      like local, but the hello claims TID: self, abmon (its
 *                  tid), otherhost (ours on another host), unused (a tid
 *                  no task has), or hex (t40005)
 *   closed         print "closed=yes" if abmon closes the local connection
 *                  within 20 s, else "closed=no"
 *   fork           a child process writes "mark FROMCHILD" to the local
 *                  connection it inherited, then exits; the parent waits
 *   markref ID     a mark record naming string ID, without sending it
 *   strings N KB   N messages, each with one new string of KB kilobytes
 *                  (ids 1000.., no records)
 *   empty          an empty datagram on the local socket
 *   pingunread     a clock ping on the local socket; returns once abmon's
 *                  pong has come, and never reads it
 *   nohello        connect to the local socket and send nothing (then
 *                  "closed" tells whether abmon gave up on it)
 *   fakeexit TID   a PVM message that looks like pvmd's exit notice of TID
 *   forgeexit TID  the same exit notice on a direct route to abmon, its
 *                  fragment header's source rewritten to this host's pvmd
 *                  (libpvm writes the sender's tid there itself; the
 *                  write() below changes it on its way to the socket);
 *                  prints "route=direct" or "route=pvmd" (the route used)
 *   route TID      open a direct route to task TID (hex, t40005): an empty
 *                  message with tag 31336 in this task's own context;
 *                  prints "route=direct" or "route=pvmd"
 *   pokeforge TID WHAT  pokes to task TID on that route, their fragment
 *                  headers' source rewritten to abmon's tid, as `forgeexit`
 *                  does: WHAT empty (an empty poke, and one with a guessed
 *                  key) or final (those, then "your final message of seq S
 *                  has come" for S 0..63, without a key and with a guessed
 *                  one); prints "forged=direct" or "forged=pvmd"
 *   release TID TAG  an empty message with TAG to TID in this task's own
 *                  context (on the route, if there is one)
 *   random N       N datagrams of random bytes and lengths (half of them
 *                  behind a valid magic and version)
 *   conns N        N more connections to the local socket that never send
 *                  a hello (kept open); prints "conns=K" (K connected)
 *   seq S          the next message has sequence number S
 *   time T         the task time of the records that follow: ns, or
 *                  min / max (INT64_MIN / INT64_MAX), or now
 *   wait           print "waiting" and wait for SIGUSR1
 *   sleep MS       wait
 *   pause          print "paused" and wait to be killed
 *   kill           SIGKILL itself (no pvm_exit, no last message)
 * It prints "tid=t<hex>" first.  Exit codes: 0 done, 2 bad arguments,
 * 3 no abmon registered, 1 a PVM call failed.
 */
#define _GNU_SOURCE
#include <pvm3.h>
#include <xab/events.h>
#include <xab/wire.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* libpvm never frees some buffers (see abmon/src/lsan_suppressions.cpp). */
const char* __lsan_default_suppressions(void);
const char* __lsan_default_suppressions(void) { return "leak:libpvm3\n"; }

static int g_tid, g_abmon, g_ctx, g_tag, g_lost;
static unsigned g_seq; /* wraps like any counter */
static int g_time_set;
static long long g_time;
static char g_sock_name[XAB_SOCKET_NAME_MAX];
static int g_sock_len, g_sock = -1;

/* The local socket (wire.h): a connection to "\0" + the name, then `hello`. */
static int connect_local(const int* hello, size_t bytes) {
  struct sockaddr_un addr;
  int fd;
  if (g_sock_len <= 0) {
    fprintf(stderr, "fake_task: abmon has no local socket\n");
    return -1;
  }
  fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
  if (fd >= 0) { /* as libab: room for the longest message */
    int sndbuf = XAB_SOCKET_MSG_MAX;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
  }
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  memcpy(addr.sun_path + 1, g_sock_name, (size_t)g_sock_len);
  if (fd < 0 ||
      connect(fd, (struct sockaddr*)&addr, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)g_sock_len)) < 0 ||
      (bytes > 0 && send(fd, hello, bytes, MSG_NOSIGNAL) != (ssize_t)bytes)) {
    perror("fake_task: local socket");
    if (fd >= 0) close(fd);
    return -1;
  }
  return fd;
}

static int act_local(void) {
  int hello[XAB_HELLO_INTS] = {XAB_WIRE_MAGIC, XAB_WIRE_VERSION, g_tid};
  g_sock = connect_local(hello, sizeof hello);
  return g_sock < 0 ? -1 : 0;
}

/* forgeexit, pokeforge: libpvm's writes to sockets pass through here
 * (this write() is found before libc's).  While g_forge_src is set, a
 * fragment to g_forge_dst written on any socket but pvmd's gets that
 * source in its header (PVM 3.4's TDFRAGHDR: dst, src, length, flags, 4
 * bytes each, big-endian).  g_direct_to: a fragment to that task went on a
 * socket other than pvmd's (a direct route). */
static int g_forge_src, g_forge_dst, g_pvmd_fd = -1, g_forged_direct, g_direct_to, g_went_direct;

static uint32_t be32(const unsigned char* p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

ssize_t write(int fd, const void* buf, size_t count) {
  const unsigned char* b = buf;
  if (g_direct_to && fd != g_pvmd_fd && count >= 16 && be32(b) == (uint32_t)g_direct_to) g_went_direct = 1;
  if (g_forge_src && fd != g_pvmd_fd && count >= 16 && be32(b) == (uint32_t)g_forge_dst &&
      be32(b + 4) == (uint32_t)g_tid) {
    unsigned char* copy = malloc(count);
    ssize_t n;
    if (!copy) return -1;
    memcpy(copy, buf, count);
    for (int i = 0; i < 4; ++i) copy[4 + i] = (unsigned char)((uint32_t)g_forge_src >> (24 - 8 * i));
    n = syscall(SYS_write, fd, copy, count);
    free(copy);
    g_forged_direct = 1;
    return n;
  }
  return syscall(SYS_write, fd, buf, count);
}

static int act_fakeexit(const char* what);

static int act_forgeexit(const char* what) {
  int* fds = NULL;
  int rc;
  if (pvm_getfds(&fds) < 1) return -1;
  g_pvmd_fd = fds[0];
  pvm_setopt(PvmRoute, PvmRouteDirect);
  g_forge_dst = g_abmon;
  g_forge_src = (int)(0x80000000u | (uint32_t)pvm_tidtohost(g_tid)); /* this host's pvmd */
  rc = act_fakeexit(what);
  g_forge_src = 0;
  printf("route=%s\n", g_forged_direct ? "direct" : "pvmd");
  fflush(stdout);
  return rc < 0 ? rc : 0;
}

static int g_own_ctx; /* this task's context before it took abmon's */

/* An empty message with `tag` to `tid` in this task's own context. */
static int send_own(int tid, int tag) {
  int rc;
  int ctx = pvm_setcontext(g_own_ctx);
  pvm_initsend(PvmDataDefault);
  rc = pvm_send(tid, tag);
  pvm_setcontext(ctx);
  return rc;
}

static int act_route(const char* what) {
  int* fds = NULL;
  int rc;
  if (pvm_getfds(&fds) < 1) return -1;
  g_pvmd_fd = fds[0];
  pvm_setopt(PvmRoute, PvmRouteDirect);
  g_direct_to = (int)strtol(what[0] == 't' ? what + 1 : what, NULL, 16);
  g_went_direct = 0;
  rc = send_own(g_direct_to, 31336);
  printf("route=%s\n", g_went_direct ? "direct" : "pvmd");
  fflush(stdout);
  return rc;
}

/* One poke "from abmon": abmon's context and poke tag, `n` ints. */
static int forged_poke(int tid, const int* body, int n) {
  pvm_initsend(PvmDataDefault);
  if (n > 0) pvm_pkint((int*)body, n, 1);
  return pvm_send(tid, g_tag + XAB_POKE_TAG_OFFSET);
}

static int act_pokeforge(const char* who, const char* what) {
  int tid = (int)strtol(who[0] == 't' ? who + 1 : who, NULL, 16);
  int guess[3] = {0x5eed1e55, 0x0badc0de, 0};
  int rc = 0;
  g_forge_dst = tid;
  g_forge_src = g_abmon;
  g_forged_direct = 0;
  rc |= forged_poke(tid, NULL, 0);
  rc |= forged_poke(tid, guess, 2);
  if (!strcmp(what, "final"))
    for (int seq = 0; seq < 64; ++seq) {
      guess[2] = seq;
      rc |= forged_poke(tid, &seq, 1);
      rc |= forged_poke(tid, guess, 3);
    }
  g_forge_src = 0;
  printf("forged=%s\n", g_forged_direct ? "direct" : "pvmd");
  fflush(stdout);
  return rc < 0 ? -1 : 0;
}

/* The tid a forged hello claims. */
static int claimed_tid(const char* what) {
  if (!strcmp(what, "self")) return g_tid;
  if (!strcmp(what, "abmon")) return g_abmon;
  if (!strcmp(what, "otherhost")) return (g_tid & ~0x3ffc0000) | ((g_tid + 0x40000) & 0x3ffc0000);
  if (!strcmp(what, "unused")) return (g_tid & ~0x3ffff) | 0x3fff0;
  return (int)strtol(what[0] == 't' ? what + 1 : what, NULL, 16);
}

static int act_hello(const char* what) {
  int hello[XAB_HELLO_INTS] = {XAB_WIRE_MAGIC, XAB_WIRE_VERSION, claimed_tid(what)};
  g_sock = connect_local(hello, sizeof hello);
  return g_sock < 0 ? -1 : 0;
}

static int act_closed(void) {
  char c;
  struct timeval tv = {20, 0};
  setsockopt(g_sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ssize_t n = recv(g_sock, &c, 1, 0);
  /* closed with our datagrams unread: ECONNRESET */
  printf("closed=%s\n", n == 0 || (n < 0 && errno == ECONNRESET) ? "yes" : "no");
  fflush(stdout);
  return 0;
}

static int act_nohello(void) {
  g_sock = connect_local(NULL, 0);
  return g_sock < 0 ? -1 : 0;
}

static int act_fakeexit(const char* what) {
  int tid = claimed_tid(what);
  pvm_initsend(PvmDataDefault);
  pvm_pkint(&tid, 1, 1);
  return pvm_send(g_abmon, g_tag + XAB_EXIT_TAG_OFFSET);
}

static int act_empty(void) {
  if (send(g_sock, "", 0, MSG_NOSIGNAL) != 0) {
    perror("fake_task: send");
    return -1;
  }
  return 0;
}

/* A clock ping on the local connection, and abmon's pong left unread in
 * the socket (libab's late pongs at its exit are), once it has come. */
static int act_pingunread(void) {
  struct xab_clock_ping ping = {XAB_CLOCK_MAGIC, 0, 0};
  struct pollfd p = {g_sock, POLLIN, 0};
  if (send(g_sock, &ping, sizeof ping, MSG_NOSIGNAL) != (ssize_t)sizeof ping) {
    perror("fake_task: send");
    return -1;
  }
  if (poll(&p, 1, 20000) != 1) {
    fprintf(stderr, "fake_task: no pong in 20 s\n");
    return -1;
  }
  return 0;
}

static int act_conns(int n) {
  int i, k = 0;
  for (i = 0; i < n; ++i) {
    struct sockaddr_un addr;
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);
    if (fd < 0) break;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    memcpy(addr.sun_path + 1, g_sock_name, (size_t)g_sock_len);
    if (connect(fd, (struct sockaddr*)&addr,
                (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)g_sock_len)) == 0)
      ++k;
    /* kept open on purpose: a connection that never says hello */
  }
  printf("conns=%d\n", k);
  fflush(stdout);
  return 0;
}

static int act_random(int n) {
  static char buf[4096];
  int i;
  unsigned r = 12345;
  for (i = 0; i < n; ++i) {
    size_t len, k;
    r = r * 1103515245u + 12345u;
    len = (r >> 8) % sizeof buf;
    for (k = 0; k < len; ++k) {
      r = r * 1103515245u + 12345u;
      buf[k] = (char)(r >> 16);
    }
    if (i % 2 && len >= 8) {
      int mv[2] = {XAB_WIRE_MAGIC, XAB_WIRE_VERSION};
      memcpy(buf, mv, sizeof mv);
    }
    if (send(g_sock, buf, len, MSG_NOSIGNAL) != (ssize_t)len) {
      perror("fake_task: send");
      return -1;
    }
  }
  return 0;
}

static volatile sig_atomic_t g_go;
static void on_usr1(int sig) {
  (void)sig;
  g_go = 1;
}

static int act_wait(void) {
  sigset_t block, old;
  signal(SIGUSR1, on_usr1);
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  sigprocmask(SIG_BLOCK, &block, &old);
  printf("waiting\n");
  fflush(stdout);
  while (!g_go) sigsuspend(&old);
  sigprocmask(SIG_SETMASK, &old, NULL);
  return 0;
}

static int act_badhello(void) {
  int hello[XAB_HELLO_INTS] = {0x1234, XAB_WIRE_VERSION, g_tid};
  char c;
  int fd = connect_local(hello, sizeof hello);
  if (fd < 0) return -1;
  if (recv(fd, &c, 1, 0) == 0) printf("badhello=closed\n");
  close(fd);
  return 0;
}

/* The message laid out as the local socket carries it. */
static int send_local(const int* hdr, int nstr, const int* ids, const char* const* texts,
                      const struct xab_event* evs, int nev) {
  size_t cap = XAB_HDR_INTS * 4 + (size_t)nev * sizeof *evs, len = 0;
  char* buf;
  int i, rc;
  for (i = 0; i < nstr; ++i) cap += 8 + strlen(texts[i]);
  buf = malloc(cap);
  memcpy(buf, hdr, XAB_HDR_INTS * 4);
  len = XAB_HDR_INTS * 4;
  for (i = 0; i < nstr; ++i) {
    int v[2] = {ids[i], (int)strlen(texts[i])};
    memcpy(buf + len, v, sizeof v);
    memcpy(buf + len + sizeof v, texts[i], (size_t)v[1]);
    len += sizeof v + (size_t)v[1];
  }
  if (nev > 0) memcpy(buf + len, evs, (size_t)nev * sizeof *evs);
  len += (size_t)nev * sizeof *evs;
  rc = send(g_sock, buf, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
  if (rc < 0 && (errno == EPIPE || errno == ECONNRESET)) {
    printf("closed=yes\n"); /* abmon has closed the connection already */
    fflush(stdout);
  }
  if (rc < 0) perror("fake_task: send");
  free(buf);
  return rc;
}

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static struct xab_event ev(int kind, int phase, int rc, int a0, int a1, int a2, int a3) {
  struct xab_event e;
  memset(&e, 0, sizeof e);
  e.t_ns = g_time_set ? g_time : now_ns();
  e.kind = (uint16_t)kind;
  e.phase = (uint8_t)phase;
  e.rc = rc;
  e.a[0] = a0;
  e.a[1] = a1;
  e.a[2] = a2;
  e.a[3] = a3;
  return e;
}

/* One event message: header, strings (ids[i], texts[i]), records. */
static int send_msg(int version, int magic, int nevents_claimed, int nstr, const int* ids,
                    const char* const* texts, const struct xab_event* evs, int nev) {
  int hdr[XAB_HDR_INTS];
  int one = 1, i, rc;
  hdr[XAB_HDR_MAGIC] = magic;
  hdr[XAB_HDR_VERSION] = version;
  hdr[XAB_HDR_FLAGS] = (*(const char*)&one == 1) ? XAB_HDRF_LITTLE_ENDIAN : 0;
  hdr[XAB_HDR_SEQ] = (int)g_seq++;
  hdr[XAB_HDR_NSTRINGS] = nstr;
  hdr[XAB_HDR_NEVENTS] = nevents_claimed;
  hdr[XAB_HDR_LOST] = g_lost;
  hdr[XAB_HDR_RECSIZE] = (int)sizeof(struct xab_event);
  hdr[XAB_HDR_POKE_KEY_LO] = hdr[XAB_HDR_POKE_KEY_HI] = 0; /* takes no pokes */
  g_lost = 0;
  if (g_sock >= 0) return send_local(hdr, nstr, ids, texts, evs, nev);
  pvm_initsend(PvmDataDefault);
  pvm_pkint(hdr, XAB_HDR_INTS, 1);
  for (i = 0; i < nstr; ++i) {
    pvm_pkint((int*)&ids[i], 1, 1);
    pvm_pkstr((char*)texts[i]);
  }
  if (nev > 0) pvm_pkbyte((char*)evs, nev * (int)sizeof(struct xab_event), 1);
  rc = pvm_send(g_abmon, g_tag);
  if (rc < 0) fprintf(stderr, "fake_task: pvm_send: %d\n", rc);
  return rc;
}

static int send_events(const struct xab_event* evs, int nev) {
  return send_msg(XAB_WIRE_VERSION, XAB_WIRE_MAGIC, nev, 0, NULL, NULL, evs, nev);
}

static int find_abmon(void) {
  int v[7];
  int mid = pvm_recvinfo(XAB_MBOX_NAME, 0, PvmMboxDefault);
  if (mid < 0) return 3;
  pvm_setrbuf(mid);
  if (pvm_upkint(v, 7, 1) < 0 || v[0] != XAB_WIRE_VERSION) return 3;
  g_abmon = v[1];
  g_ctx = v[2];
  g_tag = v[3];
  if (pvm_upkint(&g_sock_len, 1, 1) < 0 || g_sock_len < 0 || g_sock_len > XAB_SOCKET_NAME_MAX ||
      (g_sock_len > 0 && pvm_upkbyte(g_sock_name, g_sock_len, 1) < 0))
    g_sock_len = 0;
  g_own_ctx = pvm_setcontext(g_ctx);
  return 0;
}

static int act_info(const char* name, int alone) {
  int ids[] = {1, 2};
  const char* texts[] = {name, "fake host"};
  struct xab_event e[2];
  e[0] = ev(XAB_EV_INFO, XAB_PHASE_END, 0, 1, 2, pvm_parent(), XAB_LANG_C);
  e[0].a[4] = (int)getpid();
  e[1] = ev(XAB_EV_MYTID, XAB_PHASE_END, g_tid, 0, 0, 0, 0);
  return send_msg(XAB_WIRE_VERSION, XAB_WIRE_MAGIC, alone ? 1 : 2, 2, ids, texts, e, alone ? 1 : 2);
}

static int act_good(int n) {
  static int serial = 0;
  struct xab_event* e = calloc((size_t)n, sizeof *e);
  int i, rc;
  for (i = 0; i < n; ++i) e[i] = ev(XAB_EV_SEND, XAB_PHASE_END, 0, g_tid, 5, 4, ++serial);
  rc = send_events(e, n);
  free(e);
  return rc;
}

static int act_mcast(int k) {
  struct xab_event e[64];
  int n = 0, i;
  if (k > 6 * 60) k = 6 * 60;
  e[n++] = ev(XAB_EV_MCAST, XAB_PHASE_END, 0, k, 9, 64, 1);
  for (i = 0; i < k; i += 6) {
    int j, cnt = k - i < 6 ? k - i : 6;
    e[n] = ev(XAB_EV_TIDS, XAB_PHASE_CONT, cnt, 0, 0, 0, 0);
    for (j = 0; j < cnt; ++j) e[n].a[j] = 0x40100 + i + j;
    ++n;
  }
  return send_events(e, n);
}

static int act_mark(const char* text) {
  int ids[] = {40};
  const char* texts[] = {text};
  struct xab_event e = ev(XAB_EV_MARK, XAB_PHASE_END, 0, 40, 0, 0, 0);
  return send_msg(XAB_WIRE_VERSION, XAB_WIRE_MAGIC, 1, 1, ids, texts, &e, 1);
}

static int act_markref(int id) {
  struct xab_event e = ev(XAB_EV_MARK, XAB_PHASE_END, 0, id, 0, 0, 0);
  return send_events(&e, 1);
}

static int act_strings(int n, int kb) {
  size_t len = (size_t)kb * 1024;
  char* text = malloc(len + 1);
  int i, rc = 0;
  memset(text, 'x', len);
  text[len] = 0;
  for (i = 0; i < n && rc >= 0; ++i) {
    int ids[] = {1000 + i};
    const char* texts[] = {text};
    rc = send_msg(XAB_WIRE_VERSION, XAB_WIRE_MAGIC, 0, 1, ids, texts, NULL, 0);
  }
  free(text);
  return rc;
}

/* The child writes to the connection it inherited, as a forked program
 * whose libab state came along would. */
static int act_fork(void) {
  int status = 0;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) _exit(act_mark("FROMCHILD") < 0 ? 1 : 0);
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void set_time(const char* what) {
  g_time_set = 1;
  if (!strcmp(what, "min")) g_time = INT64_MIN;
  else if (!strcmp(what, "max")) g_time = INT64_MAX;
  else if (!strcmp(what, "now")) g_time_set = 0;
  else g_time = strtoll(what, NULL, 10);
}

static int act_bad(const char* what) {
  struct xab_event e[3];
  e[0] = ev(XAB_EV_EXIT, XAB_PHASE_END, 0, 0, 0, 0, 0);
  e[1] = ev(XAB_EV_EXIT, XAB_PHASE_END, 0, 0, 0, 0, 0);
  e[2] = e[0];
  if (!strcmp(what, "trunc"))
    return send_msg(XAB_WIRE_VERSION, XAB_WIRE_MAGIC, 5, 0, NULL, NULL, e, 2);
  if (!strcmp(what, "version")) return send_msg(99, XAB_WIRE_MAGIC, 1, 0, NULL, NULL, e, 1);
  if (!strcmp(what, "magic")) return send_msg(XAB_WIRE_VERSION, 0x1234, 1, 0, NULL, NULL, e, 1);
  if (!strcmp(what, "kind")) {
    e[1].kind = 999;
    return send_events(e, 3);
  }
  e[1] = ev(XAB_EV_JOINGROUP, XAB_PHASE_END, 0, 77, 0, 0, 0); /* badstr */
  return send_events(e, 3);
}

static int run(int argc, char** argv) {
  int i;
  for (i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* arg = i + 1 < argc ? argv[i + 1] : "0";
    int rc = 0;
    if (!strcmp(a, "info")) rc = act_info(arg, 0), ++i;
    else if (!strcmp(a, "infoonly")) rc = act_info(arg, 1), ++i;
    else if (!strcmp(a, "good")) rc = act_good(atoi(arg)), ++i;
    else if (!strcmp(a, "mcast")) rc = act_mcast(atoi(arg)), ++i;
    else if (!strcmp(a, "mark")) rc = act_mark(arg), ++i;
    else if (!strcmp(a, "lost")) g_lost = atoi(arg), ++i;
    else if (!strcmp(a, "sleep")) usleep((useconds_t)atoi(arg) * 1000), ++i;
    else if (!strcmp(a, "seqskip")) ++g_seq;
    else if (!strcmp(a, "seq")) g_seq = (unsigned)strtoll(arg, NULL, 10), ++i;
    else if (!strcmp(a, "time")) set_time(arg), ++i;
    else if (!strcmp(a, "hello")) rc = act_hello(arg), ++i;
    else if (!strcmp(a, "closed")) rc = act_closed();
    else if (!strcmp(a, "fork")) rc = act_fork();
    else if (!strcmp(a, "markref")) rc = act_markref(atoi(arg)), ++i;
    else if (!strcmp(a, "strings")) rc = act_strings(atoi(arg), i + 2 < argc ? atoi(argv[i + 2]) : 1), i += 2;
    else if (!strcmp(a, "empty")) rc = act_empty();
    else if (!strcmp(a, "pingunread")) rc = act_pingunread();
    else if (!strcmp(a, "nohello")) rc = act_nohello();
    else if (!strcmp(a, "fakeexit")) rc = act_fakeexit(arg), ++i;
    else if (!strcmp(a, "forgeexit")) rc = act_forgeexit(arg), ++i;
    else if (!strcmp(a, "route")) rc = act_route(arg), ++i;
    else if (!strcmp(a, "pokeforge")) rc = act_pokeforge(arg, i + 2 < argc ? argv[i + 2] : "empty"), i += 2;
    else if (!strcmp(a, "release"))
      rc = send_own((int)strtol(arg[0] == 't' ? arg + 1 : arg, NULL, 16), i + 2 < argc ? atoi(argv[i + 2]) : 0), i += 2;
    else if (!strcmp(a, "random")) rc = act_random(atoi(arg)), ++i;
    else if (!strcmp(a, "conns")) rc = act_conns(atoi(arg)), ++i;
    else if (!strcmp(a, "wait")) rc = act_wait();
    else if (!strcmp(a, "direct")) pvm_setopt(PvmRoute, PvmRouteDirect);
    else if (!strcmp(a, "local")) rc = act_local();
    else if (!strcmp(a, "badhello")) rc = act_badhello();
    else if (!strcmp(a, "trunc") || !strcmp(a, "version") || !strcmp(a, "magic") ||
             !strcmp(a, "kind") || !strcmp(a, "badstr"))
      rc = act_bad(a);
    else if (!strcmp(a, "pause")) {
      printf("paused\n");
      fflush(stdout);
      for (;;) pause();
    } else if (!strcmp(a, "kill")) {
      raise(SIGKILL);
    } else {
      fprintf(stderr, "fake_task: unknown action %s\n", a);
      return 2;
    }
    if (rc < 0) return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  int rc;
  g_tid = pvm_mytid();
  if (g_tid < 0) return 1;
  printf("tid=t%x\n", g_tid);
  fflush(stdout);
  rc = find_abmon();
  if (rc == 0) rc = run(argc, argv);
  if (rc == 3) fprintf(stderr, "fake_task: no abmon registered as %s\n", XAB_MBOX_NAME);
  pvm_exit();
  return rc;
}
