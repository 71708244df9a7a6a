/*
 * f2x.h -- libf2x's internals: Fortran strings and the table machinery.
 *
 * libf2x is libfpvm3 (PVM 3.4.6's Fortran library) with every pvm_<call>
 * replaced by libab's xab_<call>.  A Fortran program relinked with
 * -lf2x -lab instead of -lfpvm3 runs as before and every call is recorded.
 *
 * Most routines have one shape: convert the Fortran arguments, make one
 * call, store its result in the last argument.  f2x_calls.c describes them
 * in a table, one row each, by the kind of every argument:
 *
 *   I  INTEGER in            int *a          passed as *a
 *   P  INTEGER out or array  int *a          passed as a
 *   V  untyped buffer        void *a         passed as a
 *   G  group name            CHARACTER*(*)   trimmed into char[32]   (libfpvm3: MAX_GRP_NAME 31)
 *   H  host, mailbox, task   CHARACTER*(*)   trimmed into char[257]  (MAX_HOST_NAME 256)
 *   W  spawn's `where`       CHARACTER*(*)   as H, but one starting with '*' is ""
 *   M  message handler       EXTERNAL        passed as a
 *   R  reduce function       EXTERNAL        PVMSUM... mapped to PvmSum... (see xab_f2x_reduce_op)
 *
 * gfortran appends one hidden length argument (size_t) per CHARACTER
 * argument, after all the others, in the order of the CHARACTER arguments.
 * A name too long for its buffer makes the result PvmBadParam without any
 * PVM call, exactly as libfpvm3's ftocstr() does.
 */
#ifndef XAB_F2X_H
#define XAB_F2X_H

#include <stddef.h>

#include "xab/ab.h"
#include "xab/events.h"

/* Buffer sizes libfpvm3 uses (pvm_consts.h): name length + 1. */
#define F2X_GROUP_CAP 32
#define F2X_NAME_CAP 257

/* Fortran's CHARACTER to C: trailing blanks trimmed, NUL-terminated in
 * dst[cap].  Nonzero (nothing usable in dst) when the trimmed text does
 * not fit.  Like libfpvm3, a NUL inside the text ends it. */
int xab_f2x_ftoc(char *dst, size_t cap, const char *src, size_t len);
/* C to Fortran: copied into dst[len], blank-padded; cut at len. */
void xab_f2x_ctof(char *dst, size_t len, const char *src);

/* The reduce function to hand PVM: libfpvm3 passes PVMSUM & co. (its own
 * pvmsum_, which calls PvmSum) through; f2x passes PvmSum itself, which
 * computes the same and lets libab record op=PvmSum instead of op=user. */
xab_reduce_fn xab_f2x_reduce_op(xab_reduce_fn fn);

/* Every entry point starts here: the task's records say lang=fortran.
 * libab reads the language when it first reaches abmon, so setting it on
 * every entry until the first is cheap and always early enough. */
extern int xab_f2x_lang_set;
static inline void f2x_begin(void) {
  if (!xab_f2x_lang_set) {
    xab_set_lang(XAB_LANG_FORTRAN);
    xab_f2x_lang_set = 1;
  }
}

/* ---------------------------------------------------------------- kinds */

#define F2X_PARAM_I(n) int *a##n
#define F2X_PARAM_P(n) int *a##n
#define F2X_PARAM_V(n) void *a##n
#define F2X_PARAM_G(n) char *a##n
#define F2X_PARAM_H(n) char *a##n
#define F2X_PARAM_W(n) char *a##n
#define F2X_PARAM_M(n) int (*a##n)(int)
#define F2X_PARAM_R(n) xab_reduce_fn a##n

#define F2X_LEN_I(n)
#define F2X_LEN_P(n)
#define F2X_LEN_V(n)
#define F2X_LEN_G(n) , size_t a##n##_len
#define F2X_LEN_H(n) , size_t a##n##_len
#define F2X_LEN_W(n) , size_t a##n##_len
#define F2X_LEN_M(n)
#define F2X_LEN_R(n)

#define F2X_CONV_I(n)
#define F2X_CONV_P(n)
#define F2X_CONV_V(n)
#define F2X_CONV_G(n) F2X_CONV_STR(n, F2X_GROUP_CAP)
#define F2X_CONV_H(n) F2X_CONV_STR(n, F2X_NAME_CAP)
#define F2X_CONV_W(n)                                           \
  char s##n[F2X_NAME_CAP] = "";                                 \
  if (!(a##n##_len > 0 && a##n[0] == '*') &&                    \
      xab_f2x_ftoc(s##n, sizeof s##n, a##n, a##n##_len)) {      \
    *rc = PvmBadParam;                                          \
    return;                                                     \
  }
#define F2X_CONV_M(n)
#define F2X_CONV_R(n)
#define F2X_CONV_STR(n, cap)                                 \
  char s##n[cap];                                            \
  if (xab_f2x_ftoc(s##n, sizeof s##n, a##n, a##n##_len)) {   \
    *rc = PvmBadParam;                                       \
    return;                                                  \
  }

#define F2X_ARG_I(n) *a##n
#define F2X_ARG_P(n) a##n
#define F2X_ARG_V(n) a##n
#define F2X_ARG_G(n) s##n
#define F2X_ARG_H(n) s##n
#define F2X_ARG_W(n) s##n
#define F2X_ARG_M(n) a##n
#define F2X_ARG_R(n) xab_f2x_reduce_op(a##n)

#define F2X_P(k, n) F2X_PARAM_##k(n)
#define F2X_L(k, n) F2X_LEN_##k(n)
#define F2X_C(k, n) F2X_CONV_##k(n)
#define F2X_A(k, n) F2X_ARG_##k(n)

/* One entry point per arity: `void name_(args..., int *rc, hidden lengths)`
 * whose result is `*rc = fn(converted args...)`. */
#define F2X_DEF0(name, fn, unused)                    \
  void name##_(int *rc) {                             \
    f2x_begin();                                      \
    *rc = fn();                                       \
  }
#define F2X_DEF1(name, fn, k0)                                             \
  void name##_(F2X_P(k0, 0), int *rc F2X_L(k0, 0)) {                       \
    f2x_begin();                                                           \
    F2X_C(k0, 0)                                                           \
    *rc = fn(F2X_A(k0, 0));                                                \
  }
#define F2X_DEF2(name, fn, k0, k1)                                         \
  void name##_(F2X_P(k0, 0), F2X_P(k1, 1), int *rc F2X_L(k0, 0) F2X_L(k1, 1)) { \
    f2x_begin();                                                           \
    F2X_C(k0, 0) F2X_C(k1, 1)                                              \
    *rc = fn(F2X_A(k0, 0), F2X_A(k1, 1));                                  \
  }
