/*
 * pingpong.c -- what libab costs a PVM program that talks a lot.
 *
 * One source, built twice (bench/libab_bench.cmake): pingpong-plain with
 * XAB_DISABLE (xab.h is then only pvm3.h) and pingpong-xab with libab.  The
 * master spawns its partner by its own program name, so each variant talks
 * to a copy of itself and the two runs differ only by libab.
 *
 *   roundtrip  like PVM's `timing` example: the master sends one int, the
 *              partner sends it back (initsend + pkint + send, recv + upkint
 *              on both sides: 6 libab events per task per roundtrip)
 *   packloop   the master sends N one-int messages as fast as it can
 *              (initsend + pkint + send: 3 events per message); the partner
 *              receives them all (recv + upkint: 3 events) and replies once
 *   kill       the partner calls pvm_mytid + pvm_pkint K times, says so, then
 *              computes (killrecv: blocks in pvm_recv); the master ends it
 *              with pvm_kill.  The trace must
 *              still hold the partner's K+1 mytid records (run-libab-bench.sh
 *              counts them).
 *   killsend   the partner sends one-int messages to the master as fast as
 *              it can; the master kills it after 20 ms of that and counts
 *              what arrived.  The trace must hold at least as many of the
 *              partner's send records as messages arrived.
 *
 * Output: one line per result, `key=value` fields, for run-libab-bench.sh.
 */
#define _GNU_SOURCE
#include <xab.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#ifdef XAB_DISABLE
#define VARIANT "plain"
#else
#define VARIANT "xab"
#endif

enum { TAG_PING = 101, TAG_PONG, TAG_DATA, TAG_DONE, TAG_READY };
enum { MAX_REPS = 101 };

struct options {
  const char *mode;
  int n;      /* roundtrips or messages per repetition */
  int reps;   /* timed repetitions; the median is reported */
  int warmup; /* untimed roundtrips first */
  int k;      /* kill mode: calls before the kill */
  int direct; /* PvmRouteDirect between the two tasks, as PVM's `timing` */
  int trecv;  /* receive with a timed wait (1) or a poll loop (2): attribution runs */
  int partner;
  const char *host; /* -H: spawn the partner on this host (cross-host runs) */
};

static void usage(FILE *to) {
  fprintf(to,
          "Usage: pingpong-{plain,xab} roundtrip [-n N] [-r REPS] [-w WARMUP] [-H HOST]\n"
          "       pingpong-{plain,xab} packloop [-n N] [-r REPS] [-H HOST]\n"
          "       pingpong-{plain,xab} kill|killrecv [-k K]\n"
          "       pingpong-{plain,xab} killsend\n"
          "Measure what libab adds to PVM calls (run inside a PVM virtual machine whose\n"
          "ep= path holds this program; pingpong-xab also wants abmon running).\n"
          "  roundtrip  N roundtrips of one int with a spawned copy (default N=10000,\n"
          "             REPS=5, WARMUP=1000); prints us per roundtrip, median and min\n"
          "  packloop   N initsend+pkint+send messages to the partner, which replies\n"
          "             once at the end (default N=100000); prints ns per message\n"
          "  kill       the partner makes K pvm_mytid+pvm_pkint calls (default 100),\n"
          "             then computes until the master pvm_kills it; prints its tid\n"
          "  killrecv   the same, but the partner is blocked in pvm_recv when killed\n"
          "  killsend   the partner sends to the master nonstop; the master kills it\n"
          "             after 20 ms and prints how many of its messages arrived\n"
          "Options: -d 1 (default) routes messages directly between the two tasks\n"
          "(PvmRouteDirect, as PVM's `timing` example); -d 0 lets them go through pvmd.\n"
          "-t 1 receives with pvm_trecv(2 ms) first, as libab's receive did before pokes;\n"
          "-t 2 with pvm_nrecv and a blocking poll() on PVM's sockets\n"
          "(with pingpong-plain: what each way of waiting costs by itself).\n"
          "-H HOST spawns the partner on HOST (a cross-host run; scripts/pvm-hosts.sh).\n"
          "Examples:\n"
          "  1. pingpong-plain roundtrip -n 20000 -r 7\n"
          "  2. XAB_BATCH=1 pingpong-xab packloop -n 50000\n"
          "  3. pingpong-xab kill -k 200     # then count the partner's records\n"
          "  4. pingpong-xab killsend        # its send records >= received?\n"
          "See bench/run-libab-bench.sh and docs/performance.md.\n");
}

