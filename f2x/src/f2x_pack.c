/*
 * f2x_pack.c -- pvmfpack, pvmfunpack and the reduce functions.
 *
 * Fortran names a data type by fpvm3.h's `what` code; one table maps each
 * code to the C type and the pack/unpack call libfpvm3 makes for it
 * (libfpvm/pvmfpack.m4).  STRING is packed as bytes, count = characters,
 * exactly as libfpvm3 does, so the receiver unpacks it with STRING too.
 */
#include "f2x.h"

/* fpvm3.h's codes for pvmfpack/pvmfunpack.  (For pvmfpsend, pvmfprecv and
 * the collectives the same numbers reach PVM directly as PVM_BYTE ...) */
enum f2x_what {
  F2X_STRING = 0,
  F2X_BYTE1 = 1,
  F2X_INTEGER2 = 2,
  F2X_INTEGER4 = 3,
  F2X_REAL4 = 4,
  F2X_COMPLEX8 = 5,
  F2X_REAL8 = 6,
  F2X_COMPLEX16 = 7,
  F2X_INTEGER8 = 8
};

/* clang-format off */
#define F2X_PACK_TYPES(X) \
  X(STRING,    char,   pkbyte,   upkbyte) \
  X(BYTE1,     char,   pkbyte,   upkbyte) \
  X(INTEGER2,  short,  pkshort,  upkshort) \
  X(INTEGER4,  int,    pkint,    upkint) \
  X(INTEGER8,  long,   pklong,   upklong) \
  X(REAL4,     float,  pkfloat,  upkfloat) \
  X(COMPLEX8,  float,  pkcplx,   upkcplx) \
  X(REAL8,     double, pkdouble, upkdouble) \
  X(COMPLEX16, double, pkdcplx,  upkdcplx)
/* clang-format on */

void pvmfpack_(int *what, void *vp, int *cnt, int *std, int *info);
void pvmfunpack_(int *what, void *vp, int *cnt, int *std, int *info);

void pvmfpack_(int *what, void *vp, int *cnt, int *std, int *info) {
  f2x_begin();
  switch (*what) {
#define F2X_PACK_CASE(code, type, pk, upk) \
  case F2X_##code: *info = xab_##pk((type *)vp, *cnt, *std); break;
    F2X_PACK_TYPES(F2X_PACK_CASE)
#undef F2X_PACK_CASE
  default: *info = PvmBadParam; break;
  }
}

void pvmfunpack_(int *what, void *vp, int *cnt, int *std, int *info) {
  f2x_begin();
  switch (*what) {
#define F2X_UNPACK_CASE(code, type, pk, upk) \
  case F2X_##code: *info = xab_##upk((type *)vp, *cnt, *std); break;
    F2X_PACK_TYPES(F2X_UNPACK_CASE)
#undef F2X_UNPACK_CASE
  default: *info = PvmBadParam; break;
  }
}

/* ---------------------------------------------------------------- reduce */

/* The functions a Fortran program names in `call pvmfreduce(PvmSum, ...)`
 * (declared EXTERNAL), each PVM's own C reduce function. */
#define F2X_REDUCE_OPS(X) X(pvmsum, PvmSum) X(pvmproduct, PvmProduct) X(pvmmax, PvmMax) X(pvmmin, PvmMin)

#define F2X_REDUCE_FN(fname, cfn)                                          \
  void fname##_(int *type, void *data, void *work, int *n, int *info);     \
  void fname##_(int *type, void *data, void *work, int *n, int *info) {    \
    cfn(type, data, work, n, info);                                        \
  }
F2X_REDUCE_OPS(F2X_REDUCE_FN)
#undef F2X_REDUCE_FN

xab_reduce_fn xab_f2x_reduce_op(xab_reduce_fn fn) {
#define F2X_REDUCE_MAP(fname, cfn) \
  if (fn == fname##_) return cfn;
  F2X_REDUCE_OPS(F2X_REDUCE_MAP)
#undef F2X_REDUCE_MAP
  return fn; /* the program's own function: PVM calls it as libfpvm3 would */
}
