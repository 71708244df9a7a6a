/*
 * xab/filter.h -- filtering at the source: the families of records a task
 * may omit (docs/libab.md "Filtering at the source").  libab reads them
 * from XAB_FILTER at attach and takes changes from abmon (its control
 * socket's "filter" request, xab/control_protocol.h); the task's `filter`
 * record (events.h) says what it omits, so a reader knows what the trace
 * cannot tell.
 *
 * XAB_FILTER=pack,clock  words separated by commas; "none" (or empty)
 *                        omits nothing.
 */
#ifndef XAB_FILTER_H
#define XAB_FILTER_H

#include <string.h>

#define XAB_FILTER_ENV "XAB_FILTER"

#define XAB_FILTER_PACK 0x1  /* pack and unpack records (XAB_F_PACK, XAB_F_UNPACK) */
#define XAB_FILTER_CLOCK 0x2 /* clock records while running (the start and end exchanges stay) */
#define XAB_FILTER_ALL (XAB_FILTER_PACK | XAB_FILTER_CLOCK)

#define XAB_FILTER_NAME_PACK "pack"
#define XAB_FILTER_NAME_CLOCK "clock"
#define XAB_FILTER_NAME_NONE "none"

/* "pack,clock" into *mask: 0, or -1 at a word it does not know (*mask
 * then unchanged).  Stops at the end of the string or at a space. */
static inline int xab_filter_parse(const char *s, unsigned *mask) {
  unsigned m = 0;
  while (*s && *s != ' ' && *s != '\n') {
    size_t n = strcspn(s, ", \n");
    if (n == strlen(XAB_FILTER_NAME_PACK) && strncmp(s, XAB_FILTER_NAME_PACK, n) == 0)
      m |= XAB_FILTER_PACK;
    else if (n == strlen(XAB_FILTER_NAME_CLOCK) && strncmp(s, XAB_FILTER_NAME_CLOCK, n) == 0)
      m |= XAB_FILTER_CLOCK;
    else if (!(n == strlen(XAB_FILTER_NAME_NONE) && strncmp(s, XAB_FILTER_NAME_NONE, n) == 0))
      return -1;
    s += n;
    if (*s == ',') s++;
  }
  *mask = m;
  return 0;
}

#endif /* XAB_FILTER_H */