static int parse_args(int argc, char **argv, struct options *o) {
  *o = (struct options){.n = 0, .reps = 5, .warmup = 1000, .k = 100, .direct = 1};
  int i = 1;
  if (i < argc && strcmp(argv[i], "--partner") == 0) o->partner = 1, i++;
  if (i >= argc) return -1;
  o->mode = argv[i++];
  if (strcmp(o->mode, "roundtrip") && strcmp(o->mode, "packloop") && strcmp(o->mode, "kill") &&
      strcmp(o->mode, "killrecv") && strcmp(o->mode, "killsend"))
    return -1;
  o->n = strcmp(o->mode, "roundtrip") == 0 ? 10000 : 100000;
  for (; i < argc; i += 2) {
    if (!strcmp(argv[i], "-H") && i + 1 < argc) {
      o->host = argv[i + 1];
      continue;
    }
    int *dst = !strcmp(argv[i], "-n") ? &o->n : !strcmp(argv[i], "-r") ? &o->reps
             : !strcmp(argv[i], "-w") ? &o->warmup : !strcmp(argv[i], "-k") ? &o->k
             : !strcmp(argv[i], "-d") ? &o->direct : !strcmp(argv[i], "-t") ? &o->trecv : NULL;
    int min = dst == &o->warmup || dst == &o->direct || dst == &o->trecv ? 0 : 1;
    if (!dst || i + 1 >= argc || bench_parse_int(argv[i + 1], min, dst) < 0) return -1;
  }
  if (o->reps > MAX_REPS) o->reps = MAX_REPS;
  return 0;
}

/* ---------------------------------------------------------------- messages */

static void send_int(int tid, int tag, int x) {
  pvm_initsend(PvmDataDefault);
  pvm_pkint(&x, 1, 1);
  pvm_send(tid, tag);
}

static int use_trecv;
static int self_tid; /* in the report: the script counts this task's records */
static int partner_tid; /* in the report: its host part shows where it ran */

/* Attribution runs of the plain variant, what two ways of waiting that
 * libab could use would cost by themselves: -t 1 a pvm_trecv with a 2 ms
 * timeout first (libab's receive before pokes: the kernel timer it arms is
 * expensive on virtual machines), -t 2 pvm_nrecv and a blocking poll() on
 * PVM's sockets (no timer, but two more system calls). */
static int recv_int(int tid, int tag) {
  int x = 0;
  struct timeval shortwait = {0, 2000};
  if (use_trecv == 2) {
    while (pvm_nrecv(tid, tag) == 0) {
      int *fds = NULL, n = pvm_getfds(&fds);
      struct pollfd p[16];
      for (int i = 0; i < n && i < 16; i++) p[i] = (struct pollfd){fds[i], POLLIN, 0};
      poll(p, (nfds_t)(n < 16 ? n : 16), -1);
    }
  } else if (!use_trecv || pvm_trecv(tid, tag, &shortwait) == 0) {
    pvm_recv(tid, tag);
  }
  pvm_upkint(&x, 1, 1);
  return x;
}

/* ---------------------------------------------------------------- partner */

/* The partner's CPU time in microseconds, sent when the master asks. */
static void send_cpu(int master, int64_t since) {
  send_int(master, TAG_DONE, (int)((bench_cpu_ns() - since) / 1000));
}

static void partner_roundtrip(int master) {
  int64_t cpu0 = bench_cpu_ns();
  for (;;) {
    int x = recv_int(master, TAG_PING);
    send_int(master, TAG_PONG, x);
    if (x < 0) break;
  }
  send_cpu(master, cpu0);
}

