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

/* Where a routine stands in the result it hands out: n items (0: no pass
 * under way), the next one to hand out. */
struct f2x_pass {
  int n, next;
};

/* Whether this call starts a pass: none is under way, or the program asks
 * to start again (its count argument is -1). */
static int pass_starts(struct f2x_pass *p, const int *count) {
  if (p->n && count && *count == -1) p->n = 0;
  return p->n == 0;
}

/* The real call that starts a pass returned cc: on failure no pass is
 * under way, and cc is the routine's info. */
static int pass_begun(struct f2x_pass *p, int cc, int *info) {
  if (cc < 0) {
    p->n = 0;
    *info = cc;
    return 0;
  }
  p->next = 0;
  return 1;
}

/* After the last item the next call starts again. */
static void pass_step_done(struct f2x_pass *p) {
  if (p->next == p->n) p->n = 0;
}

void pvmfconfig_(int *nhost, int *narch, int *dtid, char *name, char *arch, int *speed, int *info,
                 size_t name_len, size_t arch_len) {
  static struct pvmhostinfo *hosts;
  static struct f2x_pass pass;
  static int na;
  f2x_begin();
  if (pass_starts(&pass, nhost) && !pass_begun(&pass, xab_config(&pass.n, &na, &hosts), info)) return;
  if (pass.next < pass.n) {
    const struct pvmhostinfo *h = &hosts[pass.next++];
    if (nhost) *nhost = pass.n;
    if (narch) *narch = na;
    if (dtid) *dtid = h->hi_tid;
    if (name) xab_f2x_ctof(name, name_len, h->hi_name);
    if (arch) xab_f2x_ctof(arch, arch_len, h->hi_arch);
    if (speed) *speed = h->hi_speed;
    *info = 1;
  }
  pass_step_done(&pass);
}

void pvmftasks_(int *where, int *ntask, int *tid, int *ptid, int *dtid, int *flag, char *aout,
                int *info, size_t aout_len) {
  static struct pvmtaskinfo *tasks;
  static struct f2x_pass pass;
  f2x_begin();
  if (pass_starts(&pass, ntask) && !pass_begun(&pass, xab_tasks(*where, &pass.n, &tasks), info)) return;
  if (pass.next < pass.n) {
    const struct pvmtaskinfo *t = &tasks[pass.next++];
    if (ntask) *ntask = pass.n;
    if (tid) *tid = t->ti_tid;
    if (ptid) *ptid = t->ti_ptid;
    if (dtid) *dtid = t->ti_host;
    if (flag) *flag = t->ti_flag;
    if (aout) xab_f2x_ctof(aout, aout_len, t->ti_a_out);
    *info = 1;
  }
  pass_step_done(&pass);
}

/* Kept exactly as PVM 3.4.6 has it, quirks included, so a program sees
 * what it saw: every call returns the first matching class (the cursor
 * never advances), `info` is only written on an error or when nothing
 * matches (PvmNotFound), and `nclasses` is read (-1 = start again) but
 * never written. */
void pvmfgetmboxinfo_(char *pattern, char *name, int *nclasses, int *nentries, int *index,
                      int *owner, int *flags, int *info, size_t pattern_len, size_t name_len) {
  static struct pvmmboxinfo *classes;
  static struct f2x_pass pass;
  f2x_begin();
  if (pass_starts(&pass, nclasses)) {
    char pat[F2X_NAME_CAP];
    if (xab_f2x_ftoc(pat, sizeof pat, pattern, pattern_len)) {
      *info = PvmBadParam;
      return;
    }
    if (!pass_begun(&pass, xab_getmboxinfo(pat, &pass.n, &classes), info)) return;
    if (!pass.n) *info = PvmNotFound;
  }
  if (pass.next < pass.n) {
    const struct pvmmboxinfo *c = &classes[pass.next];
    if (name) xab_f2x_ctof(name, name_len, c->mi_name);
    if (nentries) *nentries = c->mi_nentries;
    for (int i = 0; i < c->mi_nentries; i++) {
      if (index) index[i] = c->mi_indices[i];
      if (owner) owner[i] = c->mi_owners[i];
      if (flags) flags[i] = c->mi_flags[i];
    }
  }
  pass_step_done(&pass);
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
