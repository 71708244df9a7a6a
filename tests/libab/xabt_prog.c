/*
 * xabt_prog.c -- a tiny PVM program for libab's tests, one mode per case.
 *
 * Built twice: xabt_prog (with libab) and xabt_prog_plain (-DXAB_DISABLE).
 * A child is spawned by the parent's own program name, so each build talks
 * to itself; "plainsender" mixes the two.  Output is deterministic (no tids,
 * no times), so a test can compare the two builds' output byte for byte.
 *
 *   xabt_prog MODE [N]
 *     calls        many calls of every family; prints what they returned
 *     halfbuilt    pack, flush libab's buffer mid-message, finish, send
 *     wildcard     child receives with recv(-1,-1)/nrecv/probe: only ours
 *     notify       pvmd's task-exit notify message arrives intact
 *     plainsender  an uninstrumented child sends to an instrumented parent
 *     pingpong N   N roundtrips, printing a checksum
 *     idle N       record N packs, then sleep (to be killed)
 *     blocked      record some calls, then block in a receive (to be killed)
 *     first CALL   CALL (config, tasks, getmboxinfo, ...) is the first PVM
 *                  call, and the last: no pvm_exit (PVM's gmbi example)
 *     mailbox      list the mailbox, ask for abmon's entry by name
 *     bcast N      N group members broadcast to each other (PVM's ge)
 *     pokecover    a handler of the program's that covers abmon's pokes: it
 *                  never sees one
 *     handlers     message handlers: ids, errors, PVM's table printout,
 *                  messages they take; pvm_exit and enroll again (PVM's
 *                  mhf_server)
 */
#include "xab.h"

/* abmon's mailbox entry, default tag and pokes' tag: the plain build too. */
#include <xab/wire.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* libpvm3's, not in pvm3.h: prints its message handler table (PVM's
 * mhf_server example calls it). */
void pvmdisplaymhfinfo(char *who, char *msg, int tid);
extern int pvm_errno;


#if defined(__SANITIZE_ADDRESS__)
/* libpvm3 never frees some of what it allocates (pvmbeatask, at every
 * enrollment: "handlers" enrolls twice); LeakSanitizer would fail both
 * builds at exit for PVM's leaks, as abmon's lsan_suppressions.cpp says. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libpvm3\n"; }
#endif

static const char *self_name(const char *argv0) {
  const char *slash = strrchr(argv0, '/');
  return slash ? slash + 1 : argv0;
}

static int spawn_child(const char *prog, const char *mode) {
  char *args[] = {(char *)mode, NULL};
  int tid = 0;
  if (pvm_spawn((char *)prog, args, PvmTaskDefault, "", 1, &tid) != 1) {
    printf("spawn of %s failed: %d\n", prog, tid);
    pvm_exit();
    exit(1);
  }
  return tid;
}

/* ---------------------------------------------------------------- calls */

/* Take the next 8 free buffer ids and give them back smallest on top. */
static void sort_free_ids(void) {
  int ids[8];
  for (int k = 0; k < 8; k++) ids[k] = pvm_mkbuf(PvmDataDefault);
  for (int i = 1; i < 8; i++)
    for (int j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
      int t = ids[j];
      ids[j] = ids[j - 1];
      ids[j - 1] = t;
    }
  for (int k = 7; k >= 0; k--) pvm_freebuf(ids[k]);
}

static int ignore_message(int mid) {
  (void)mid;
  return 0;
}

