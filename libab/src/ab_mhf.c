/*
 * ab_mhf.c -- the program's message handlers (pvm_addmhf), as PVM would
 * keep them without libab.
 *
 * Two things of libab's live in PVM's handler table: the poke handler
 * (ab_poke.c), and, for each handler of the program, a trampoline that
 * records the message as received (a `handler` record, serial read and
 * cleared as a receive does) and then calls the program's function.  PVM's
 * table is visible to the program: the ids pvm_addmhf returns, what
 * pvm_delmhf says about an id, and PVM's own pvmdisplaymhfinfo, which
 * prints the whole table (PVM's mhf_server example calls it after every
 * change).  So the program is shown a shadow: a copy of PVM's table kept
 * with PVM's own algorithm (PVM's lpvmgen.c: a LIFO free list of ids, handles
 * kept contiguous by moving the last one into a deleted one's place), holding
 * PVM's system handlers and the program's, with the program's functions.
 * The real table's ids are libab's business.
 *
 * PVM adds its system handlers (SYSCTX_TC control messages) each time the
 * task enrolls.  Their headers are read once, from PVM's real table, the
 * first time the task is seen enrolled; each enrollment adds them to the
 * shadow again.
 */
#define _GNU_SOURCE
#include "ab_core.h"
#include "ab_rr.h"

#include <stdio.h>
#include <stdlib.h>

/* libpvm3's own, exported but not in pvm3.h. */
void pvmdisplaymhfinfo(char *who, char *msg, int tid);

struct mh_entry {         /* PVM's struct mhandler, plus ours */
  int mhid;               /* the program's id */
  int src, tag, ctx;      /* the header it matches, -1: any */
  int (*fn)(int);         /* the program's function; NULL: a system handler */
  int real;               /* the trampoline's id in PVM's real table, -1: none */
};
struct mh_slot {          /* PVM's struct dhandler */
  int mhid;               /* itself when in use, else the next free id (-1: end) */
  int handle;             /* index into handles */
};

static struct {
  struct mh_slot *dh;
  struct mh_entry *h;
  int ndh, nh, fl;        /* ndhandles (never shrinks), nhandles, fl_dhandles */
  int enrolled;           /* the tid the system handlers were added for, -1 */
  int nsys;               /* PVM's system handlers, read once */
  struct mh_entry *sys;
  int sys_read;
} sh = {.fl = -1, .enrolled = -1};

/* ---------------------------------------------------------------- PVM's algorithm, on the shadow */

static int header_overlaps(const struct mh_entry *e, int src, int tag, int ctx) {
  return (e->tag == -1 || e->tag == tag || tag == -1) && (e->ctx == -1 || e->ctx == ctx || ctx == -1) &&
         (e->src == -1 || e->src == src || src == -1);
}

static int grow(void) {
  struct mh_slot *dh = realloc(sh.dh, (size_t)(sh.ndh + 1) * sizeof *dh);
  if (!dh) return -1;
  sh.dh = dh;
  struct mh_entry *h = realloc(sh.h, (size_t)(sh.ndh + 1) * sizeof *h);
  if (!h) return -1;
  sh.h = h;
  return 0;
}

/* pvm_addmhf: the new id, or PvmExists / PvmNoMem. */
static int shadow_add(int src, int tag, int ctx, int (*fn)(int), int real) {
  for (int i = sh.nh - 1; i >= 0; i--)
    if (header_overlaps(&sh.h[i], src, tag, ctx)) return PvmExists;
  int mhid, hand;
  if (sh.ndh > sh.nh) { /* a free id: the head of the free list */
    mhid = sh.fl;
    sh.nh++;
    sh.fl = sh.dh[mhid].mhid;
    sh.dh[mhid].mhid = mhid;
    hand = sh.dh[mhid].handle;
  } else {
    if (grow() < 0) return PvmNoMem;
    mhid = hand = sh.ndh++;
    sh.nh++;
    sh.dh[mhid].mhid = mhid;
    sh.dh[mhid].handle = mhid;
  }
  sh.h[hand] = (struct mh_entry){mhid, src, tag, ctx, fn, real};
  return mhid;
}

