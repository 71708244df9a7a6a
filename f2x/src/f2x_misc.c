/*
 * f2x_misc.c -- pvmfperror, pvmfstartpvmd and pvmfsleep.
 *
 * The three routines whose string handling is not the usual trimmed name:
 * pvmfperror passes its text on as is (trailing blanks too, as libfpvm3
 * does), pvmfstartpvmd splits one string into pvmd's arguments at blanks
 * and tabs.  pvmfsleep is not a PVM call and is not recorded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "f2x.h"

void pvmfperror_(char *str, int *info, size_t str_len);
void pvmfstartpvmd_(char *args, int *block, int *info, size_t args_len);
void pvmfsleep_(int *secs);

/* libpvm3's own sleep, which libfpvm3's pvmfsleep calls (not in pvm3.h). */
int pvmsleep(int secs);

/* A Fortran string as a C string, all of it (up to a NUL); free() it. */
static char *f2x_strdup(const char *s, size_t len) {
  const char *nul = memchr(s, '\0', len);
  if (nul) len = (size_t)(nul - s);
  char *c = malloc(len + 1);
  if (c) {
    memcpy(c, s, len);
    c[len] = '\0';
  }
  return c;
}

void pvmfperror_(char *str, int *info, size_t str_len) {
  f2x_begin();
  char *text = f2x_strdup(str, str_len);
  if (!text) {
    fputs("pvmfperror PvmNoMem", stderr); /* libfpvm3's words, no newline */
    *info = PvmNoMem;
    return;
  }
  *info = xab_perror(text);
  free(text);
}

/* Splits `line` in place at blanks and tabs; fills argv (if given) and
 * returns the number of words. */
static int split_words(char *line, char **argv) {
  int n = 0;
  for (char *p = line;;) {
    while (*p == ' ' || *p == '\t') p++;
    if (!*p) return n;
    char *word = p;
    while (*p && *p != ' ' && *p != '\t') p++;
    if (argv) {
      argv[n] = word;
      if (*p) *p++ = '\0';
    }
    n++;
  }
}

/* pvmfstartpvmd(args, block, info): libfpvm3 gives up with info = -1 when
 * it runs out of memory, and so does f2x.  (libfpvm3 also overruns its
 * array past 32 words; f2x has no such limit.) */
void pvmfstartpvmd_(char *args, int *block, int *info, size_t args_len) {
  f2x_begin();
  char *line = f2x_strdup(args, args_len);
  if (!line) {
    *info = -1;
    return;
  }
  char *probe = f2x_strdup(line, strlen(line));
  int n = probe ? split_words(probe, NULL) : -1;
  free(probe);
  char **argv = n > 0 ? calloc((size_t)n + 1, sizeof *argv) : NULL;
  if (n < 0 || (n > 0 && !argv)) {
    free(line);
    *info = -1;
    return;
  }
  if (argv) split_words(line, argv);
  *info = xab_start_pvmd(n, argv, *block);
  free(argv);
  free(line);
}

void pvmfsleep_(int *secs) {
  f2x_begin();
  pvmsleep(*secs);
}