/* -1 ends a repetition (reply with the count), -2 ends the run. */
static void partner_packloop(int master) {
  int64_t cpu0 = bench_cpu_ns();
  int got = 0;
  for (;;) {
    int x = recv_int(master, TAG_DATA);
    if (x == -2) {
      send_cpu(master, cpu0);
      return;
    }
    if (x == -1) {
      send_int(master, TAG_DONE, got);
      got = 0;
    } else {
      got++;
    }
  }
}

/* Record k calls that libab keeps in its buffer (k < batch, well under
 * flush_ms), tell the master, then compute without PVM calls until killed.
 * pvm_mytid is in PVM's default trace mask too, so both tracers see them. */
static void partner_kill(int master, int k, int blocked) {
  pvm_initsend(PvmDataDefault);
  for (int i = 0; i < k; i++) {
    pvm_mytid();
    pvm_pkint(&i, 1, 1);
  }
  send_int(master, TAG_READY, k);
  if (blocked) pvm_recv(master, TAG_DONE + 1000); /* killrecv: killed while blocked here */
  int64_t end = bench_now_ns() + (int64_t)30 * 1000000000;
  volatile double sink = 0;
  while (bench_now_ns() < end) /* computing, as a real worker would */
    for (int i = 0; i < 100000; i++) sink += i * 0.5;
  (void)sink; /* the loop is the work: clang counts a volatile only written as unused */
}

/* Killed while it communicates: most of the time inside pvm_send, with
 * messages queued in its socket to pvmd. */
static void partner_killsend(int master) {
  for (int i = 0;; i++) send_int(master, TAG_DATA, i);
}

/* ---------------------------------------------------------------- master */

/* per[]: wall time per operation of each repetition; cpu: both tasks' CPU
 * time per operation over the whole run (warm-up included). */
static void report(const char *mode, const struct options *o, double *per, double cpu, const char *unit,
                   int events_per_op, long ops) {
  bench_sort(per, (size_t)o->reps);
  printf("%s variant=%s%s route=%s n=%d reps=%d median_%s=%.3f min_%s=%.3f cpu_%s=%.3f events_per_op=%d "
         "tid=t%x ops=%ld partner=t%x\n",
         mode, VARIANT, o->trecv == 2 ? "+poll" : o->trecv ? "+trecv" : "", o->direct ? "direct" : "pvmd", o->n, o->reps, unit,
         per[o->reps / 2], unit, per[0], unit, cpu, events_per_op, (unsigned)self_tid, ops,
         (unsigned)partner_tid);
}

static double both_cpu(int partner, int64_t since, long ops, double unit_ns) {
  double mine = (double)(bench_cpu_ns() - since);
  double theirs = recv_int(partner, TAG_DONE) * 1000.0;
  return (mine + theirs) / (double)ops / unit_ns;
}

static void master_roundtrip(int partner, const struct options *o) {
  double per[MAX_REPS];
  int64_t cpu0 = bench_cpu_ns();
  for (int i = 0; i < o->warmup; i++) send_int(partner, TAG_PING, i), recv_int(partner, TAG_PONG);
  for (int r = 0; r < o->reps; r++) {
    int64_t t0 = bench_now_ns();
    for (int i = 0; i < o->n; i++) {
      send_int(partner, TAG_PING, i);
      recv_int(partner, TAG_PONG);
    }
    per[r] = (double)(bench_now_ns() - t0) / o->n / 1000.0;
  }
  send_int(partner, TAG_PING, -1);
  recv_int(partner, TAG_PONG);
  long ops = (long)o->warmup + (long)o->n * o->reps + 1;
  report("roundtrip", o, per, both_cpu(partner, cpu0, ops, 1000.0), "us", 12, ops);
}