static int mode_calls(const char *prog) {
  int me = pvm_mytid();
  /* libab's own calls (finding abmon, sending to it) leave PVM's error
   * number alone: pvm_perror reports it. */
  printf("pvm_errno=%d\n", pvm_errno);
  printf("parent=%d\n", pvm_parent());
  /* Handler ids come from a LIFO free list, as libab's own handler's does. */
  int h1 = pvm_addmhf(-1, 777, 0, ignore_message), h2 = pvm_addmhf(-1, 778, 0, ignore_message);
  printf("delmhf=%d\n", pvm_delmhf(h1));
  int h3 = pvm_addmhf(-1, 779, 0, ignore_message);
  printf("addmhf=%d,%d,%d\n", h1, h2, h3);
  int child = spawn_child(prog, "echo");
  int sbuf = pvm_initsend(PvmDataDefault);
  int i = 42;
  float f = 1.5f;
  double d = 2.25;
  short s = 7;
  long l = 123456789L;
  char bytes[4] = {1, 2, 3, 4};
  pvm_pkint(&i, 1, 1);
  pvm_pkfloat(&f, 1, 1);
  pvm_pkdouble(&d, 1, 1);
  pvm_pkshort(&s, 1, 1);
  pvm_pklong(&l, 1, 1);
  pvm_pkbyte(bytes, 4, 1);
  pvm_pkstr("hello");
  printf("send=%d\n", pvm_send(child, 11));
  int rbuf = pvm_recv(child, 12);
  int bytes_in = 0, tag = 0, src = 0;
  int info = pvm_bufinfo(rbuf, &bytes_in, &tag, &src);
  printf("bufinfo=%d tag=%d bytes=%d from_child=%d\n", info, tag, bytes_in, src == child);
  int i2 = 0;
  float f2 = 0;
  double d2 = 0;
  short s2 = 0;
  long l2 = 0;
  char b2[4] = {0};
  char str[32] = "";
  pvm_upkint(&i2, 1, 1);
  pvm_upkfloat(&f2, 1, 1);
  pvm_upkdouble(&d2, 1, 1);
  pvm_upkshort(&s2, 1, 1);
  pvm_upklong(&l2, 1, 1);
  pvm_upkbyte(b2, 4, 1);
  pvm_upkstr(str);
  printf("echo %d %.2f %.2f %d %ld %d%d%d%d %s\n", i2, f2, d2, s2, l2, b2[0], b2[1], b2[2], b2[3], str);
  int tids[1] = {child};
  pvm_initsend(PvmDataDefault);
  pvm_pkint(&i, 1, 1);
  printf("mcast=%d\n", pvm_mcast(tids, 1, 13));
  int arr[3] = {5, 6, 7};
  printf("psend=%d\n", pvm_psend(child, 14, arr, 3, PVM_INT));
  int got[3] = {0}, rtid = 0, rtag = 0, rlen = 0;
  int precv = pvm_precv(child, 15, got, 3, PVM_INT, &rtid, &rtag, &rlen);
  printf("precv=%d tag=%d len=%d vals=%d,%d,%d\n", precv, rtag, rlen, got[0], got[1], got[2]);
  /* A reply that takes longer than abmon's poke time: abmon pokes this
   * task while it waits, and the buffer ids must not tell.  Which ids are
   * free, in which order, depends so far on when the child's messages
   * happened to arrive (a plain run under other timing differs too): put
   * the top of PVM's free list in a known order first. */
  sort_free_ids();
  pvm_initsend(PvmDataDefault);
  pvm_send(child, 18);
  printf("slow_recv=%d\n", pvm_recv(child, 19));
  int after[3];
  for (int k = 0; k < 3; k++) after[k] = pvm_mkbuf(PvmDataDefault);
  for (int k = 2; k >= 0; k--) pvm_freebuf(after[k]);
  printf("next_bufs=%d,%d,%d\n", after[0], after[1], after[2]);
  /* libab's socket to abmon must not take a descriptor the program would get. */
  int fd = open("/dev/null", O_RDONLY);
  printf("next_fd=%d\n", fd);
  close(fd);
  printf("nrecv_none=%d\n", pvm_nrecv(child, 999));
  printf("probe_none=%d\n", pvm_probe(child, 999));
  struct timeval tmo = {0, 20000};
  printf("trecv_timeout=%d\n", pvm_trecv(child, 999, &tmo));
  printf("joingroup=%d\n", pvm_joingroup("xabt"));
  printf("gsize=%d\n", pvm_gsize("xabt"));
  printf("getinst=%d\n", pvm_getinst("xabt", me));
  printf("gettid_is_me=%d\n", pvm_gettid("xabt", 0) == me);
  printf("barrier=%d\n", pvm_barrier("xabt", 1));
  printf("lvgroup=%d\n", pvm_lvgroup("xabt"));
  int nhost = 0, narch = 0;
  struct pvmhostinfo *hosts;
  int config = pvm_config(&nhost, &narch, &hosts);
  printf("config=%d nhost=%d\n", config, nhost);
  int ctx = pvm_newcontext();
  int old = pvm_setcontext(ctx);
  printf("context_switch=%d\n", pvm_getcontext() == ctx);
  pvm_setcontext(old);
  pvm_freecontext(ctx);
  int mb = pvm_initsend(PvmDataDefault);
  pvm_pkint(&i, 1, 1);
  printf("putinfo=%d\n", pvm_putinfo("xabt.box", mb, PvmMboxDefault));
  printf("delinfo=%d\n", pvm_delinfo("xabt.box", 0, PvmMboxDefault));
  printf("getopt_route=%d\n", pvm_getopt(PvmRoute));
  printf("mstat=%d\n", pvm_mstat(hosts[0].hi_name));
  printf("pstat_child=%d\n", pvm_pstat(child));
  printf("kill=%d\n", pvm_kill(child));
  (void)sbuf;
  printf("exit=%d\n", pvm_exit());
  return 0;
}

