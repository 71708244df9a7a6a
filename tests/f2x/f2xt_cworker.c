/*
 * f2xt_cworker.c -- the f2x tests' worker in C, for the mixed run: a
 * Fortran master (built with libf2x) and C workers (built with xab.h and
 * libab) in one monitored program.  It speaks f2xt_worker.f90's protocol
 * with C types: Fortran's STRING is PVM bytes, COMPLEX8 two floats.
 */
#include <complex.h>

#include "xab.h"

enum { NW = 2 };

static void reduce_ints(void (*fn)(int *, void *, void *, int *, int *), int inst, int tag) {
  int v[2] = {inst + 1, 2 * (inst + 1)};
  pvm_reduce(fn, v, 2, PVM_INT, tag, "f2xgrp", 0);
}

int main(void) {
  pvm_mytid();
  int ptid = pvm_parent();
  int inst = pvm_joingroup("f2xgrp");
  pvm_barrier("f2xgrp", NW + 1);

  int ivals[4], stri[2];
  float rvals[3];
  double dvals[3];
  float complex cvals[2];
  double complex zvals[2];
  short svals[3];
  signed char bvals[4];
  char text[11];
  pvm_recv(ptid, 10);
  pvm_upkint(ivals, 4, 1);
  pvm_upkfloat(rvals, 3, 1);
  pvm_upkdouble(dvals, 3, 1);
  pvm_upkcplx((float *)cvals, 2, 1);
  pvm_upkdcplx((double *)zvals, 2, 1);
  pvm_upkshort(svals, 3, 1);
  pvm_upkbyte((char *)bvals, 4, 1);
  pvm_upkbyte(text, 11, 1);
  pvm_upkint(stri, 2, 1);

  reduce_ints(PvmSum, inst, 31);
  reduce_ints(PvmProduct, inst, 32);
  reduce_ints(PvmMax, inst, 33);
  reduce_ints(PvmMin, inst, 34);
  double dred = 0.5 * (inst + 1);
  pvm_reduce(PvmSum, &dred, 1, PVM_DOUBLE, 35, "f2xgrp", 0);
  int mine = 100 + inst, dummy[NW + 1], sres = 0, bval = 0;
  pvm_gather(dummy, &mine, 1, PVM_INT, 40, "f2xgrp", 0);
  pvm_scatter(&sres, dummy, 1, PVM_INT, 41, "f2xgrp", 0);
  pvm_recv(-1, 50);
  pvm_upkint(&bval, 1, 1);

  /* the reply, changed exactly as f2xt_worker.f90 changes it */
  pvm_initsend(PvmDataDefault);
  pvm_pkint(&inst, 1, 1);
  ivals[0] = stri[0];
  ivals[1] = stri[1];
  for (int i = 0; i < 4; i++) ivals[i] *= inst + 1;
  pvm_pkint(ivals, 4, 1);
  for (int i = 0; i < 3; i++) rvals[i] = rvals[i] * 2.0f + (float)inst;
  pvm_pkfloat(rvals, 3, 1);
  for (int i = 0; i < 3; i++) dvals[i] = dvals[i] * 4.0 - inst;
  pvm_pkdouble(dvals, 3, 1);
  for (int i = 0; i < 2; i++) cvals[i] *= I;
  pvm_pkcplx((float *)cvals, 2, 1);
  for (int i = 0; i < 2; i++) zvals[i] = conj(zvals[i]) * inst;
  pvm_pkdcplx((double *)zvals, 2, 1);
  for (int i = 0; i < 3; i++) svals[i] = (short)(svals[i] + inst);
  pvm_pkshort(svals, 3, 1);
  for (int i = 0; i < 4; i++) bvals[i] = (signed char)(bvals[i] + inst);
  pvm_pkbyte((char *)bvals, 4, 1);
  for (int i = 0; i < 5; i++) text[i] = (char)(text[i] - 32);
  pvm_pkbyte(text, 11, 1);
  pvm_pkint(&sres, 1, 1);
  pvm_pkint(&bval, 1, 1);
  pvm_send(ptid, 20);

  int ps[3] = {11, 22, 33};
  pvm_psend(ptid, 21, ps, 3, PVM_INT);
  pvm_barrier("f2xgrp", NW + 1);
  pvm_lvgroup("f2xgrp");
  pvm_exit();
  return 0;
}