static void master_packloop(int partner, const struct options *o) {
  double per[MAX_REPS];
  int64_t cpu0 = bench_cpu_ns();
  int warm = o->n < 1000 ? o->n : 1000;
  for (int i = 0; i < warm; i++) send_int(partner, TAG_DATA, i);
  send_int(partner, TAG_DATA, -1);
  recv_int(partner, TAG_DONE);
  for (int r = 0; r < o->reps; r++) {
    int64_t t0 = bench_now_ns();
    for (int i = 0; i < o->n; i++) {
      pvm_initsend(PvmDataDefault);
      pvm_pkint(&i, 1, 1);
      pvm_send(partner, TAG_DATA);
    }
    send_int(partner, TAG_DATA, -1);
    int got = recv_int(partner, TAG_DONE);
    per[r] = (double)(bench_now_ns() - t0) / o->n;
    if (got != o->n) fprintf(stderr, "pingpong: partner got %d of %d messages\n", got, o->n);
  }
  send_int(partner, TAG_DATA, -2);
  long ops = (long)warm + (long)o->n * o->reps;
  report("packloop", o, per, both_cpu(partner, cpu0, ops, 1.0), "ns", 6, ops);
}

static void master_kill(int partner, int blocked) {
  int k = recv_int(partner, TAG_READY);
  /* killrecv: let it reach its receive (well before abmon's poke) */
  if (blocked) nanosleep(&(struct timespec){0, 50 * 1000000}, NULL);
  int rc = pvm_kill(partner);
  /* the partner's pvm_mytid calls: k in the loop, one at its start */
  printf("kill variant=%s victim=t%x calls=%d expected_mytid=%d rc=%d\n", VARIANT, (unsigned)partner, k,
         k + 1, rc);
}

static void master_killsend(int partner) {
  int got = 0;
  pvm_recv(partner, TAG_DATA), got++;
  struct timespec pause = {0, 20000000};
  nanosleep(&pause, NULL);
  int rc = pvm_kill(partner);
  struct timeval drain = {0, 500000};
  while (pvm_trecv(partner, TAG_DATA, &drain) > 0) got++, drain = (struct timeval){0, 500000};
  printf("killsend variant=%s victim=t%x received=%d rc=%d\n", VARIANT, (unsigned)partner, got, rc);
}

static int spawn_partner(const char *self, const struct options *o, int *tid) {
  char n[16], k[16], d[16], t[16];
  snprintf(n, sizeof n, "%d", o->n);
  snprintf(k, sizeof k, "%d", o->k);
  snprintf(d, sizeof d, "%d", o->direct);
  snprintf(t, sizeof t, "%d", o->trecv);
  char *args[] = {"--partner", (char *)o->mode, "-n", n, "-k", k, "-d", d, "-t", t, NULL};
  int rc = pvm_spawn((char *)self, args, o->host ? PvmTaskHost : PvmTaskDefault, (char *)(o->host ? o->host : ""), 1,
                     tid);
  partner_tid = *tid;
  if (rc == 1) return 0;
  fprintf(stderr, "pingpong: cannot spawn %s (rc %d, tid %d): is its directory on the VM's ep= path?\n",
          self, rc, *tid);
  return -1;
}

int main(int argc, char **argv) {
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    usage(stdout);
    return 0;
  }
  struct options o;
  if (parse_args(argc, argv, &o) < 0) {
    usage(stderr);
    return 2;
  }
  if ((self_tid = pvm_mytid()) < 0) {
    fprintf(stderr, "pingpong: not in a PVM virtual machine (is pvmd running?)\n");
    return 1;
  }
  if (o.direct) pvm_setopt(PvmRoute, PvmRouteDirect);
  use_trecv = o.trecv;
  int status = 0;
  if (o.partner) {
    int master = pvm_parent();
    if (!strcmp(o.mode, "roundtrip")) partner_roundtrip(master);
    else if (!strcmp(o.mode, "packloop")) partner_packloop(master);
    else if (!strcmp(o.mode, "killsend")) partner_killsend(master);
    else partner_kill(master, o.k, !strcmp(o.mode, "killrecv"));
  } else {
    const char *slash = strrchr(argv[0], '/');
    int partner = 0;
    if (spawn_partner(slash ? slash + 1 : argv[0], &o, &partner) < 0) status = 1;
    else if (!strcmp(o.mode, "roundtrip")) master_roundtrip(partner, &o);
    else if (!strcmp(o.mode, "packloop")) master_packloop(partner, &o);
    else if (!strcmp(o.mode, "killsend")) master_killsend(partner);
    else master_kill(partner, !strcmp(o.mode, "killrecv"));
  }
  fflush(stdout);
  pvm_exit();
  return status;
}
