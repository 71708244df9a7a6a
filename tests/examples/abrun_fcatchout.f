c     abrun_fcatchout: abrun_catchout.c in Fortran 77 (pvmfcatchout,
c     pvmfspawn of two copies of itself); no libab
c     (tests/examples/abrun_safety_test.sh).
      program fcatch
      include 'fpvm3.h'
      integer mytid, ptid, info, numt, tids(2)
      call pvmfmytid(mytid)
      if (mytid .lt. 0) stop 1
      call pvmfparent(ptid)
      if (ptid .gt. 0) then
         print *, 'kid here'
         call flush(6)
c        still running when the parent leaves: a receive that times
c        out after 500 ms (nothing is sent with tag 99)
         call pvmftrecv(-1, 99, 0, 500000, info)
         call pvmfexit(info)
         stop
      endif
      call pvmfcatchout(1, info)
      call pvmfspawn('abrun_fcatchout', PVMDEFAULT, '*', 2, tids, numt)
      print *, 'spawned', numt
      call pvmfexit(info)
      end
