/*
 * f2x_call_bench.c -- what libf2x adds to a call on top of libab.
 *
 * A Fortran program's call goes pvmfpack_ -> xab_pkint -> pvm_pkint; a C
 * program's goes xab_pkint -> pvm_pkint.  This program makes both kinds of
 * call, from C through the exact entry points gfortran calls (same symbols,
 * same by-reference arguments), in alternating windows of W calls, and
 * prints the median ns per call of each and their difference: f2x's cost.
 * Three pairs:
 *   pack     pvmfpack_(INTEGER4, x, 1, 1, info)  vs  xab_pkint(&x, 1, 1)
 *   bufinfo  pvmfbufinfo_(mid, ...)              vs  xab_bufinfo(mid, ...)
 *   name     converting a 32-character blank-padded group name (f2x's
 *            string rule for every group, host and mailbox argument) alone
 * With abmon in the VM the calls are recorded, as in a monitored program;
 * XAB_BATCH=4096 XAB_FLUSH_MS=1000000 keeps flushes out of the windows
 * (each window is followed by an untimed xab_flush).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#include "xab/ab.h"

/* libf2x's Fortran entry points and helpers, as gfortran would call them. */
void pvmfpack_(int *what, void *vp, int *cnt, int *std, int *info);
void pvmfbufinfo_(int *mid, int *bytes, int *tag, int *tid, int *info);
int xab_f2x_ftoc(char *dst, size_t cap, const char *src, size_t len);

enum { MAX_WINDOWS = 10000, REINIT_EVERY = 1000, INTEGER4 = 3 };

/* One window of `calls` calls of one variant; returns ns per call. */
typedef void (*window_fn)(int calls);
static volatile int sink;

static void pack_c(int calls) {
  for (int i = 0; i < calls; i++) {
    if (i % REINIT_EVERY == 0) xab_initsend(PvmDataDefault);
    xab_pkint(&i, 1, 1);
  }
}
static void pack_f(int calls) {
  int what = INTEGER4, one = 1, info;
  for (int i = 0; i < calls; i++) {
    if (i % REINIT_EVERY == 0) xab_initsend(PvmDataDefault);
    pvmfpack_(&what, &i, &one, &one, &info);
  }
}
static void bufinfo_c(int calls) {
  int mid = xab_getsbuf(), bytes, tag, tid;
  for (int i = 0; i < calls; i++) sink = xab_bufinfo(mid, &bytes, &tag, &tid);
}
static void bufinfo_f(int calls) {
  int mid = xab_getsbuf(), bytes, tag, tid, info;
  for (int i = 0; i < calls; i++) pvmfbufinfo_(&mid, &bytes, &tag, &tid, &info);
}
static void name_f(int calls) {
  static const char padded[32] = "workers                         ";
  char c[32];
  for (int i = 0; i < calls; i++) sink = xab_f2x_ftoc(c, sizeof c, padded, sizeof padded) + c[0];
}
static void nothing(int calls) { (void)calls; }

static double timed(window_fn fn, int calls) {
  xab_flush();
  long long t0 = bench_now_ns();
  fn(calls);
  return (double)(bench_now_ns() - t0) / calls;
}

static void usage(FILE *to) {
  fprintf(to,
          "Usage: f2x_call_bench [-w CALLS] [-r WINDOWS]\n"
          "Time what libf2x adds per call on top of libab: CALLS calls per window\n"
          "(default 1000), WINDOWS alternating windows per variant (default 300);\n"
          "prints the median ns per call of the Fortran entry point, of the libab\n"
          "call, and the difference.  Run inside a PVM VM, with abmon for the\n"
          "monitored figures.\n"
          "Examples:\n"
          "  1. f2x_call_bench\n"
          "  2. XAB_BATCH=4096 XAB_FLUSH_MS=1000000 f2x_call_bench -w 1000 -r 500\n");
}

int main(int argc, char **argv) {
  int calls = 1000, windows = 300;
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
  if (xab_mytid() < 0) {
    fprintf(stderr, "f2x_call_bench: not in a PVM virtual machine (is pvmd running?)\n");
    return 1;
  }
  static const struct {
    const char *name;
    window_fn f2x, c;
  } pairs[] = {{"pack", pack_f, pack_c}, {"bufinfo", bufinfo_f, bufinfo_c}, {"name", name_f, nothing}};
  static double f[MAX_WINDOWS], c[MAX_WINDOWS], d[MAX_WINDOWS];
  for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
    pairs[p].f2x(calls); /* warm up */
    pairs[p].c(calls);
    for (int w = 0; w < windows; w++) {
      f[w] = timed(pairs[p].f2x, calls);
      c[w] = timed(pairs[p].c, calls);
      d[w] = f[w] - c[w];
    }
    bench_sort(f, (size_t)windows);
    bench_sort(c, (size_t)windows);
    bench_sort(d, (size_t)windows);
    printf("f2x %-8s calls=%d windows=%d f2x_median_ns=%.2f libab_median_ns=%.2f "
           "added_median_ns=%.2f added_min_ns=%.2f\n",
           pairs[p].name, calls, windows, f[windows / 2], c[windows / 2], d[windows / 2], d[0]);
  }
  xab_exit();
  return 0;
}
