/*
 * bench_util.h -- what the benchmark programs share: clocks in nanoseconds,
 * sorting repeated measurements for their median, and integer options.
 * Plain C, usable from the C and the C++ benchmarks alike; include it after
 * the feature macros (_GNU_SOURCE or _POSIX_C_SOURCE) clock_gettime needs.
 */
#ifndef XAB_BENCH_UTIL_H
#define XAB_BENCH_UTIL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline int64_t bench_clock_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Elapsed time: the monotonic clock. */
static inline int64_t bench_now_ns(void) { return bench_clock_ns(CLOCK_MONOTONIC); }

/* The process's CPU time: robust to other jobs sharing the core. */
static inline int64_t bench_cpu_ns(void) { return bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID); }

static inline int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts n measurements in place: v[n / 2] is then the median, v[0] the min. */
static inline void bench_sort(double *v, size_t n) { qsort(v, n, sizeof *v, bench_cmp_double); }

/* s as a whole decimal number in [min, 100000000]: 0 and *out set, or -1. */
static inline int bench_parse_int(const char *s, int min, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < min || v > 100000000) return -1;
  *out = (int)v;
  return 0;
}

/* An integer option: when argv[*i] is one of the n flags and is followed by
 * a number bench_parse_int takes, stores it, steps *i onto the value and
 * returns 0.  -1 otherwise (an unknown flag, a missing or bad value). */
struct bench_flag {
  const char *flag;
  int *value;
};
static inline int bench_int_flag(int argc, char **argv, int *i, const struct bench_flag *flags, size_t n, int min) {
  for (size_t f = 0; f < n; f++)
    if (strcmp(argv[*i], flags[f].flag) == 0) {
      if (*i + 1 >= argc || bench_parse_int(argv[*i + 1], min, flags[f].value) < 0) return -1;
      ++*i;
      return 0;
    }
  return -1;
}

#endif
