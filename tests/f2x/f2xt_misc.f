c     f2xt_misc.f -- the f2x tests' single-task program: every libfpvm3
c     routine f2xt_master does not use (buffers, contexts, message
c     handlers, options, the virtual machine's state, errors).  Built
c     against libfpvm3 and against libf2x; both must print the same.
c     It prints no tids, only what is the same on every run.
      program f2xmis
      implicit none
      include 'fpvm3.h'
      integer handlr
      external handlr
      character*64 host, arch, aout
      integer mytid, info, old, mid, mid2, cur, ctx, mhid, dtid, i
      integer nhost, narch, speed, ntask, tid, ptid, flag, nfound
      integer bytes, tag, src, buf(3), atid, atag, alen, nsib, stid
      integer sec, usec, dsec, dusec, code, val
c
      call pvmfmytid(mytid)
      call pvmfsetopt(PVMAUTOERR, 0, old)
      write (*, '(a,i3)') 'setopt autoerr old', old
      call pvmfgetopt(PVMAUTOERR, val)
      write (*, '(a,i3)') 'getopt autoerr', val
      call pvmfgetopt(PVMROUTE, val)
      write (*, '(a,i3)') 'getopt route', val
c
c     message buffers
      call pvmfmkbuf(PVMDATADEFAULT, mid)
      call pvmfsetsbuf(mid, old)
      call pvmfgetsbuf(mid2)
      write (*, '(a,l2,i3,l2)') 'mkbuf setsbuf', mid .gt. 0, old,
     &     mid2 .eq. mid
      call pvmfpack(INTEGER4, 7, 1, 1, info)
      call pvmfsend(mytid, 5, info)
      write (*, '(a,i3)') 'send to self', info
      call pvmftrecv(-1, 6, 0, 20000, mid2)
      write (*, '(a,i3)') 'trecv timeout', mid2
c     the message to self goes through pvmd: probe until it is there
      do i = 1, 500
         call pvmfprobe(mytid, 5, mid2)
         if (mid2 .ne. 0) exit
         call pvmftrecv(-1, 6, 0, 20000, old)
      end do
      write (*, '(a,l2)') 'probe', mid2 .gt. 0
      call pvmfnrecv(-1, 6, mid2)
      write (*, '(a,i3)') 'nrecv nothing', mid2
      call pvmfrecv(mytid, 5, mid2)
      call pvmfbufinfo(mid2, bytes, tag, src, info)
      write (*, '(a,i3,i3,i3,l2)') 'recv bufinfo', info, bytes, tag,
     &     src .eq. mytid
      call pvmfgetrbuf(cur)
      write (*, '(a,l2)') 'getrbuf', cur .eq. mid2
      call pvmfunpack(INTEGER4, i, 1, 1, info)
      call pvmfunpack(INTEGER4, i, 1, 1, info)
      write (*, '(a,i4)') 'unpack past the end', info
      call pvmfsetrbuf(0, old)
      call pvmffreebuf(mid2, info)
      write (*, '(a,i3)') 'freebuf', info
      call pvmffreebuf(mid2, info)
      write (*, '(a,i4)') 'freebuf again', info
      buf(1) = 4
      buf(2) = 5
      buf(3) = 6
      call pvmfpsend(mytid, 8, buf, 3, INTEGER4, info)
      call pvmfprecv(mytid, 8, buf, 3, INTEGER4, atid, atag, alen,
     &               info)
      write (*, '(a,i3,i3,i3,3i3)') 'psend precv', info, atag, alen,
     &     buf
c
c     contexts (pvmffreecontext is pvm_setcontext in PVM 3.4.6)
      call pvmfgetcontext(cur)
      call pvmfnewcontext(ctx)
      call pvmfsetcontext(ctx, old)
      write (*, '(a,l2)') 'setcontext returns old', old .eq. cur
      call pvmfsetcontext(cur, old)
      call pvmffreecontext(ctx, info)
      call pvmfgetcontext(i)
      write (*, '(a,l2,l2)') 'freecontext', info .eq. cur, i .eq. ctx
      call pvmfsetcontext(cur, old)
c
c     message handlers
      call pvmfaddmhf(-1, 999, -1, 0, handlr, mhid)
      write (*, '(a,l2)') 'addmhf', mhid .ge. 0
      call pvmfdelmhf(mhid, info)
      write (*, '(a,i3)') 'delmhf', info
      call pvmfdelmhf(mhid, info)
      write (*, '(a,i4)') 'delmhf again', info
c
c     the virtual machine
      call pvmftidtohost(mytid, dtid)
      write (*, '(a,l2)') 'tidtohost', dtid .gt. 0
      call pvmfpstat(mytid, info)
      write (*, '(a,i3)') 'pstat self', info
      call pvmfconfig(nhost, narch, tid, host, arch, speed, info)
      write (*, '(a,3i3,i6,l2,a)') 'config', info, nhost, narch, speed,
     &     tid .eq. dtid, ' ' // trim(arch)
      call pvmfmstat(host, info)
      write (*, '(a,i3)') 'mstat', info
      call pvmfmstat('no.such.host', info)
      write (*, '(a,i4)') 'mstat unknown', info
      call pvmfarchcode(arch, code)
      write (*, '(a,l2)') 'archcode', code .gt. 0
      call pvmfarchcode('NOSUCHARCH', code)
      write (*, '(a,i4)') 'archcode unknown', code
      call pvmfaddhost(host, info)
      write (*, '(a,i4)') 'addhost present', info
      call pvmfdelhost('no.such.host', info)
      write (*, '(a,i4)') 'delhost unknown', info
      call pvmfhostsync(dtid, sec, usec, dsec, dusec, info)
      write (*, '(a,i3,l2)') 'hostsync', info, sec .gt. 0
c     one task per call; ntask = -1 starts a new pass
      nfound = 0
      ntask = -1
      do i = 1, 1000
         call pvmftasks(0, ntask, tid, ptid, dtid, flag, aout, info)
         if (info .lt. 0) stop 'tasks failed'
         if (tid .eq. mytid) nfound = nfound + 1
         if (tid .eq. mytid) exit
      end do
      write (*, '(a,i3,l2,a,a,a)') 'tasks self', nfound, ptid .eq. 0,
     &     ' [', trim(aout), ']'
      call pvmfsiblings(nsib, 0, stid)
      write (*, '(a,i3,l2)') 'siblings', nsib, stid .eq. mytid
      call pvmfsiblings(nsib, 5, stid)
      write (*, '(a,i4)') 'siblings out of range', stid
c
c     errors and odds
      call pvmfkill(999999, info)
      write (*, '(a,i4)') 'kill bad tid', info
      call pvmfsendsig(999999, 15, info)
      write (*, '(a,i4)') 'sendsig bad tid', info
      call pvmfjoingroup('misc', i)
      call pvmffreezegroup('misc', 1, info)
      write (*, '(a,i3,i3)') 'joingroup freezegroup', i, info
      call pvmfbarrier('misc', 1, info)
      write (*, '(a,i3)') 'barrier alone', info
      call pvmfgetinst('nosuchgroup', mytid, i)
      write (*, '(a,i4)') 'getinst unknown', i
      call pvmfgettid('misc', 5, i)
      write (*, '(a,i4)') 'gettid no instance', i
      call pvmflvgroup('misc', info)
      call pvmfcatchout(1, info)
      write (*, '(a,i3)') 'catchout', info
      call pvmfperror('f2xt_misc perror   ', info)
      write (*, '(a,i3)') 'perror', info
      call pvmfstartpvmd('-n nosuchhost', 0, info)
      write (*, '(a,i4)') 'startpvmd running', info
      call pvmfsleep(0)
      call pvmfexit(info)
      write (*, '(a,i3)') 'exit', info
      end
c
      integer function handlr(mid)
      integer mid
      handlr = mid
      end