/* pvm_delmhf: 0, or the error and PVM's words for it in *where. */
static int shadow_del(int mhid, const char **where, struct mh_entry *gone) {
  *where = "pvm_delmhf";
  if (mhid < 0) return PvmBadParam;
  if (mhid >= sh.ndh) {
    *where = "(mhid >= ndhandles) pvm_delmhf";
    return PvmNotFound;
  }
  if (sh.dh[mhid].handle >= sh.nh) return PvmNotFound; /* already free */
  sh.nh--;
  int to = sh.dh[mhid].handle, from = sh.nh;
  if (gone) *gone = sh.h[to];
  if (to != from) {
    sh.h[to] = sh.h[from];
    sh.dh[sh.h[to].mhid].handle = to;
    sh.dh[mhid].handle = from;
  }
  sh.dh[mhid].mhid = sh.fl;
  sh.fl = mhid;
  return 0;
}

/* ---------------------------------------------------------------- the real table */

static int quiet_errno;
static int quiet_autoerr;
static void quiet_begin(void) {
  quiet_errno = pvm_errno;
  quiet_autoerr = pvm_setopt(PvmAutoErr, 0);
}
static void quiet_end(void) {
  pvm_setopt(PvmAutoErr, quiet_autoerr);
  pvm_errno = quiet_errno;
}

static int is_ours(int real) {
  if (real >= 0 && real == xab_st.mhid) return 1;
  for (int i = 0; i < sh.nh; i++)
    if (sh.h[i].fn && sh.h[i].real == real) return 1;
  return 0;
}

/* PVM's real table, less libab's own handlers, in its order (the order
 * they were added): pvmdisplaymhfinfo is the only way to see it, so its
 * printout is read from a memory stream.  The count, -1 if unreadable. */
static int read_real_table(struct mh_entry **out) {
  char *text = NULL;
  size_t len = 0;
  *out = NULL;
  FILE *mem = open_memstream(&text, &len);
  if (!mem) return -1;
  FILE *stdout_was = stdout;
  stdout = mem;
  pvmdisplaymhfinfo("", "", 0);
  stdout = stdout_was;
  fclose(mem);
  int ndh = 0, nh = 0, fl = 0, n = -1;
  const char *p = text ? strstr(text, "ndhandles = ") : NULL;
  if (p && sscanf(p, "ndhandles = %d nhandles = %d fl_dhandles = %d", &ndh, &nh, &fl) == 3) {
    *out = calloc((size_t)(nh > 0 ? nh : 1), sizeof **out);
    n = *out ? 0 : -1;
    for (int i = 0; *out && i < nh && (p = strstr(p, "handles[")) != NULL;) {
      int index, mhid, ctx, tag;
      unsigned src;
      if (p > text && p[-1] == 'd') { /* "dhandles[": the row's first half */
        p += 8;
        continue;
      }
      if (sscanf(p, "handles[%d].mhid = %d .header.src = t%x .header.ctx = %d .header.tag= %d", &index, &mhid,
                 &src, &ctx, &tag) == 5 &&
          index == i) {
        if (!is_ours(mhid)) (*out)[n++] = (struct mh_entry){-1, (int)src, tag, ctx, NULL, -1};
        i++;
      }
      p += 8;
    }
  }
  free(text);
  return n;
}

/* PVM's system handlers: the real table the first time the task is seen
 * enrolled. */
static void read_system_handlers(void) {
  int n = read_real_table(&sh.sys);
  sh.nsys = n > 0 ? n : 0;
  sh.sys_read = 1;
}

