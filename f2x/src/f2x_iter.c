/*
 * f2x_iter.c -- the routines that hand a C array out one item per call.
 *
 * pvmfconfig, pvmftasks and pvmfgetmboxinfo cannot return an array of
 * structs to Fortran, so libfpvm3 makes the real call once, keeps the
 * result, and returns one host / task / mailbox class per call; the next
 * call after the last one (or a call with the count argument set to -1)
 * starts again.  f2x keeps the same state machine, so a Fortran loop sees
 * the same sequence, and the real call is made (and recorded) once per
 * pass, as with libfpvm3.
 */
#include "f2x.h"

void pvmfconfig_(int *nhost, int *narch, int *dtid, char *name, char *arch, int *speed, int *info,
                 size_t name_len, size_t arch_len);
void pvmftasks_(int *where, int *ntask, int *tid, int *ptid, int *dtid, int *flag, char *aout,
                int *info, size_t aout_len);
void pvmfgetmboxinfo_(char *pattern, char *name, int *nclasses, int *nentries, int *index,
                      int *owner, int *flags, int *info, size_t pattern_len, size_t name_len);
void pvmfsiblings_(int *nsiblings, int *sibidx, int *stid);

void pvmfconfig_(int *nhost, int *narch, int *dtid, char *name, char *arch, int *speed, int *info,
                 size_t name_len, size_t arch_len) {
  static struct pvmhostinfo *hosts;
  static int n, na, next;
  f2x_begin();
  if (n && nhost && *nhost == -1) n = 0;
  if (!n) {
    int cc = xab_config(&n, &na, &hosts);
    if (cc < 0) {
      n = 0;
      *info = cc;
      return;
    }
    next = 0;
  }
  if (next < n) {
    const struct pvmhostinfo *h = &hosts[next++];
    if (nhost) *nhost = n;
    if (narch) *narch = na;
    if (dtid) *dtid = h->hi_tid;
    if (name) xab_f2x_ctof(name, name_len, h->hi_name);
    if (arch) xab_f2x_ctof(arch, arch_len, h->hi_arch);
    if (speed) *speed = h->hi_speed;
    *info = 1;
  }
  if (next == n) n = 0;
}

void pvmftasks_(int *where, int *ntask, int *tid, int *ptid, int *dtid, int *flag, char *aout,
                int *info, size_t aout_len) {
  static struct pvmtaskinfo *tasks;
  static int n, next;
  f2x_begin();
  if (n && ntask && *ntask == -1) n = 0;
  if (!n) {
    int cc = xab_tasks(*where, &n, &tasks);
    if (cc < 0) {
      n = 0;
      *info = cc;
      return;
    }
    next = 0;
  }
  if (next < n) {
    const struct pvmtaskinfo *t = &tasks[next++];
    if (ntask) *ntask = n;
    if (tid) *tid = t->ti_tid;
    if (ptid) *ptid = t->ti_ptid;
    if (dtid) *dtid = t->ti_host;
    if (flag) *flag = t->ti_flag;
    if (aout) xab_f2x_ctof(aout, aout_len, t->ti_a_out);
    *info = 1;
  }
  if (next == n) n = 0;
}

/* Kept exactly as PVM 3.4.6 has it, quirks included, so a program sees
 * what it saw: every call returns the first matching class (the cursor
 * never advances), `info` is only written on an error or when nothing
 * matches (PvmNotFound), and `nclasses` is read (-1 = start again) but
 * never written. */
void pvmfgetmboxinfo_(char *pattern, char *name, int *nclasses, int *nentries, int *index,
                      int *owner, int *flags, int *info, size_t pattern_len, size_t name_len) {
  static struct pvmmboxinfo *classes;
  static int n, next;
  f2x_begin();
  if (n && nclasses && *nclasses == -1) n = 0;
  if (!n) {
    char pat[F2X_NAME_CAP];
    if (xab_f2x_ftoc(pat, sizeof pat, pattern, pattern_len)) {
      *info = PvmBadParam;
      return;
    }
    int cc = xab_getmboxinfo(pat, &n, &classes);
    if (cc < 0) {
      n = 0;
      *info = cc;
      return;
    }
    next = 0;
    if (!n) *info = PvmNotFound;
  }
  if (next < n) {
    const struct pvmmboxinfo *c = &classes[next];
    if (name) xab_f2x_ctof(name, name_len, c->mi_name);
    if (nentries) *nentries = c->mi_nentries;
    for (int i = 0; i < c->mi_nentries; i++) {
      if (index) index[i] = c->mi_indices[i];
      if (owner) owner[i] = c->mi_owners[i];
      if (flags) flags[i] = c->mi_flags[i];
    }
  }
  if (next == n) n = 0;
}

/* pvmfsiblings(nsiblings, sibidx, stid): pvm_siblings once, then lookups. */
void pvmfsiblings_(int *nsiblings, int *sibidx, int *stid) {
  static int nsib = -1;
  static int *sibs;
  f2x_begin();
  if (nsib == -1) nsib = xab_siblings(&sibs);
  if (nsiblings) *nsiblings = nsib;
  if (sibidx && stid) *stid = (*sibidx >= 0 && *sibidx < nsib) ? sibs[*sibidx] : PvmNoTask;
}
