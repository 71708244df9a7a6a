/*
 * ab_replay_paths.c -- replay mode: task paths.  A task's path ("1.2")
 * names it in the plan; this run's tid of a path comes from the task
 * itself, its parent and children, or the run's directory in PVM's mailbox.
 */
#define _GNU_SOURCE
#include "ab_core.h"
#include "ab_replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- the run's directory of tasks */

/* Any task's tid, for a message from a task that is not the receiver's
 * parent or child: every replaying task publishes its path and tid in
 * PVM's mailbox, under a name of this run (the plan directory is
 * abreplay's, one per run), persistent so that it outlives the task. */
static void entry_name(char *out, size_t len, const char *path) {
  const char *run = strrchr(xab_rp.dir, '/');
  snprintf(out, len, "xab.replay.%s.%s", run ? run + 1 : xab_rp.dir, path);
}

/* Around libab's own mailbox calls: no error printed, the program's
 * buffers and next buffer ids as they were. */
struct quiet { int autoerr, sbuf, rbuf, ids[XAB_ID_PEEK]; };
static void quiet_begin(struct quiet *q) {
  q->autoerr = pvm_setopt(PvmAutoErr, 0);
  q->sbuf = pvm_setsbuf(0);
  q->rbuf = pvm_setrbuf(0);
  xab_peek_free_ids(q->ids);
}
static void quiet_end(struct quiet *q) {
  int left = pvm_setrbuf(q->rbuf);
  if (left > 0 && left != q->rbuf) pvm_freebuf(left);
  pvm_setsbuf(q->sbuf);
  xab_restore_free_ids(q->ids);
  pvm_setopt(PvmAutoErr, q->autoerr);
}

void xab_replay_publish(void) {
  static int done;
  if (done || !xab_rr.replay || xab_st.flushing) return;
  done = 1;
  struct quiet q;
  quiet_begin(&q);
  int me = pvm_mytid();
  char name[256];
  entry_name(name, sizeof name, xab_rp.path);
  int mid = pvm_mkbuf(PvmDataDefault);
  pvm_setsbuf(mid);
  pvm_pkint(&me, 1, 1);
  pvm_putinfo(name, mid, PvmMboxPersistent);
  pvm_setsbuf(0);
  pvm_freebuf(mid);
  quiet_end(&q);
  char file[4096];
  snprintf(file, sizeof file, "%s/replayed", xab_rp.dir); /* abreplay checks that every task came */
  FILE *f = fopen(file, "a");
  if (f) {
    fprintf(f, "%s\n", xab_rp.path);
    fclose(f);
  }
}

static int read_entry(const char *name) {
  struct quiet q;
  quiet_begin(&q);
  int tid = 0, mid = pvm_recvinfo((char *)name, 0, PvmMboxDefault);
  if (mid > 0) {
    pvm_setrbuf(mid);
    pvm_upkint(&tid, 1, 1);
    pvm_freebuf(mid);
  }
  quiet_end(&q);
  return tid;
}

/* The tid of the task with this path, from the mailbox: waits (taking no
 * message) until the task has published it, up to the replay timeout. */
static int tid_from_directory(const char *path) {
  static struct { char path[XAB_PATH_MAX]; int tid; } known[64];
  static int nknown;
  for (int i = 0; i < nknown; i++)
    if (strcmp(known[i].path, path) == 0) return known[i].tid;
  char name[256];
  entry_name(name, sizeof name, path);
  int64_t end = xab_clock() + (int64_t)xab_rp.timeout_s * 1000000000;
  int tid;
  while ((tid = read_entry(name)) <= 0 && xab_clock() < end) {
    struct timeval tick = {0, 10000};
    match_fn old = xab_rp_use_match(xab_rp_match_nothing);
    pvm_trecv(-1, -1, &tick);
    xab_rp_use_match(old);
  }
  if (tid > 0 && nknown < 64) {
    snprintf(known[nknown].path, sizeof known[nknown].path, "%s", path);
    known[nknown++].tid = tid;
  }
  return tid;
}

/* ---------------------------------------------------------------- whom to wait for */

/* The tid, in this run, of the task with this path: the task itself, its
 * parent or one of its children, or any other from the directory; 0 if it
 * never appears. */
int xab_rp_tid_of(const char *path) {
  int tid = xab_rp_known_tid_of(path);
  return tid != 0 ? tid : tid_from_directory(path);
}

/* Without the directory (no message taken: a handler may ask): the task
 * itself, its parent, its children; 0 for any other. */
int xab_rp_known_tid_of(const char *path) {
  size_t mine = strlen(xab_rp.path);
  if (strcmp(path, xab_rp.path) == 0) return pvmmytid;
  const char *dot = strrchr(xab_rp.path, '.');
  if (dot && strlen(path) == (size_t)(dot - xab_rp.path) &&
      strncmp(path, xab_rp.path, (size_t)(dot - xab_rp.path)) == 0)
    return pvm_parent();
  if (strncmp(path, xab_rp.path, mine) == 0 && path[mine] == '.' && !strchr(path + mine + 1, '.')) {
    int k = atoi(path + mine + 1);
    return k >= 1 && k <= xab_rp.nchildren ? xab_rp.children[k - 1] : 0;
  }
  return 0;
}