/* The child of "calls": echo one message back, answer the mcast, psend. */
static int mode_echo(void) {
  int parent = pvm_parent();
  pvm_recv(parent, 11);
  int i, n = 0;
  float f;
  double d;
  short s;
  long l;
  char b[4];
  char str[32];
  pvm_upkint(&i, 1, 1);
  pvm_upkfloat(&f, 1, 1);
  pvm_upkdouble(&d, 1, 1);
  pvm_upkshort(&s, 1, 1);
  pvm_upklong(&l, 1, 1);
  pvm_upkbyte(b, 4, 1);
  pvm_upkstr(str);
  pvm_initsend(PvmDataDefault);
  pvm_pkint(&i, 1, 1);
  pvm_pkfloat(&f, 1, 1);
  pvm_pkdouble(&d, 1, 1);
  pvm_pkshort(&s, 1, 1);
  pvm_pklong(&l, 1, 1);
  pvm_pkbyte(b, 4, 1);
  pvm_pkstr(str);
  pvm_send(parent, 12);
  pvm_recv(parent, 13);
  pvm_upkint(&n, 1, 1);
  int arr[3];
  pvm_precv(parent, 14, arr, 3, PVM_INT, NULL, NULL, NULL);
  pvm_psend(parent, 15, arr, 3, PVM_INT);
  pvm_recv(parent, 18);
  usleep(800000); /* longer than abmon's poke time (300 ms by default) */
  pvm_initsend(PvmDataDefault);
  pvm_send(parent, 19);
  pvm_recv(parent, 16); /* killed while waiting here */
  return 0;
}

/* ---------------------------------------------------------------- invisibility */

static int mode_halfbuilt(const char *prog) {
  pvm_mytid();
  int child = spawn_child(prog, "halfchild");
  int a = 1, b = 2;
  int sbuf = pvm_initsend(PvmDataDefault);
  pvm_pkint(&a, 1, 1);
  xab_flush(); /* libab's own message goes out between the two packs */
  struct timeval tmo = {0, 30000};
  pvm_trecv(-1, 4242, &tmo); /* a receive long enough to flush by itself */
  pvm_pkint(&b, 1, 1);
  printf("same_sbuf=%d\n", pvm_getsbuf() == sbuf);
  pvm_send(child, 1);
  pvm_recv(child, 2);
  int sum = 0;
  pvm_upkint(&sum, 1, 1);
  printf("child_got_sum=%d\n", sum);
  pvm_exit();
  return 0;
}

