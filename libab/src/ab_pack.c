/*
 * ab_pack.c -- packing and unpacking, and the message-buffer calls.
 *
 * Each pack/unpack records its PVM data type and item count, which is what
 * the trace model compares to find a message unpacked differently from how
 * it was packed (the wish of Beguelin, "Xab: A Tool for Monitoring PVM Programs", §4).
 */
#include "ab_core.h"

#define XAB_PACKER(name, KIND, ctype, TYPE)                           \
  int xab_##name(ctype *p, int n, int s) {                           \
    XAB_SIMPLE(XAB_EV_##KIND, pvm_##name(p, n, s), TYPE, n, s);      \
  }

XAB_PACKER(pkbyte, PKBYTE, char, PVM_BYTE)
XAB_PACKER(pkcplx, PKCPLX, float, PVM_CPLX)
XAB_PACKER(pkdcplx, PKDCPLX, double, PVM_DCPLX)
XAB_PACKER(pkdouble, PKDOUBLE, double, PVM_DOUBLE)
XAB_PACKER(pkfloat, PKFLOAT, float, PVM_FLOAT)
XAB_PACKER(pkint, PKINT, int, PVM_INT)
XAB_PACKER(pklong, PKLONG, long, PVM_LONG)
XAB_PACKER(pkshort, PKSHORT, short, PVM_SHORT)
XAB_PACKER(pkuint, PKUINT, unsigned int, PVM_UINT)
XAB_PACKER(pkulong, PKULONG, unsigned long, PVM_ULONG)
XAB_PACKER(pkushort, PKUSHORT, unsigned short, PVM_USHORT)
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

int xab_initsend(int enc) { XAB_SIMPLE(XAB_EV_INITSEND, pvm_initsend(enc), enc); }
int xab_mkbuf(int enc) { XAB_SIMPLE(XAB_EV_MKBUF, pvm_mkbuf(enc), enc); }
int xab_freebuf(int mid) { XAB_SIMPLE(XAB_EV_FREEBUF, pvm_freebuf(mid), mid); }
int xab_getsbuf(void) { XAB_SIMPLE(XAB_EV_GETSBUF, pvm_getsbuf(), 0); }
int xab_getrbuf(void) { XAB_SIMPLE(XAB_EV_GETRBUF, pvm_getrbuf(), 0); }
int xab_setsbuf(int mid) { XAB_SIMPLE(XAB_EV_SETSBUF, pvm_setsbuf(mid), mid); }
int xab_setrbuf(int mid) { XAB_SIMPLE(XAB_EV_SETRBUF, pvm_setrbuf(mid), mid); }
int xab_getminfo(int mid, struct pvmminfo *info) { XAB_SIMPLE(XAB_EV_GETMINFO, pvm_getminfo(mid, info), mid); }
int xab_setminfo(int mid, struct pvmminfo *info) { XAB_SIMPLE(XAB_EV_SETMINFO, pvm_setminfo(mid, info), mid); }
int xab_pkmesg(int mid) { XAB_SIMPLE(XAB_EV_PKMESG, pvm_pkmesg(mid), mid); }
int xab_pkmesgbody(int mid) { XAB_SIMPLE(XAB_EV_PKMESGBODY, pvm_pkmesgbody(mid), mid); }
int xab_upkmesg(void) { XAB_SIMPLE(XAB_EV_UPKMESG, pvm_upkmesg(), 0); }
