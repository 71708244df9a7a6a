c     f2xt_master.f -- fixed-form Fortran master of the f2x tests.
c
c     Built twice, against libfpvm3 and against libf2x, from this one
c     source; both builds must print the same.  Usage: f2xt_master WORKER
c     spawns two WORKERs (f2xt_worker_*, or the C worker f2xt_cworker)
c     and exercises what Fortran programs use: groups and barriers, every
c     pack type, multicast, reduce with each function, gather, scatter,
c     broadcast, a nonblocking receive loop, psend/precv, notify with
c     trecv, the mailbox, config.  It prints only what is the same on
c     every run (no tids).
      program f2xmas
      implicit none
      include 'fpvm3.h'
      external pvmsum, pvmproduct, pvmmax, pvmmin
      integer nw
      parameter (nw = 2)
      character*64 wname
      character*32 mbname
      character*11 text
      integer mytid, ptid, inst, info, numt, tids(nw), bufid, i, j
      integer gsz, old, idx, ncls, nent, ents(4), owns(4), flgs(4)
      integer ivals(4), ired(2), gres(nw+1), sdata(nw+1), sres
      integer nrep, nmiss, rinst, rint(4), rsc, rbc, nbytes, rtag
      integer rsrc, psbuf(3), atid, atag, alen, nhost, narch
      integer*2 svals(3)
      integer*1 bvals(4)
      real rvals(3), rr(3)
      double precision dvals(3), dred, dd(3)
      complex cvals(2), cc(2)
      double complex zvals(2), zz(2)
      data ivals /1, -2, 30000, 4/
      data svals /7, -8, 9/
      data bvals /65, 66, 0, -1/
      data rvals /0.5, -1.25, 3.0/
      data dvals /0.125d0, 2.5d0, -1.0d6/
      data text /'hello f2x  '/
c
      call get_command_argument(1, wname)
      call pvmfmytid(mytid)
      call pvmfparent(ptid)
      write (*, '(a,l2)') 'no parent', ptid .eq. PvmNoParent
      call pvmfjoingroup('f2xgrp', inst)
      write (*, '(a,i3)') 'joined inst', inst
      call pvmfspawn(wname, PVMTASKDEFAULT, '*', nw, tids, numt)
      write (*, '(a,i3)') 'spawned', numt
      if (numt .ne. nw) stop 'spawn failed'
      call pvmfnotify(PVMTASKEXIT, 60, nw, tids, info)
      call pvmfbarrier('f2xgrp', nw + 1, info)
      call pvmfgsize('f2xgrp', gsz)
      write (*, '(a,i3,i3)') 'barrier gsize', info, gsz
      call pvmfgetinst('f2xgrp', mytid, i)
      call pvmfgettid('f2xgrp', 0, j)
      write (*, '(a,i3,l2)') 'getinst gettid', i, j .eq. mytid
c
c     every type, multicast to the workers
      call pvmfinitsend(PVMDATADEFAULT, bufid)
      call pvmfpack(INTEGER4, ivals, 4, 1, info)
      call pvmfpack(REAL4, rvals, 3, 1, info)
      call pvmfpack(REAL8, dvals, 3, 1, info)
      cvals(1) = (1.5, -2.0)
      cvals(2) = (0.25, 8.0)
      zvals(1) = (1.0d0, 2.0d0)
      zvals(2) = (-3.5d0, 0.0d0)
      call pvmfpack(COMPLEX8, cvals, 2, 1, info)
      call pvmfpack(COMPLEX16, zvals, 2, 1, info)
      call pvmfpack(INTEGER2, svals, 3, 1, info)
      call pvmfpack(BYTE1, bvals, 4, 1, info)
      call pvmfpack(STRING, text, 11, 1, info)
      call pvmfpack(INTEGER4, ivals, 2, 2, info)
      call pvmfpack(99, ivals, 1, 1, info)
      write (*, '(a,i4)') 'pack bad type', info
      call pvmfmcast(nw, tids, 10, info)
      write (*, '(a,i3)') 'mcast', info
c
c     reduce with each function; this task is the root (instance 0)
      call redint(pvmsum, 'sum', 31)
      call redint(pvmproduct, 'product', 32)
      call redint(pvmmax, 'max', 33)
      call redint(pvmmin, 'min', 34)
      dred = 0.5d0
      call pvmfreduce(pvmsum, dred, 1, REAL8, 35, 'f2xgrp', 0, info)
      write (*, '(a,i3,f8.3)') 'reduce dsum', info, dred
      call pvmfgather(gres, 100, 1, INTEGER4, 40, 'f2xgrp', 0, info)
      write (*, '(a,i3,3i5)') 'gather', info, gres
      do i = 1, nw + 1
         sdata(i) = 1000 * i
      end do
      call pvmfscatter(sres, sdata, 1, INTEGER4, 41, 'f2xgrp', 0,
     &                 info)
      write (*, '(a,i3,i6)') 'scatter', info, sres
      call pvmfinitsend(PVMDATADEFAULT, bufid)
      call pvmfpack(INTEGER4, 777, 1, 1, info)
      call pvmfbcast('f2xgrp', 50, info)
      write (*, '(a,i3)') 'bcast', info