static int mode_halfchild(void) {
  int parent = pvm_parent();
  int mid = pvm_recv(parent, 1);
  struct pvmminfo mi;
  pvm_getminfo(mid, &mi);
  int a = 0, b = 0, extra = 0;
  pvm_upkint(&a, 1, 1);
  pvm_upkint(&b, 1, 1);
  int more = pvm_upkint(&extra, 1, 1); /* nothing else may be in the message */
  int sum = a + b + (mi.wid != 0 ? 1000 : 0) + (more >= 0 ? 100 : 0);
  pvm_initsend(PvmDataDefault);
  pvm_pkint(&sum, 1, 1);
  pvm_send(parent, 2);
  pvm_exit();
  return 0;
}

static int mode_wildcard(const char *prog, int n) {
  pvm_mytid();
  int child = spawn_child(prog, "wildchild");
  for (int i = 0; i < n; i++) {
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&i, 1, 1);
    pvm_send(child, 100 + i);
    if (i % 3 == 0) xab_flush();
  }
  pvm_recv(child, 1);
  int count = 0;
  pvm_upkint(&count, 1, 1);
  printf("child_counted=%d\n", count);
  pvm_exit();
  return 0;
}

/* Receives with every wildcard form; prints each message it sees. */
static int mode_wildchild(void) {
  int parent = pvm_parent();
  int count = 0, stray = 0;
  for (int i = 0; i < 3; i++) {
    int mid;
    while ((mid = pvm_probe(-1, -1)) == 0) usleep(1000);
    mid = pvm_nrecv(-1, -1);
    int bytes, tag, src, v = -1;
    pvm_bufinfo(mid, &bytes, &tag, &src);
    pvm_upkint(&v, 1, 1);
    if (src != parent || tag != 100 + v) stray++;
    count++;
  }
  for (;;) {
    struct timeval tmo = {1, 0};
    int mid = pvm_trecv(-1, -1, &tmo);
    if (mid <= 0) break;
    int bytes, tag, src, v = -1;
    pvm_bufinfo(mid, &bytes, &tag, &src);
    pvm_upkint(&v, 1, 1);
    if (src != parent || tag != 100 + v) stray++;
    count++;
  }
  int result = count + 1000 * stray;
  pvm_initsend(PvmDataDefault);
  pvm_pkint(&result, 1, 1);
  pvm_send(parent, 1);
  pvm_exit();
  return 0;
}

static int mode_notify(const char *prog) {
  pvm_mytid();
  int child = spawn_child(prog, "quick");
  pvm_notify(PvmTaskExit, 77, 1, &child);
  int mid = pvm_recv(-1, 77);
  int gone = 0, bytes = 0, tag = 0, src = 0;
  pvm_bufinfo(mid, &bytes, &tag, &src);
  pvm_upkint(&gone, 1, 1);
  printf("notify tag=%d bytes=%d about_child=%d\n", tag, bytes, gone == child);
  pvm_exit();
  return 0;
}

static int mode_quick(void) {
  pvm_mytid();
  pvm_exit();
  return 0;
}

static int mode_plainsender(const char *prog) {
  pvm_mytid();
  char plain[256];
  snprintf(plain, sizeof plain, "%s_plain", prog);
  int child = spawn_child(plain, "sendthree");
  int total = 0;
  for (int i = 0; i < 3; i++) {
    int v = 0;
    pvm_recv(child, 5);
    pvm_upkint(&v, 1, 1);
    total += v;
  }
  printf("plain_total=%d\n", total);
  pvm_exit();
  return 0;
}

static int mode_sendthree(void) {
  int parent = pvm_parent();
  for (int v = 1; v <= 3; v++) {
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    pvm_send(parent, 5);
  }
  pvm_exit();
  return 0;
}

/* ---------------------------------------------------------------- first calls */

/* PVM's gmbi: the task's only PVM call reads the mailbox, and it ends
 * without pvm_exit.  Each CALL here is one that enrolls the task without
 * being a message call. */
