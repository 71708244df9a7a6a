/*
 * ab_buffer.c -- the record buffer and the string table: what waits to go
 * to abmon.
 *
 * A record is fixed-size (wire.h) and appended on the hot path (xab_rec in
 * ab_hot.h); a string is interned once and travels by number, in the first
 * message after its first use.  When and how the buffer goes to abmon is
 * ab_send.c's business.
 */
#include "ab_core.h"
#include "ab_send.h"

#include <stdlib.h>

/* The one state of libab in this process (ab_state.h says who owns what). */
struct xab_state xab_st = {
    .mode = XAB_MODE_UNATTACHED,
    .batch = XAB_DEFAULT_BATCH,
    .flush_ns = (int64_t)XAB_DEFAULT_FLUSH_MS * 1000000,
    .mhid = -1,
    .final_seq = -1,
};

/* ---------------------------------------------------------------- strings */

/* Interned strings: id 1.. in order of first use; ids up to `sent` have
 * reached abmon.  Open addressing on a power-of-two table. */
struct xab_strtab {
  char **text;   /* by id - 1 */
  int n, cap;
  int sent;      /* strings already sent */
  int *slot;     /* hash slot -> id, 0 = empty */
  int nslot;
};
static struct xab_strtab strs;

static uint32_t hash_str(const char *s) {
  uint32_t h = 2166136261u;
  while (*s) h = (h ^ (unsigned char)*s++) * 16777619u;
  return h;
}

static int strtab_grow(void) {
  int nslot = strs.nslot ? strs.nslot * 2 : 64;
  int *slot = calloc((size_t)nslot, sizeof *slot);
  char **text = realloc(strs.text, (size_t)nslot * sizeof *text);
  if (!slot || !text) {
    free(slot);
    if (text) strs.text = text;
    return -1;
  }
  strs.text = text;
  for (int id = 1; id <= strs.n; id++) {
    uint32_t i = hash_str(text[id - 1]) & (uint32_t)(nslot - 1);
    while (slot[i]) i = (i + 1) & (uint32_t)(nslot - 1);
    slot[i] = id;
  }
  free(strs.slot);
  strs.slot = slot;
  strs.nslot = nslot;
  strs.cap = nslot / 2;
  return 0;
}

int xab_str(const char *s) {
  if (!s || xab_st.mode == XAB_MODE_OFF) return 0;
  if (strs.n >= strs.cap && strtab_grow() < 0) return 0;
  uint32_t i = hash_str(s) & (uint32_t)(strs.nslot - 1);
  for (; strs.slot[i]; i = (i + 1) & (uint32_t)(strs.nslot - 1))
    if (strcmp(strs.text[strs.slot[i] - 1], s) == 0) return strs.slot[i];
  char *copy = strdup(s);
  if (!copy) return 0;
  strs.text[strs.n++] = copy;
  strs.slot[i] = strs.n;
  return strs.n;
}

int xab_strings_count(void) { return strs.n; }
int xab_strings_sent(void) { return strs.sent; }
const char *xab_string(int id) { return strs.text[id - 1]; }
void xab_strings_mark_sent(void) { strs.sent = strs.n; }
void xab_strings_forget_sent(void) { strs.sent = 0; }

/* ---------------------------------------------------------------- records */

const unsigned char xab_kind_local[XAB_EV_COUNT_] = {
#define XAB_LOCAL_(id, name, flags, rck, b, e) ((flags) & (XAB_F_LOCAL | XAB_F_PACK | XAB_F_UNPACK)) != 0,
    XAB_CALLS(XAB_LOCAL_)
#undef XAB_LOCAL_
};

const unsigned char xab_kind_family[XAB_EV_COUNT_] = {
#define XAB_FAMILY_(id, name, flags, rck, b, e) ((flags) & (XAB_F_PACK | XAB_F_UNPACK)) ? XAB_FILTER_PACK : 0,
    XAB_CALLS(XAB_FAMILY_)
#undef XAB_FAMILY_
};

/* What the task omits from now on, and its record saying so. */
void xab_filter_set(unsigned omit) {
  xab_st.filter = omit & XAB_FILTER_ALL;
  if (xab_st.n < XAB_MAX_BATCH) xab_put(XAB_EV_FILTER, XAB_PHASE_END, xab_clock(), 0, XAB_A((int)xab_st.filter));
}

/* The list after its record, six tids to a record of kind `tids`. */
static void put_tids(int64_t t, const int *tids, int ntids) {
  for (int i = 0; i < ntids; i += 6) {
    int chunk[6] = {0};
    int k = ntids - i < 6 ? ntids - i : 6;
    memcpy(chunk, tids + i, (size_t)k * sizeof(int));
    xab_put(XAB_EV_TIDS, XAB_PHASE_CONT, t, k, chunk);
  }
}

void xab_rec_list(int kind, int64_t t, int rc, const int a[6], int count_slot, const int *tids, int ntids) {
  if (xab_st.mode == XAB_MODE_OFF) {
    xab_term_check();
    return;
  }
  if (ntids < 0 || !tids) ntids = 0;
  int need = 1 + (ntids + 5) / 6;
  int slots[6];
  memcpy(slots, a, sizeof slots);
  if (need > XAB_MAX_BATCH) { /* keep what fits in one message, and say so */
    need = XAB_MAX_BATCH;
    ntids = (XAB_MAX_BATCH - 1) * 6;
    slots[count_slot] = ntids;
  }
  a = slots;
  if (xab_st.n + need > XAB_MAX_BATCH) {
    if (xab_st.mode == XAB_MODE_ACTIVE) xab_flush_now(0);
    if (xab_st.n + need > XAB_MAX_BATCH) {
      xab_st.lost++;
      xab_own_end();
      xab_term_check();
      return;
    }
  }
  xab_put(kind, XAB_PHASE_END, t, rc, a);
  put_tids(t, tids, ntids);
  if (xab_due(kind, t)) xab_flush_auto();
  xab_attach_if_enrolled();
  xab_own_end();
  xab_term_check();
}

/* A record made from inside a PVM call: never through PVM from there. */
void xab_rec_quiet(int kind, int64_t t, int rc, const int a[6]) {
  if (xab_st.mode == XAB_MODE_OFF) return;
  if (xab_st.n >= XAB_MAX_BATCH) {
    xab_st.lost++;
    return;
  }
  xab_put(kind, XAB_PHASE_END, t, rc, a);
  if (!xab_due(kind, t)) return;
  if (xab_st.mode != XAB_MODE_ACTIVE || xab_st.flushing || xab_socket_flush(0) < 0) xab_flush_at_next_record();
}

/* Dated as the oldest record it goes before (or now, in an empty buffer),
 * so the task's records stay in time order.  A full buffer gives up its
 * newest record. */
void xab_put_first(int kind, const int a[6]) {
  if (xab_st.n == XAB_MAX_BATCH) xab_st.n--, xab_st.lost++;
  memmove(&xab_st.buf[1], &xab_st.buf[0], (size_t)xab_st.n * sizeof xab_st.buf[0]);
  xab_st.n++;
  struct xab_event *e = &xab_st.buf[0];
  e->t_ns = xab_st.n > 1 ? xab_st.buf[1].t_ns : xab_clock();
  e->kind = (uint16_t)kind;
  e->phase = XAB_PHASE_END;
  e->flags = 0;
  e->rc = 0;
  memcpy(e->a, a, sizeof e->a);
}
