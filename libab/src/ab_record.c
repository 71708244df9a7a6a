/*
 * ab_record.c -- record mode: the task's record file (xab/record.h).
 *
 * Cheap by design: the file is a shared memory mapping, so an entry is a
 * few stores (no system call, no message, no formatting), and what is in
 * it survives the task's death, SIGKILL included: the record of a hung run
 * that was killed is complete up to the call it hung in (a pending entry).
 * The file is made at the task's first receive-like call or spawn.
 */
#define _GNU_SOURCE
#include "ab_core.h"
#include "ab_rr.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define XAB_REC_CHUNK 1024 /* entries added each time the file grows */

static struct {
  int fd;                       /* -1: not open (yet, or failed) */
  int failed;
  struct xab_rec_header *hdr;   /* the mapping: header, then entries */
  uint32_t cap;                 /* entries the mapping holds */
} rec = {.fd = -1};

/* ---------------------------------------------------------------- the binary's identity */

static int build_id_note(struct dl_phdr_info *info, size_t size, void *out) {
  (void)size;
  char *hex = out;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE) continue;
    const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
      const char *name = p + sizeof *n, *desc = name + ((n->n_namesz + 3) & ~3u);
      if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
        for (unsigned k = 0; k < n->n_descsz && k < 32; k++)
          snprintf(hex + 2 * k, 3, "%02x", (unsigned char)desc[k]);
        return 1;
      }
      p = desc + ((n->n_descsz + 3) & ~3u);
    }
  }
  return 1; /* the first object is the program: stop there */
}

/* The program's GNU build id, or its size and modification time. */
void xab_record_identity(char *out, size_t len) {
  out[0] = 0;
  dl_iterate_phdr(build_id_note, out);
  struct stat st;
  if (!out[0] && stat("/proc/self/exe", &st) == 0)
    snprintf(out, len, "%lld:%lld", (long long)st.st_size, (long long)st.st_mtime);
}

/* ---------------------------------------------------------------- the file */

static int map_entries(uint32_t cap) {
  size_t bytes = XAB_REC_HEADER_BYTES + (size_t)cap * sizeof(struct xab_rec_entry);
  if (ftruncate(rec.fd, (off_t)bytes) < 0) return -1;
  void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, rec.fd, 0);
  if (m == MAP_FAILED) return -1;
  if (rec.hdr) munmap(rec.hdr, XAB_REC_HEADER_BYTES + (size_t)rec.cap * sizeof(struct xab_rec_entry));
  rec.hdr = m;
  rec.cap = cap;
  return 0;
}

static void mark_exited(void) {
  if (rec.hdr) rec.hdr->exited = 1;
}

static int open_record(void) {
  if (rec.hdr) return 0;
  if (rec.failed || pvmmytid <= 0) return -1;
  const char *dir = getenv("XAB_RECORD");
  char path[4096];
  mkdir(dir, 0755); /* the first task of a run makes it; the others find it */
  snprintf(path, sizeof path, "%s/t%x.rec", dir, (unsigned)pvmmytid);
  rec.fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (rec.fd < 0 || map_entries(XAB_REC_CHUNK) < 0) {
    fprintf(stderr, "xab: cannot write the record %s: %s; not recording\n", path, strerror(errno));
    rec.failed = 1;
    return -1;
  }
  struct xab_rec_header *h = rec.hdr;
  h->magic = XAB_REC_MAGIC;
  h->version = XAB_REC_VERSION;
  h->tid = pvmmytid;
  xab_enter_own();
  h->parent = pvm_parent();
  xab_leave_own();
  h->start_ns = xab_clock();
  h->pid = (int32_t)getpid();
  snprintf(h->name, sizeof h->name, "%s", program_invocation_short_name);
  xab_record_identity(h->build_id, sizeof h->build_id);
  atexit(mark_exited);
  return 0;
}

/* Room for one more entry: its address, NULL if the record is lost. */
static struct xab_rec_entry *next_entry(void) {
  if (open_record() < 0) return NULL;
  if (rec.hdr->count >= rec.cap && map_entries(rec.cap * 2) < 0) {
    rec.failed = 1;
    return NULL;
  }
  return (struct xab_rec_entry *)(rec.hdr + 1) + rec.hdr->count;
}

static struct xab_rec_entry *entry_at(int idx) {
  return idx >= 0 && rec.hdr && (uint32_t)idx < rec.hdr->count ? (struct xab_rec_entry *)(rec.hdr + 1) + idx : NULL;
}

/* Written, then counted: a reader never sees half an entry. */
static int commit(struct xab_rec_entry *e, int64_t t, uint32_t seq, int kind, int outcome, const int v[6]) {
  e->t_ns = t;
  e->seq = seq;
  e->kind = (uint16_t)kind;
  e->outcome = (uint16_t)outcome;
  memcpy(e->v, v, sizeof e->v);
  __atomic_store_n(&rec.hdr->count, rec.hdr->count + 1, __ATOMIC_RELEASE);
  return (int)rec.hdr->count - 1;
}

/* ---------------------------------------------------------------- entries */