#define F2X_DEF3(name, fn, k0, k1, k2)                                     \
  void name##_(F2X_P(k0, 0), F2X_P(k1, 1), F2X_P(k2, 2),                   \
               int *rc F2X_L(k0, 0) F2X_L(k1, 1) F2X_L(k2, 2)) {           \
    f2x_begin();                                                           \
    F2X_C(k0, 0) F2X_C(k1, 1) F2X_C(k2, 2)                                 \
    *rc = fn(F2X_A(k0, 0), F2X_A(k1, 1), F2X_A(k2, 2));                    \
  }
#define F2X_DEF4(name, fn, k0, k1, k2, k3)                                 \
  void name##_(F2X_P(k0, 0), F2X_P(k1, 1), F2X_P(k2, 2), F2X_P(k3, 3),     \
               int *rc F2X_L(k0, 0) F2X_L(k1, 1) F2X_L(k2, 2) F2X_L(k3, 3)) { \
    f2x_begin();                                                           \
    F2X_C(k0, 0) F2X_C(k1, 1) F2X_C(k2, 2) F2X_C(k3, 3)                    \
    *rc = fn(F2X_A(k0, 0), F2X_A(k1, 1), F2X_A(k2, 2), F2X_A(k3, 3));      \
  }
#define F2X_DEF5(name, fn, k0, k1, k2, k3, k4)                             \
  void name##_(F2X_P(k0, 0), F2X_P(k1, 1), F2X_P(k2, 2), F2X_P(k3, 3),     \
               F2X_P(k4, 4),                                               \
               int *rc F2X_L(k0, 0) F2X_L(k1, 1) F2X_L(k2, 2) F2X_L(k3, 3) \
                   F2X_L(k4, 4)) {                                         \
    f2x_begin();                                                           \
    F2X_C(k0, 0) F2X_C(k1, 1) F2X_C(k2, 2) F2X_C(k3, 3) F2X_C(k4, 4)       \
    *rc = fn(F2X_A(k0, 0), F2X_A(k1, 1), F2X_A(k2, 2), F2X_A(k3, 3),       \
             F2X_A(k4, 4));                                                \
  }
#define F2X_DEF7(name, fn, k0, k1, k2, k3, k4, k5, k6)                     \
  void name##_(F2X_P(k0, 0), F2X_P(k1, 1), F2X_P(k2, 2), F2X_P(k3, 3),     \
               F2X_P(k4, 4), F2X_P(k5, 5), F2X_P(k6, 6),                   \
               int *rc F2X_L(k0, 0) F2X_L(k1, 1) F2X_L(k2, 2) F2X_L(k3, 3) \
                   F2X_L(k4, 4) F2X_L(k5, 5) F2X_L(k6, 6)) {               \
    f2x_begin();                                                           \
    F2X_C(k0, 0) F2X_C(k1, 1) F2X_C(k2, 2) F2X_C(k3, 3) F2X_C(k4, 4)       \
    F2X_C(k5, 5) F2X_C(k6, 6)                                              \
    *rc = fn(F2X_A(k0, 0), F2X_A(k1, 1), F2X_A(k2, 2), F2X_A(k3, 3),       \
             F2X_A(k4, 4), F2X_A(k5, 5), F2X_A(k6, 6));                    \
  }
#define F2X_DEF8(name, fn, k0, k1, k2, k3, k4, k5, k6, k7)                 \
  void name##_(F2X_P(k0, 0), F2X_P(k1, 1), F2X_P(k2, 2), F2X_P(k3, 3),     \
               F2X_P(k4, 4), F2X_P(k5, 5), F2X_P(k6, 6), F2X_P(k7, 7),     \
               int *rc F2X_L(k0, 0) F2X_L(k1, 1) F2X_L(k2, 2) F2X_L(k3, 3) \
                   F2X_L(k4, 4) F2X_L(k5, 5) F2X_L(k6, 6) F2X_L(k7, 7)) {  \
    f2x_begin();                                                           \
    F2X_C(k0, 0) F2X_C(k1, 1) F2X_C(k2, 2) F2X_C(k3, 3) F2X_C(k4, 4)       \
    F2X_C(k5, 5) F2X_C(k6, 6) F2X_C(k7, 7)                                 \
    *rc = fn(F2X_A(k0, 0), F2X_A(k1, 1), F2X_A(k2, 2), F2X_A(k3, 3),       \
             F2X_A(k4, 4), F2X_A(k5, 5), F2X_A(k6, 6), F2X_A(k7, 7));      \
  }

/* A table row X(name, fn, arity, kinds...) becomes one entry point. */
#define F2X_DEFINE(name, fn, n, ...) F2X_DEF##n(name, fn, __VA_ARGS__)

#endif /* XAB_F2X_H */