c
c     the replies, instance 1 first, each in a nonblocking receive loop
      nrep = 0
      nmiss = 0
 100  call pvmfgettid('f2xgrp', nrep + 1, j)
 110  call pvmfnrecv(j, 20, bufid)
      if (bufid .lt. 0) stop 'nrecv failed'
      if (bufid .eq. 0) then
         nmiss = nmiss + 1
         call pvmfsleep(1)
         if (nmiss .gt. 60) stop 'no replies'
         goto 110
      end if
      call pvmfbufinfo(bufid, nbytes, rtag, rsrc, info)
      call pvmfunpack(INTEGER4, rinst, 1, 1, info)
      call pvmfunpack(INTEGER4, rint, 4, 1, info)
      call pvmfunpack(REAL4, rr, 3, 1, info)
      call pvmfunpack(REAL8, dd, 3, 1, info)
      call pvmfunpack(COMPLEX8, cc, 2, 1, info)
      call pvmfunpack(COMPLEX16, zz, 2, 1, info)
      call pvmfunpack(INTEGER2, svals, 3, 1, info)
      call pvmfunpack(BYTE1, bvals, 4, 1, info)
      call pvmfunpack(STRING, text, 11, 1, info)
      call pvmfunpack(INTEGER4, rsc, 1, 1, info)
      call pvmfunpack(INTEGER4, rbc, 1, 1, info)
      write (*, '(a,i2,a,i5,i3,l2)') 'reply inst', rinst, ' bytes',
     &     nbytes, rtag, rsrc .eq. j
      write (*, '(a,4i7)') '  int', rint
      write (*, '(a,3f10.4)') '  real', rr
      write (*, '(a,3f14.4)') '  double', dd
      write (*, '(a,4f8.3)') '  complex', cc
      write (*, '(a,4f8.3)') '  dcomplex', zz
      write (*, '(a,3i6,4i5)') '  short byte', svals, bvals
      write (*, '(a,a,a,2i6)') '  string [', text, '] scatter bcast',
     &     rsc, rbc
      nrep = nrep + 1
      if (nrep .lt. nw) goto 100
c
c     psend / precv
      do i = 1, nw
         call pvmfprecv(-1, 21, psbuf, 3, INTEGER4, atid, atag, alen,
     &                  info)
         write (*, '(a,i3,i3,i3,3i5)') 'precv', info, atag, alen,
     &        psbuf
      end do
      call pvmfbarrier('f2xgrp', nw + 1, info)
      write (*, '(a,i3)') 'barrier 2', info
c
c     mailbox
      call pvmfinitsend(PVMDATADEFAULT, bufid)
      call pvmfpack(INTEGER4, 42, 1, 1, info)
      call pvmfputinfo('f2xbox', bufid, PVMMBOXDEFAULT, idx)
      write (*, '(a,i3)') 'putinfo index', idx
      call pvmfrecvinfo('f2xbox', 0, PVMMBOXDEFAULT, bufid)
      call pvmfsetrbuf(bufid, old)
      call pvmfunpack(INTEGER4, i, 1, 1, info)
      write (*, '(a,l2,i4)') 'recvinfo', bufid .gt. 0, i
      info = 99
      mbname = 'unset'
      call pvmfgetmboxinfo('f2xbox', mbname, ncls, nent, ents, owns,
     &                     flgs, info)
      write (*, '(a,a,a,i3,i3,i4)') 'getmboxinfo [', mbname, ']',
     &     nent, ents(1), info
      call pvmfdelinfo('f2xbox', 0, PVMMBOXDEFAULT, info)
      write (*, '(a,i3)') 'delinfo', info
      call pvmfrecvinfo('f2xbox', 0, PVMMBOXDEFAULT, bufid)
      write (*, '(a,i4)') 'recvinfo after delete', bufid
      call pvmfgetmboxinfo('f2xnone', mbname, ncls, nent, ents, owns,
     &                     flgs, info)
      write (*, '(a,i4)') 'getmboxinfo none', info
c
c     errors are values, with the same codes
      call pvmfjoingroup('a group name that is far too long', inst)
      write (*, '(a,i4)') 'long group', inst
      call pvmfgsize('nosuchgroup', gsz)
      write (*, '(a,i4)') 'gsize unknown', gsz
c
c     the workers' exits, announced by notify
      do i = 1, nw
         call pvmftrecv(-1, 60, 30, 0, bufid)
         write (*, '(a,l2)') 'notify', bufid .gt. 0
      end do
      call pvmfconfig(nhost, narch, i, mbname, text, j, info)
      write (*, '(a,3i3)') 'config', nhost, narch, info
      call pvmflvgroup('f2xgrp', info)
      write (*, '(a,i3)') 'lvgroup', info
      call pvmfexit(info)
      write (*, '(a,i3)') 'exit', info
      end
c
c     One integer reduce: every member gives (inst+1, 2*(inst+1)).
      subroutine redint(fn, name, tag)
      implicit none
      include 'fpvm3.h'
      external fn
      character*(*) name
      integer tag, v(2), info
      v(1) = 1
      v(2) = 2
      call pvmfreduce(fn, v, 2, INTEGER4, tag, 'f2xgrp', 0, info)
      write (*, '(a,a,i3,2i6)') 'reduce ', name, info, v
      end
