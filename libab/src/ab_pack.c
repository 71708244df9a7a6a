/*
 * ab_pack.c -- packing and unpacking, and the message-buffer calls.
 *
 * Each pack/unpack records its PVM data type and item count, which is what
 * the trace model compares to find a message unpacked differently from how
 * it was packed (the wish of Beguelin, "Xab: A Tool for Monitoring PVM Programs", §4).
 */
#include "ab_core.h"

/* ---------------------------------------------------------------- in-place buffers */

/* The in-place buffers the program made, and the bytes packed into each:
 * what PVM sends (it packs an item of n elements with stride 1 as n times
 * the element's size, and refuses strides and strings in place).  Few
 * programs hold many at once; past XAB_INPLACE_MAX the oldest is forgotten
 * (its sends then say bytes=0, as PVM's own length does). */
#define XAB_INPLACE_MAX 16
static struct {
  int mid, bytes;
} inplace[XAB_INPLACE_MAX];
static int inplace_n, inplace_next;

static int inplace_find(int mid) {
  for (int i = 0; i < inplace_n; i++)
    if (inplace[i].mid == mid) return i;
  return -1;
}

void xab_inplace_freed(int mid) {
  int i = inplace_find(mid);
  if (i >= 0) inplace[i] = inplace[--inplace_n];
}

void xab_inplace_made(int mid, int enc) {
  xab_inplace_freed(mid); /* an id PVM gives again is a new buffer */
  if (mid <= 0 || enc != PvmDataInPlace) return;
  int i = inplace_n < XAB_INPLACE_MAX ? inplace_n++ : inplace_next++ % XAB_INPLACE_MAX;
  inplace[i].mid = mid;
  inplace[i].bytes = 0;
}

int xab_inplace_bytes(int mid) {
  int i = inplace_find(mid);
  return i >= 0 ? inplace[i].bytes : 0;
}

/* A pack's result, counted if it went into an in-place buffer. */
static int packed(int rc, int n, int item) {
  if (rc >= 0 && inplace_n > 0 && n > 0) {
    int i = inplace_find(pvm_getsbuf());
    if (i >= 0) inplace[i].bytes += n * item;
  }
  return rc;
}

#define XAB_PACKER(name, KIND, ctype, TYPE)                           \
  int xab_##name(ctype *p, int n, int s) {                           \
    XAB_SIMPLE(XAB_EV_##KIND, pvm_##name(p, n, s), TYPE, n, s);      \
  }
#define XAB_PACKER_COUNTED(name, KIND, ctype, TYPE, ITEM)                                  \
  int xab_##name(ctype *p, int n, int s) {                                                 \
    XAB_SIMPLE(XAB_EV_##KIND, packed(pvm_##name(p, n, s), n, (int)(ITEM)), TYPE, n, s);    \
  }

XAB_PACKER_COUNTED(pkbyte, PKBYTE, char, PVM_BYTE, 1)
XAB_PACKER_COUNTED(pkcplx, PKCPLX, float, PVM_CPLX, 2 * sizeof(float))
XAB_PACKER_COUNTED(pkdcplx, PKDCPLX, double, PVM_DCPLX, 2 * sizeof(double))
XAB_PACKER_COUNTED(pkdouble, PKDOUBLE, double, PVM_DOUBLE, sizeof(double))
XAB_PACKER_COUNTED(pkfloat, PKFLOAT, float, PVM_FLOAT, sizeof(float))
XAB_PACKER_COUNTED(pkint, PKINT, int, PVM_INT, sizeof(int))
XAB_PACKER_COUNTED(pklong, PKLONG, long, PVM_LONG, sizeof(long))
XAB_PACKER_COUNTED(pkshort, PKSHORT, short, PVM_SHORT, sizeof(short))
XAB_PACKER_COUNTED(pkuint, PKUINT, unsigned int, PVM_UINT, sizeof(unsigned int))
XAB_PACKER_COUNTED(pkulong, PKULONG, unsigned long, PVM_ULONG, sizeof(unsigned long))
XAB_PACKER_COUNTED(pkushort, PKUSHORT, unsigned short, PVM_USHORT, sizeof(unsigned short))
XAB_PACKER(upkbyte, UPKBYTE, char, PVM_BYTE)
XAB_PACKER(upkcplx, UPKCPLX, float, PVM_CPLX)
XAB_PACKER(upkdcplx, UPKDCPLX, double, PVM_DCPLX)
XAB_PACKER(upkdouble, UPKDOUBLE, double, PVM_DOUBLE)
XAB_PACKER(upkfloat, UPKFLOAT, float, PVM_FLOAT)
XAB_PACKER(upkint, UPKINT, int, PVM_INT)
XAB_PACKER(upklong, UPKLONG, long, PVM_LONG)
XAB_PACKER(upkshort, UPKSHORT, short, PVM_SHORT)
XAB_PACKER(upkuint, UPKUINT, unsigned int, PVM_UINT)
XAB_PACKER(upkulong, UPKULONG, unsigned long, PVM_ULONG)
XAB_PACKER(upkushort, UPKUSHORT, unsigned short, PVM_USHORT)