/* The task has left PVM: PVM deleted every handler, the real ones too. */
static void forget_all(void) {
  for (int i = sh.ndh - 1; i >= 0; i--) {
    const char *where;
    shadow_del(i, &where, NULL);
  }
  for (int i = 0; i < sh.ndh; i++) sh.h[i].real = -1;
  sh.enrolled = -1;
}

/* Each enrollment adds PVM's system handlers, after the program's earlier ones. */
static void follow_enrollment(void) {
  if (sh.enrolled == pvmmytid) return;
  if (sh.enrolled != -1) forget_all(); /* it left PVM by a way libab did not see */
  if (pvmmytid == -1) return;
  if (!sh.sys_read) read_system_handlers();
  for (int i = 0; i < sh.nsys; i++) shadow_add(sh.sys[i].src, sh.sys[i].tag, sh.sys[i].ctx, NULL, -1);
  sh.enrolled = pvmmytid;
}

static int is_poke(int src, int tag, int ctx) {
  return xab_st.mode == XAB_MODE_ACTIVE && src == xab_st.abmon_tid && ctx == xab_st.ctx &&
         tag == xab_st.tag + XAB_POKE_TAG_OFFSET;
}

/* PVM calls this for a message one of the program's handlers takes: the
 * one PVM would have called (the same search, in the same order). */
static int trampoline(int mid) {
  struct pvmminfo mi;
  if (pvm_getminfo(mid, &mi) < 0) return 0;
  if (is_poke(mi.src, mi.tag, mi.ctx)) return xab_poke(mid); /* the program's handler covers abmon's */
  for (int i = sh.nh - 1; i >= 0; i--) {
    const struct mh_entry *e = &sh.h[i];
    if ((e->tag == -1 || e->tag == mi.tag) && (e->ctx == -1 || e->ctx == mi.ctx) &&
        (e->src == -1 || e->src == mi.src)) {
      if (!e->fn) return 0;
      int (*fn)(int) = e->fn, bytes = 0, src = 0, tag = 0;
      int serial = xab_read_serial(mid, 1, &bytes, &src, &tag);
      if (xab_rr_on()) xab_rr_handler(src, tag, serial);
      xab_rec_quiet(XAB_EV_HANDLER, xab_clock(), 0, XAB_A(src, tag, bytes, serial, e->mhid));
      return fn(mid);
    }
  }
  return 0;
}

/* ---------------------------------------------------------------- the calls */

int xab_mhf_add(int src, int tag, int ctx, int (*fn)(int)) {
  follow_enrollment();
  for (int i = sh.nh - 1; i >= 0; i--)
    if (header_overlaps(&sh.h[i], src, tag, ctx)) return lpvmerr("pvm_addmhf", PvmExists);
  quiet_begin();
  int real = pvm_addmhf(src, tag, ctx, trampoline);
  if (real == PvmExists && xab_poke_handler_off()) /* it covers the pokes: it takes them */
    real = pvm_addmhf(src, tag, ctx, trampoline);
  quiet_end();
  int mhid = shadow_add(src, tag, ctx, fn, real >= 0 ? real : -1);
  if (mhid < 0) {
    if (real >= 0) {
      quiet_begin();
      pvm_delmhf(real);
      quiet_end();
    }
    return lpvmerr("pvm_addmhf", mhid);
  }
  return mhid;
}

int xab_mhf_del(int mhid) {
  follow_enrollment();
  const char *where;
  struct mh_entry gone = {-1, 0, 0, 0, NULL, -1};
  int rc = shadow_del(mhid, &where, &gone);
  if (rc < 0) return lpvmerr((char *)where, rc);
  if (gone.real >= 0) {
    quiet_begin();
    pvm_delmhf(gone.real);
    quiet_end();
  }
  if (xab_st.mhid < 0) xab_poke_handler_on(); /* back, unless another covers the pokes */
  return 0;
}