int xab_message_serial(int mid, int *src, int *tag) {
  struct pvmminfo mi;
  if (mid <= 0 || pvm_getminfo(mid, &mi) < 0) return 0;
  *src = mi.src;
  *tag = mi.tag;
  return (mi.wid & ~XAB_WID_SERIAL_MASK) == XAB_WID_MARK ? mi.wid & XAB_WID_SERIAL_MASK : 0;
}

int xab_record_begin(uint32_t seq, int kind, int tid, int tag) {
  if (rec.hdr || open_record() == 0) rec.hdr->last_seq = seq;
  if (!xab_record_wanted(kind, tid, tag) || kind == XAB_EV_NRECV || kind == XAB_EV_PROBE) return -1;
  struct xab_rec_entry *e = next_entry();
  return e ? commit(e, xab_clock(), seq, kind, XAB_REC_PENDING, XAB_A(XAB_REC_V_PENDING(tid, tag))) : -1;
}

void xab_record_end(int idx, uint32_t seq, int kind, int tid, int tag, int mid) {
  if (!xab_record_wanted(kind, tid, tag)) return;
  int src = 0, mtag = 0, serial = xab_message_serial(mid, &src, &mtag);
  int outcome = mid > 0 ? XAB_REC_GOT : mid == 0 ? (kind == XAB_EV_TRECV ? XAB_REC_TIMEOUT : XAB_REC_NONE) : XAB_REC_ERROR;
  int v[6] = {XAB_REC_V_RECEIVE(tid, tag, src, mtag, serial, mid)};
  struct xab_rec_entry *e = entry_at(idx);
  if (e) { /* the pending entry becomes the outcome: fields first, outcome last */
    e->t_ns = xab_clock();
    memcpy(e->v, v, sizeof v);
    __atomic_store_n(&e->outcome, (uint16_t)outcome, __ATOMIC_RELEASE);
  } else if ((e = next_entry())) {
    commit(e, xab_clock(), seq, kind, outcome, v);
  }
}

/* Before the spawn: the record is opened here, so that a task whose first
 * call is a spawn dates its header at the spawn's start, as every other
 * task dates it at its first call's start (the correction's anchor). */
void xab_record_spawn_begin(uint32_t seq) {
  if (rec.hdr || open_record() == 0) rec.hdr->last_seq = seq;
}

/* Entries of up to 6 ints each: a spawn's tids, or their hosts. */
static int commit_list(int64_t t, uint32_t seq, int outcome, const int *list, int n) {
  for (int i = 0; i < n; i += XAB_REC_LIST_PER_ENTRY) {
    int v[6] = {0};
    memcpy(v, list + i, (size_t)(n - i < XAB_REC_LIST_PER_ENTRY ? n - i : XAB_REC_LIST_PER_ENTRY) * sizeof(int));
    struct xab_rec_entry *e = next_entry();
    if (!e) return -1;
    commit(e, t, seq, XAB_EV_SPAWN, outcome, v);
  }
  return 0;
}

/* The name of each host a spawn used, once per host: a host's pvmd tid
 * names it in this virtual machine only. */
static void name_hosts(int64_t t, uint32_t seq, const int *hosts, int n) {
  static int named[64], nnamed;
  for (int i = 0; i < n; i++) {
    int known = 0;
    for (int k = 0; k < nnamed && !known; k++) known = named[k] == hosts[i];
    if (known || nnamed == 64) continue;
    int nh = 0, na = 0;
    struct pvmhostinfo *hi = NULL;
    xab_enter_own();
    int rc = pvm_config(&nh, &na, &hi);
    xab_leave_own();
    for (int h = 0; rc >= 0 && h < nh; h++) {
      if (hi[h].hi_tid != hosts[i]) continue;
      int v[6] = {hosts[i]};
      strncpy((char *)&v[1], hi[h].hi_name, XAB_REC_HOSTNAME_BYTES);
      struct xab_rec_entry *e = next_entry();
      if (e) commit(e, t, seq, XAB_EV_SPAWN, XAB_REC_HOSTNAME, v);
    }
    named[nnamed++] = hosts[i];
  }
}

void xab_record_spawn(uint32_t seq, int count, int rc, const int *tids) {
  struct xab_rec_entry *e = next_entry();
  if (!e) return;
  rec.hdr->last_seq = seq;
  int64_t t = xab_clock();
  commit(e, t, seq, XAB_EV_SPAWN, XAB_REC_SPAWN, XAB_A(XAB_REC_V_SPAWN(count, rc)));
  if (rc <= 0 || commit_list(t, seq, XAB_REC_TIDS, tids, rc) < 0) return;
  int hosts[rc];
  for (int i = 0; i < rc; i++) hosts[i] = pvm_tidtohost(tids[i]);
  if (commit_list(t, seq, XAB_REC_HOSTS, hosts, rc) == 0) name_hosts(t, seq, hosts, rc);
}

void xab_record_other(int kind, int outcome, const int v[6]) {
  struct xab_rec_entry *e = next_entry();
  if (e) commit(e, xab_clock(), xab_rr.seq, kind, outcome, v);
}
