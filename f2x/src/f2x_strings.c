/*
 * f2x_strings.c -- Fortran CHARACTER arguments to C strings and back.
 *
 * The rules are libfpvm3's (libfpvm/ftocstr.c), so a name that PVM's
 * Fortran library accepts or refuses, f2x accepts or refuses too:
 * input loses its trailing blanks and must then fit the C buffer; output
 * is blank-padded to the Fortran variable's length, or cut to it.
 */
#include <string.h>

#include "f2x.h"

int xab_f2x_lang_set;

int xab_f2x_ftoc(char *dst, size_t cap, const char *src, size_t len) {
  while (len > 0 && src[len - 1] == ' ') len--;
  dst[0] = '\0';
  if (cap == 0 || len > cap - 1) return 1;
  /* A NUL inside the text ends it, as strncat does in libfpvm3. */
  const char *nul = memchr(src, '\0', len);
  if (nul) len = (size_t)(nul - src);
  memcpy(dst, src, len);
  dst[len] = '\0';
  return 0;
}

void xab_f2x_ctof(char *dst, size_t len, const char *src) {
  size_t n = strlen(src);
  if (n >= len) {
    memcpy(dst, src, len);
    return;
  }
  memcpy(dst, src, n);
  memset(dst + n, ' ', len - n);
}

/* libfpvm3 exports its two helpers under these names (they are among its
 * 69 global symbols); a program or library that calls them keeps working. */
int ftocstr(char *ds, int dl, char *ss, int sl);
int ctofstr(char *ds, int dl, char *ss);

int ftocstr(char *ds, int dl, char *ss, int sl) {
  return xab_f2x_ftoc(ds, dl > 0 ? (size_t)dl : 0, ss, sl > 0 ? (size_t)sl : 0);
}

int ctofstr(char *ds, int dl, char *ss) {
  xab_f2x_ctof(ds, dl > 0 ? (size_t)dl : 0, ss);
  return 0;
}