int xab_pkstr(char *s) {
  int n = s ? (int)strlen(s) : 0;
  XAB_SIMPLE(XAB_EV_PKSTR, pvm_pkstr(s), PVM_STR, n);
}

int xab_upkstr(char *s) {
  int64_t t = xab_clock();
  xab_enter();
  int rc = pvm_upkstr(s);
  xab_leave();
  xab_rec(XAB_EV_UPKSTR, XAB_PHASE_END, t, rc, XAB_A(PVM_STR, rc >= 0 && s ? (int)strlen(s) : 0));
  return rc;
}

int xab_packf_done(int rc, const char *fmt) {
  xab_rec(XAB_EV_PACKF, XAB_PHASE_END, xab_clock(), rc, XAB_A(xab_str(fmt)));
  return rc;
}

int xab_unpackf_done(int rc, const char *fmt) {
  xab_rec(XAB_EV_UNPACKF, XAB_PHASE_END, xab_clock(), rc, XAB_A(xab_str(fmt)));
  return rc;
}

/* ---------------------------------------------------------------- buffers */

static int made(int mid, int enc) {
  xab_inplace_made(mid, enc);
  return mid;
}
static int freed(int rc, int mid) {
  if (rc >= 0) xab_inplace_freed(mid);
  return rc;
}

int xab_initsend(int enc) { XAB_SIMPLE(XAB_EV_INITSEND, made(pvm_initsend(enc), enc), enc); }
int xab_mkbuf(int enc) { XAB_SIMPLE(XAB_EV_MKBUF, made(pvm_mkbuf(enc), enc), enc); }
int xab_freebuf(int mid) { XAB_SIMPLE(XAB_EV_FREEBUF, freed(pvm_freebuf(mid), mid), mid); }
int xab_getsbuf(void) { XAB_SIMPLE(XAB_EV_GETSBUF, pvm_getsbuf(), 0); }
int xab_getrbuf(void) { XAB_SIMPLE(XAB_EV_GETRBUF, pvm_getrbuf(), 0); }
int xab_setsbuf(int mid) { XAB_SIMPLE(XAB_EV_SETSBUF, pvm_setsbuf(mid), mid); }
int xab_setrbuf(int mid) { XAB_SIMPLE(XAB_EV_SETRBUF, pvm_setrbuf(mid), mid); }
int xab_getminfo(int mid, struct pvmminfo *info) { XAB_SIMPLE(XAB_EV_GETMINFO, pvm_getminfo(mid, info), mid); }
int xab_setminfo(int mid, struct pvmminfo *info) { XAB_SIMPLE(XAB_EV_SETMINFO, pvm_setminfo(mid, info), mid); }
int xab_pkmesg(int mid) { XAB_SIMPLE(XAB_EV_PKMESG, pvm_pkmesg(mid), mid); }
int xab_pkmesgbody(int mid) { XAB_SIMPLE(XAB_EV_PKMESGBODY, pvm_pkmesgbody(mid), mid); }
int xab_upkmesg(void) { XAB_SIMPLE(XAB_EV_UPKMESG, pvm_upkmesg(), 0); }
