c     f2xt_world.f -- what a Fortran program sees of the virtual machine
c     and of PVM, built against libfpvm3 and against libf2x: both must
c     print the same (no tids).  The master spawns itself once, waits
c     until the child is up, counts the machine's tasks (pvmftasks),
c     sends itself an in-place message and psends to tid 0 (libpvm's
c     error lines go to stderr).
      program f2xwld
      implicit none
      include 'fpvm3.h'
      character*256 me
      character*64 aout
      integer mytid, parent, kid, info, ntask, n, i, tid, ptid, dtid
      integer flag, bufid, bytes, tag, src, others, bad
      integer a(10)
      double precision d(3)
c
      call pvmfmytid(mytid)
      call pvmfparent(parent)
      if (parent .gt. 0) then
c        the child: says it is up, waits for the word to end
         call pvmfinitsend(PVMDEFAULT, info)
         call pvmfsend(parent, 1, info)
         call pvmfrecv(parent, 2, bufid)
         call pvmfexit(info)
         stop
      end if
      call get_command_argument(0, me)
      call pvmfspawn(me, PVMDEFAULT, '*', 1, kid, n)
      write (*, '(a,i3)') 'spawned', n
      call pvmfnotify(PVMTASKEXIT, 3, 1, kid, info)
      call pvmfrecv(kid, 1, bufid)
c
c     the machine's tasks, as a program that counts its peers does
      call pvmftasks(0, ntask, tid, ptid, dtid, flag, aout, info)
      n = ntask
      others = 0
      do i = 1, n
         if (i .gt. 1) then
            call pvmftasks(0, ntask, tid, ptid, dtid, flag, aout, info)
         end if
         if (tid .ne. mytid .and. tid .ne. kid) others = others + 1
      end do
      write (*, '(a,i3,a,i3)') 'tasks', n, ' others', others
c
c     an in-place message to itself: 10 integers and 3 doubles
      do i = 1, 10
         a(i) = i
      end do
      d(1) = 1.5d0
      d(2) = 2.5d0
      d(3) = 3.5d0
      call pvmfinitsend(PVMINPLACE, info)
      call pvmfpack(INTEGER4, a, 10, 1, info)
      call pvmfpack(REAL8, d, 3, 1, info)
      call pvmfsend(mytid, 5, info)
      call pvmfrecv(mytid, 5, bufid)
      call pvmfbufinfo(bufid, bytes, tag, src, info)
      write (*, '(a,i4)') 'in place, bytes', bytes
c
c     psend to tid 0, which no task has
      bad = 0
      call pvmfpsend(bad, 1, a, 1, INTEGER4, info)
      write (*, '(a,i4)') 'psend to nobody', info
c
      call pvmfinitsend(PVMDEFAULT, info)
      call pvmfsend(kid, 2, info)
      call pvmfrecv(-1, 3, bufid)
      call pvmfexit(info)
      end
