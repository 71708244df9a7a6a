/*
 * untimed_send.c -- does a send to abmon cost the sender CPU outside the
 * window libab times it in?  (docs/performance.md
 * "Intrusion compensation".)
 *
 * libab sends its records over a SOCK_SEQPACKET unix socket that abmon
 * reads on another core, and times each send from before the sendmsg to
 * after it (ab_cost.c).  Work the kernel does for the send outside that
 * window -- the wake-up it causes, interrupts, cache misses left for the
 * code after it -- would be charged to the task but never compensated.
 * Here one thread works in a loop (W multiply-adds an iteration), first
 * without and then with a send of a record-sized datagram each iteration
 * (timed the way libab times it), to a reader thread on another core; the
 * thread CPU clock gives each loop's CPU.  What the sends cost beyond
 * their timed windows is (CPU with - CPU without) - timed, per send.
 *
 *   untimed_send [-w WORK] [-n ITERATIONS] [-r REPEATS] [--task-core C] [--reader-core C]
 *
 * Prints one line per repeat: CPU per iteration without and with the
 * send, the timed send, and the untimed rest (ns).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "bench_util.h"

static int pair[2];
static int reader_core = 1;

static void pin(int core) {
  if (core < 0) return;
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(core, &s);
  pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

/* abmon's part: wait for a datagram, read it, until the socket closes. */
static void *reader(void *arg) {
  (void)arg;
  pin(reader_core);
  char buf[65536];
  for (;;) {
    struct pollfd p = {pair[1], POLLIN, 0};
    if (poll(&p, 1, -1) < 0) break;
    if (recv(pair[1], buf, sizeof buf, 0) <= 0) break;
  }
  return NULL;
}

/* As libab sends (ab_send_socket.c): when the reader is behind and the
 * socket full, wait for room, inside the timed window. */
static int send_one(const void *msg, size_t len) {
  for (;;) {
    if (send(pair[0], msg, len, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0) return 0;
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return -1;
    struct pollfd p = {pair[0], POLLOUT, 0};
    poll(&p, 1, 1000);
  }
}

static volatile unsigned sink;

int main(int argc, char **argv) {
  long work = 2000, n = 50000, repeats = 4;
  int task_core = 0;
  for (int i = 1; i < argc; i++) {
    long *dst = !strcmp(argv[i], "-w") ? &work : !strcmp(argv[i], "-n") ? &n : !strcmp(argv[i], "-r") ? &repeats : NULL;
    if (dst && i + 1 < argc) {
      *dst = atol(argv[++i]);
    } else if (!strcmp(argv[i], "--task-core") && i + 1 < argc) {
      task_core = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--reader-core") && i + 1 < argc) {
      reader_core = atoi(argv[++i]);
    } else {
      fprintf(stderr, "usage: untimed_send [-w WORK] [-n ITERATIONS] [-r REPEATS] [--task-core C] [--reader-core C]\n");
      return 2;
    }
  }
  if (work < 0 || n < 1 || repeats < 1) {
    fprintf(stderr, "untimed_send: -w >= 0, -n and -r >= 1\n");
    return 2;
  }
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair) < 0) {
    perror("untimed_send: socketpair");
    return 1;
  }
  pthread_t th;
  if (pthread_create(&th, NULL, reader, NULL) != 0) {
    fprintf(stderr, "untimed_send: no reader thread\n");
    return 1;
  }
  pin(task_core);
  char msg[64 + 3 * 56]; /* a header and three records, as an immediate-mode message */
  memset(msg, 1, sizeof msg);
  printf("untimed_send: %ld iterations of %ld multiply-adds; sender on core %d, reader on core %d (ns per iteration)\n", n,
         work, task_core, reader_core);
  printf("%10s %10s %10s %10s\n", "without", "with", "timed", "untimed");
  for (long r = 0; r < repeats; r++) {
    long long cpu[2], timed = 0;
    for (int with = 0; with < 2; with++) {
      long long c0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
      for (long i = 0; i < n; i++) {
        /* both loops read the clock twice, as a timed send does */
        long long a = bench_clock_ns(CLOCK_MONOTONIC);
        if (with && send_one(msg, sizeof msg) < 0) {
          perror("untimed_send: send");
          return 1;
        }
        long long b = bench_clock_ns(CLOCK_MONOTONIC);
        if (with) timed += b - a;
        unsigned x = sink;
        for (long k = 0; k < work; k++) x = x * 1103515245u + 12345u;
        sink = x;
      }
      cpu[with] = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
    }
    double per = (double)n;
    printf("%10.1f %10.1f %10.1f %10.1f\n", cpu[0] / per, cpu[1] / per, timed / per, (cpu[1] - cpu[0] - timed) / per);
  }
  return 0;
}