static int mode_first(const char *call) {
  int n = 0, narch = 0, rc;
  struct pvmhostinfo *hosts;
  struct pvmtaskinfo *tasks;
  struct pvmmboxinfo *classes;
  int *tids;
  if (!strcmp(call, "config")) rc = pvm_config(&n, &narch, &hosts);
  else if (!strcmp(call, "tasks")) rc = pvm_tasks(0, &n, &tasks);
  else if (!strcmp(call, "getmboxinfo")) rc = pvm_getmboxinfo("*", &n, &classes);
  else if (!strcmp(call, "recvinfo")) rc = pvm_recvinfo("xabt.nothing", 0, PvmMboxDefault);
  else if (!strcmp(call, "archcode")) rc = pvm_archcode("LINUX64");
  else if (!strcmp(call, "newcontext")) rc = pvm_newcontext();
  else if (!strcmp(call, "getnoresets")) rc = pvm_getnoresets(&tids, &n);
  else if (!strcmp(call, "notify")) rc = pvm_notify(PvmHostAdd, 99, -1, NULL);
  else if (!strcmp(call, "siblings")) rc = pvm_siblings(&tids);
  else {
    fprintf(stderr, "xabt_prog: no first call %s\n", call);
    return 2;
  }
  printf("%s=%d\n", call, rc >= 0 ? 0 : rc); /* ids and counts vary between runs */
  return 0;
}

/* What the program sees of the mailbox: abmon's entry is libab's. */
static int mode_mailbox(void) {
  int n = -1;
  struct pvmmboxinfo *classes = NULL;
  int mb = pvm_initsend(PvmDataDefault);
  int i = 7;
  pvm_pkint(&i, 1, 1);
  printf("putinfo=%d\n", pvm_putinfo("xabt.box", mb, PvmMboxDefault));
  printf("getmboxinfo=%d n=%d\n", pvm_getmboxinfo("*", &n, &classes), n);
  for (int k = 0; k < n; k++) printf("class %s entries=%d\n", classes[k].mi_name, classes[k].mi_nentries);
  /* A second listing: PVM frees the first one's entries itself. */
  printf("getmboxinfo=%d n=%d\n", pvm_getmboxinfo("xab*", &n, &classes), n);
  printf("recvinfo_abmon=%d\n", pvm_recvinfo(XAB_MBOX_NAME, 0, PvmMboxDefault));
  printf("delinfo_abmon=%d\n", pvm_delinfo(XAB_MBOX_NAME, 0, PvmMboxDefault));
  printf("delinfo=%d\n", pvm_delinfo("xabt.box", 0, PvmMboxDefault));
  printf("next_buf=%d\n", pvm_mkbuf(PvmDataDefault));
  printf("exit=%d\n", pvm_exit());
  return 0;
}

/* ---------------------------------------------------------------- groups */

/* PVM's ge: every member broadcasts its instance number to the others and
 * receives theirs.  The first member spawns the rest. */
#define BCAST_GROUP "xabt.ge"
static int mode_bcast(const char *prog, int nproc) {
  int me = pvm_mytid();
  int gid = pvm_joingroup(BCAST_GROUP);
  int first = pvm_parent() == PvmNoParent;
  if (first) {
    int tids[32];
    char *args[] = {"bcast", NULL};
    if (nproc > 32 || pvm_spawn((char *)prog, args, PvmTaskDefault, "", nproc - 1, tids) != nproc - 1) return 1;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&nproc, 1, 1);
    pvm_mcast(tids, nproc - 1, 15);
  } else {
    pvm_recv(pvm_parent(), 15);
    pvm_upkint(&nproc, 1, 1);
  }
  pvm_barrier(BCAST_GROUP, nproc);
  pvm_initsend(PvmDataDefault);
  pvm_pkint(&gid, 1, 1);
  int rc = pvm_bcast(BCAST_GROUP, 63);
  int sum = 0;
  for (int i = 0; i < nproc - 1; i++) {
    int g = 0;
    pvm_recv(-1, 63);
    pvm_upkint(&g, 1, 1);
    sum += g;
  }
  /* everyone has received before anyone leaves */
  pvm_barrier(BCAST_GROUP, nproc);
  pvm_lvgroup(BCAST_GROUP);
  if (first) {
    printf("bcast=%d others_sum=%d\n", rc, sum);
    /* Alone in a group, and a group nobody joined: PVM's errors. */
    pvm_joingroup("xabt.alone");
    pvm_initsend(PvmDataDefault);
    printf("bcast_alone=%d\n", pvm_bcast("xabt.alone", 64));
    printf("bcast_nogroup=%d\n", pvm_bcast("xabt.nobody", 65));
    printf("next_buf=%d\n", pvm_mkbuf(PvmDataDefault));
    pvm_lvgroup("xabt.alone");
  }
  (void)me;
  pvm_exit();
  return 0;
}

