c     f2xt_stdio.f -- lines to standard output and standard error in
c     turn.  gfortran buffers a unit by the kind of file it is: with both
c     streams in one file, the order of the lines in it tells whether the
c     program got the same kind of file under abmon as without.
      program f2xstd
      integer i
      do i = 1, 3
         write (*, '(a,i2)') 'to stdout', i
         write (0, '(a,i2)') 'to stderr', i
      end do
      end
