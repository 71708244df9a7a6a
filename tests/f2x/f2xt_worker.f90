! f2xt_worker.f90 -- free-form Fortran worker of the f2x tests.
!
! Spawned by f2xt_master; built, like it, against libfpvm3 and against
! libf2x.  Joins the group, takes part in every collective, unpacks the
! master's message of every type and sends it back changed, so the master
! can print what went through.  Includes xab's fpvm3_free.h: PVM's
! fpvm3.h is fixed-form.  Everything it says goes to the master.
program f2xworker
  implicit none
  include 'fpvm3_free.h'
  external pvmsum, pvmproduct, pvmmax, pvmmin
  integer, parameter :: nw = 2
  integer :: mytid, ptid, inst, info, bufid, i, v(2), sres, bval, dummy(nw + 1)
  integer :: ivals(4), stri(2), ps(3)
  integer(kind=2) :: svals(3)
  integer(kind=1) :: bvals(4)
  real :: rvals(3)
  double precision :: dvals(3), dred
  complex :: cvals(2)
  double complex :: zvals(2)
  character(len=11) :: text

  call pvmfmytid(mytid)
  call pvmfparent(ptid)
  call pvmfjoingroup('f2xgrp', inst)
  call pvmfbarrier('f2xgrp', nw + 1, info)

  call pvmfrecv(ptid, 10, bufid)
  call pvmfunpack(INTEGER4, ivals, 4, 1, info)
  call pvmfunpack(REAL4, rvals, 3, 1, info)
  call pvmfunpack(REAL8, dvals, 3, 1, info)
  call pvmfunpack(COMPLEX8, cvals, 2, 1, info)
  call pvmfunpack(COMPLEX16, zvals, 2, 1, info)
  call pvmfunpack(INTEGER2, svals, 3, 1, info)
  call pvmfunpack(BYTE1, bvals, 4, 1, info)
  call pvmfunpack(STRING, text, 11, 1, info)
  call pvmfunpack(INTEGER4, stri, 2, 1, info)

  ! the collectives, in the master's order
  v = [inst + 1, 2 * (inst + 1)]
  call pvmfreduce(pvmsum, v, 2, INTEGER4, 31, 'f2xgrp', 0, info)
  v = [inst + 1, 2 * (inst + 1)]
  call pvmfreduce(pvmproduct, v, 2, INTEGER4, 32, 'f2xgrp', 0, info)
  v = [inst + 1, 2 * (inst + 1)]
  call pvmfreduce(pvmmax, v, 2, INTEGER4, 33, 'f2xgrp', 0, info)
  v = [inst + 1, 2 * (inst + 1)]
  call pvmfreduce(pvmmin, v, 2, INTEGER4, 34, 'f2xgrp', 0, info)
  dred = 0.5d0 * (inst + 1)
  call pvmfreduce(pvmsum, dred, 1, REAL8, 35, 'f2xgrp', 0, info)
  call pvmfgather(dummy, 100 + inst, 1, INTEGER4, 40, 'f2xgrp', 0, info)
  call pvmfscatter(sres, dummy, 1, INTEGER4, 41, 'f2xgrp', 0, info)
  call pvmfrecv(-1, 50, bufid)
  call pvmfunpack(INTEGER4, bval, 1, 1, info)

  ! the reply: everything changed in a way that depends on inst only
  call pvmfinitsend(PVMDATADEFAULT, bufid)
  call pvmfpack(INTEGER4, inst, 1, 1, info)
  ivals(1:2) = stri
  ivals = ivals * (inst + 1)
  call pvmfpack(INTEGER4, ivals, 4, 1, info)
  rvals = rvals * 2.0 + inst
  call pvmfpack(REAL4, rvals, 3, 1, info)
  dvals = dvals * 4.0d0 - inst
  call pvmfpack(REAL8, dvals, 3, 1, info)
  cvals = cvals * (0.0, 1.0)
  call pvmfpack(COMPLEX8, cvals, 2, 1, info)
  zvals = conjg(zvals) * inst
  call pvmfpack(COMPLEX16, zvals, 2, 1, info)
  svals = svals + int(inst, kind=2)
  call pvmfpack(INTEGER2, svals, 3, 1, info)
  bvals = bvals + int(inst, kind=1)
  call pvmfpack(BYTE1, bvals, 4, 1, info)
  do i = 1, 5
    text(i:i) = char(ichar(text(i:i)) - 32)
  end do
  call pvmfpack(STRING, text, 11, 1, info)
  call pvmfpack(INTEGER4, sres, 1, 1, info)
  call pvmfpack(INTEGER4, bval, 1, 1, info)
  call pvmfsend(ptid, 20, info)

  ps = [11, 22, 33]
  call pvmfpsend(ptid, 21, ps, 3, INTEGER4, info)
  call pvmfbarrier('f2xgrp', nw + 1, info)
  call pvmflvgroup('f2xgrp', info)
  call pvmfexit(info)
end program f2xworker