void xab_displaymhfinfo(char *who, char *msg, int tid) {
  follow_enrollment();
  printf("\n%s t%x: Display Message Handler Information: ", who, tid);
  printf("ndhandles = %d\tnhandles = %d\tfl_dhandles = %d", sh.ndh, sh.nh, sh.fl);
  printf("\n%s: free list.  head <-", "pvmdisplaymhfinfo");
  for (int head = sh.fl; head != -1; head = sh.dh[head].mhid) printf(" %d", head);
  printf(" -< tail");
  printf("\n%s t%x: %s\n", who, tid, msg);
  for (int i = 0; i < sh.ndh; i++) {
    printf("%s t%x: dhandles[%2d].mhid = %2d  .handle = %2d     ", who, tid, i, sh.dh[i].mhid, sh.dh[i].handle);
    printf("handles[%2d].mhid = %2d  .header.src = t%-8x  ", i, sh.h[i].mhid, (unsigned)sh.h[i].src);
    printf(".header.ctx = %8d  .header.tag= %8d\n", sh.h[i].ctx, sh.h[i].tag);
  }
  printf("\n\n");
  fflush(stdout);
}

/* pvm_exit deletes every handler, highest id first, with an error for each
 * free id (mhf_server's last lines).  Said for the shadow, before PVM's
 * own exit (which runs with PvmAutoErr off), while the task still has its
 * tid; the shadow itself empties after, as the program's handlers may
 * still run during PVM's exit. */
void xab_mhf_exit_begin(void) {
  follow_enrollment();
  if (pvmmytid == -1) return;
  struct mh_slot *dh = malloc((size_t)(sh.ndh ? sh.ndh : 1) * sizeof *dh);
  struct mh_entry *h = malloc((size_t)(sh.ndh ? sh.ndh : 1) * sizeof *h);
  if (!dh || !h) {
    free(dh);
    free(h);
    return;
  }
  memcpy(dh, sh.dh, (size_t)sh.ndh * sizeof *dh);
  memcpy(h, sh.h, (size_t)sh.ndh * sizeof *h);
  int nh = sh.nh, fl = sh.fl;
  for (int i = sh.ndh - 1; i >= 0; i--) {
    const char *where;
    int rc = shadow_del(i, &where, NULL);
    if (rc < 0) lpvmerr((char *)where, rc);
  }
  memcpy(sh.dh, dh, (size_t)sh.ndh * sizeof *dh);
  memcpy(sh.h, h, (size_t)sh.ndh * sizeof *h);
  sh.nh = nh, sh.fl = fl;
  free(dh);
  free(h);
}

void xab_mhf_exit_end(void) {
  if (sh.enrolled != -1 && pvmmytid == -1) forget_all(); /* else the exit failed */
}

/* A PVM call that adds handlers of its own to the real table (pvm_catchout:
 * one for its children's output, one for their ends) adds them to the
 * program's table too, as PVM's, after what is there: the program's next
 * ids, and pvm_exit's "Not Found" for the ids left free after a new
 * enrollment, are then as without libab.  A call that enrolled the task
 * first leaves PVM's system handlers and its own mixed: the table is taken
 * whole, and the system handlers are read at the next enrollment. */
void xab_mhf_pvm_begin(void) { follow_enrollment(); }

void xab_mhf_pvm_end(void) {
  if (pvmmytid == -1) return;
  int enrolled_by_it = !sh.sys_read && sh.enrolled == -1;
  if (!enrolled_by_it) follow_enrollment();
  struct mh_entry *real = NULL;
  int n = read_real_table(&real);
  for (int i = 0; i < n; i++) {
    int known = 0;
    for (int j = 0; j < sh.nh && !known; j++)
      known = sh.h[j].src == real[i].src && sh.h[j].tag == real[i].tag && sh.h[j].ctx == real[i].ctx;
    if (!known) shadow_add(real[i].src, real[i].tag, real[i].ctx, NULL, -1);
  }
  free(real);
  if (enrolled_by_it) sh.enrolled = pvmmytid;
}