/* ---------------------------------------------------------------- message handlers */

static int caught_sum;
static int catch_int(int mid) {
  int v = 0, bytes = 0, tag = 0, src = 0;
  pvm_bufinfo(mid, &bytes, &tag, &src);
  pvm_upkint(&v, 1, 1);
  printf("caught tag=%d v=%d\n", tag, v);
  caught_sum += v;
  return 0;
}

static void show_handlers(char *when) { pvmdisplaymhfinfo("xabt", when, 0); }

/* PVM's mhf_server: the program's handler ids, PVM's errors, PVM's own
 * printout of its table, messages taken by handlers, and pvm_exit (which
 * deletes every handler) followed by a new enrollment. */
static int mode_handlers(const char *prog) {
  pvm_mytid();
  int h1 = pvm_addmhf(-1, 50, 0, catch_int);
  int h2 = pvm_addmhf(-1, 51, 0, catch_int);
  printf("addmhf=%d,%d delmhf=%d\n", h1, h2, pvm_delmhf(h1));
  printf("delmhf_free=%d\n", pvm_delmhf(h1));
  int h3 = pvm_addmhf(-1, 52, 0, catch_int);
  printf("addmhf=%d\n", h3);
  show_handlers("after adds");
  printf("addmhf_overlap=%d\n", pvm_addmhf(-1, -1, -1, catch_int));
  printf("delmhf_high=%d\n", pvm_delmhf(99));
  printf("delmhf_neg=%d\n", pvm_delmhf(-2));
  int child = spawn_child(prog, "handlerchild");
  pvm_recv(child, 53); /* the handlers take tags 51 and 52 meanwhile */
  printf("caught_sum=%d\n", caught_sum);
  printf("next_buf=%d\n", pvm_mkbuf(PvmDataDefault));
  show_handlers("before exit");
  fflush(stdout);
  printf("exit=%d\n", pvm_exit());
  int again = pvm_mytid();
  printf("enrolled_again=%d\n", again > 0);
  int h4 = pvm_addmhf(-1, 54, 0, catch_int);
  printf("addmhf_again=%d\n", h4);
  show_handlers("enrolled again");
  printf("exit=%d\n", pvm_exit());
  return 0;
}

static int mode_handlerchild(void) {
  int parent = pvm_parent();
  for (int tag = 51; tag <= 53; tag++) {
    int v = tag * 10;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    pvm_send(parent, tag);
  }
  pvm_exit();
  return 0;
}

/* A handler for abmon's poke tag in every context covers libab's own poke
 * handler: PVM would hand it abmon's pokes.  It must never see one. */
static int foreign_calls;
static int count_foreign(int mid) {
  (void)mid;
  foreign_calls++;
  return 0;
}

static int mode_pokecover(const char *prog) {
  pvm_mytid();
  int child = spawn_child(prog, "slowthree");
  pvm_recv(child, 7); /* blocked for a second: abmon pokes */
  int h = pvm_addmhf(-1, XAB_DEFAULT_TAG + XAB_POKE_TAG_OFFSET, -1, count_foreign);
  printf("addmhf=%d\n", h);
  pvm_recv(child, 8); /* a poke in flight reaches the program's handler's place */
  printf("delmhf=%d\n", pvm_delmhf(h));
  pvm_recv(child, 9); /* libab's poke handler back */
  printf("handler_calls=%d\n", foreign_calls);
  printf("exit=%d\n", pvm_exit());
  return 0;
}

static int mode_slowthree(void) {
  int parent = pvm_parent();
  for (int tag = 7; tag <= 9; tag++) {
    usleep(1000000);
    pvm_initsend(PvmDataDefault);
    pvm_send(parent, tag);
  }
  pvm_exit();
  return 0;
}

