/*
 * libab_record_bench.c -- what one instrumented call costs the calling task
 * outside flushes: clock read + record append, nothing sent.
 *
 * Built twice like pingpong.c (libab_record_bench-plain / -xab).  A window
 * is W calls of pvm_pkint(&x, 1, 1) into a send buffer (re-initsend every
 * 1000 calls, so the buffer stays small), timed as a whole.  Before each
 * window the task sends what libab holds (xab_flush, untimed), so with
 * XAB_BATCH >= W+W/1000 and a long XAB_FLUSH_MS no flush falls inside a
 * window.  The flush itself is timed apart.  The difference between the two
 * variants' ns per event is libab's cost per event on the calling task.
 *
 * The -xab variant must run with abmon in the VM (otherwise libab switches
 * itself off and the figure means nothing): run-libab-bench.sh sees to it.
 */
#define _GNU_SOURCE
#include <xab.h>

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

enum { REINIT_EVERY = 1000, MAX_WINDOWS = 10000 };

static void usage(FILE *to) {
  fprintf(to,
          "Usage: libab_record_bench-{plain,xab} [-w CALLS] [-r WINDOWS]\n"
          "Time windows of CALLS pvm_pkint(&x,1,1) calls (default 4000; re-initsend\n"
          "every 1000), WINDOWS times (default 300), and print ns per event (median,\n"
          "min) and, for -xab, the cost of sending one window's records to abmon.\n"
          "Run inside a PVM VM; -xab needs abmon and XAB_BATCH=4096 XAB_FLUSH_MS=1000000.\n"
          "Examples:\n"
          "  1. libab_record_bench-plain\n"
          "  2. XAB_BATCH=4096 XAB_FLUSH_MS=1000000 libab_record_bench-xab -w 4000 -r 500\n");
}

/* One window: calls pkints plus one initsend per REINIT_EVERY. */
static int window(int calls) {
  int events = 0;
  for (int i = 0; i < calls; i++) {
    if (i % REINIT_EVERY == 0) pvm_initsend(PvmDataDefault), events++;
    pvm_pkint(&i, 1, 1);
    events++;
  }
  return events;
}

int main(int argc, char **argv) {
  int calls = 4000, windows = 300;
  const struct bench_flag flags[] = {{"-w", &calls}, {"-r", &windows}};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    }
    if (bench_int_flag(argc, argv, &i, flags, 2, 1) < 0) {
      usage(stderr);
      return 2;
    }
  }
  if (windows > MAX_WINDOWS) windows = MAX_WINDOWS;
  if (pvm_mytid() < 0) {
    fprintf(stderr, "libab_record_bench: not in a PVM virtual machine (is pvmd running?)\n");
    return 1;
  }
  static double per_event[MAX_WINDOWS], flush_ns[MAX_WINDOWS];
  int events = window(calls); /* warm up caches and PVM's buffers */
  for (int w = 0; w < windows; w++) {
    int64_t t0 = bench_now_ns();
    xab_flush();
    int64_t t1 = bench_now_ns();
    window(calls);
    int64_t t2 = bench_now_ns();
    flush_ns[w] = (double)(t1 - t0);
    per_event[w] = (double)(t2 - t1) / events;
  }
  bench_sort(per_event, (size_t)windows);
  bench_sort(flush_ns, (size_t)windows);
  /* flush_ns[i] sends the previous window's records (the first: the warm-up's) */
  printf("record variant=%s calls=%d events_per_window=%d windows=%d median_ns_per_event=%.2f "
         "min_ns_per_event=%.2f median_flush_us=%.1f flush_ns_per_event=%.2f\n",
         VARIANT, calls, events, windows, per_event[windows / 2], per_event[0], flush_ns[windows / 2] / 1000,
         flush_ns[windows / 2] / events);
  pvm_exit();
  return 0;
}