/* ---------------------------------------------------------------- runs to stop */

static int mode_pingpong(const char *prog, int n) {
  pvm_mytid();
  int child = spawn_child(prog, "pong");
  long sum = 0;
  for (int i = 0; i < n; i++) {
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&i, 1, 1);
    pvm_send(child, 1);
    int v = 0;
    pvm_recv(child, 2);
    pvm_upkint(&v, 1, 1);
    sum += v;
    if (i % 100 == 0) printf("round %d\n", i);
  }
  int stop = -1;
  pvm_initsend(PvmDataDefault);
  pvm_pkint(&stop, 1, 1);
  pvm_send(child, 1);
  printf("pingpong sum=%ld\n", sum);
  pvm_exit();
  return 3; /* a distinctive exit code the test compares */
}

static int mode_pong(void) {
  int parent = pvm_parent();
  for (;;) {
    int v = 0;
    pvm_recv(parent, 1);
    pvm_upkint(&v, 1, 1);
    if (v < 0) break;
    v *= 2;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    pvm_send(parent, 2);
  }
  pvm_exit();
  return 0;
}

static int mode_idle(int n) {
  printf("tid=t%x\n", pvm_mytid());
  fflush(stdout);
  pvm_initsend(PvmDataDefault);
  for (int i = 0; i < n; i++) pvm_pkint(&i, 1, 1);
  sleep(60);
  return 0;
}

/* n records, then blocked in a receive: killed there, it has to wait for
 * abmon's poke to send them. */
static int mode_idlerecv(int n) {
  printf("tid=t%x\n", pvm_mytid());
  fflush(stdout);
  pvm_initsend(PvmDataDefault);
  for (int i = 0; i < n; i++) pvm_pkint(&i, 1, 1);
  pvm_recv(-1, 31337);
  return 0;
}

static int mode_blocked(void) {
  printf("tid=t%x\n", pvm_mytid());
  fflush(stdout);
  int i = 1;
  pvm_initsend(PvmDataDefault);
  pvm_pkint(&i, 1, 1);
  pvm_recv(-1, 31337);
  return 0;
}

int main(int argc, char **argv) {
  const char *prog = self_name(argv[0]);
  const char *mode = argc > 1 ? argv[1] : "calls";
  int n = argc > 2 ? atoi(argv[2]) : 10;
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (!strcmp(mode, "calls")) return mode_calls(prog);
  if (!strcmp(mode, "echo")) return mode_echo();
  if (!strcmp(mode, "halfbuilt")) return mode_halfbuilt(prog);
  if (!strcmp(mode, "halfchild")) return mode_halfchild();
  if (!strcmp(mode, "wildcard")) return mode_wildcard(prog, n);
  if (!strcmp(mode, "wildchild")) return mode_wildchild();
  if (!strcmp(mode, "notify")) return mode_notify(prog);
  if (!strcmp(mode, "quick")) return mode_quick();
  if (!strcmp(mode, "plainsender")) return mode_plainsender(prog);
  if (!strcmp(mode, "sendthree")) return mode_sendthree();
  if (!strcmp(mode, "pingpong")) return mode_pingpong(prog, n);
  if (!strcmp(mode, "pong")) return mode_pong();
  if (!strcmp(mode, "idle")) return mode_idle(n);
  if (!strcmp(mode, "blocked")) return mode_blocked();
  if (!strcmp(mode, "idlerecv")) return mode_idlerecv(n);
  if (!strcmp(mode, "first")) return mode_first(argc > 2 ? argv[2] : "");
  if (!strcmp(mode, "mailbox")) return mode_mailbox();
  if (!strcmp(mode, "bcast")) return mode_bcast(prog, n);
  if (!strcmp(mode, "handlers")) return mode_handlers(prog);
  if (!strcmp(mode, "pokecover")) return mode_pokecover(prog);
  if (!strcmp(mode, "slowthree")) return mode_slowthree();
  if (!strcmp(mode, "handlerchild")) return mode_handlerchild();
  fprintf(stderr, "xabt_prog: unknown mode %s\n", mode);
  return 2;
}
