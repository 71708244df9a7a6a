/*
 * ab_send.c -- when what waits in the buffer goes to abmon, and which way.
 *
 * The local socket first, when the task has one; else, or when it fails, a
 * PVM message.  The header (wire.h) is the same both ways.
 */
#include "ab_core.h"
#include "ab_send.h"

static int host_little_endian(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}

void xab_message_header(int hdr[XAB_HDR_INTS], int final) {
  xab_cost_send_begin(); /* may add the last send's record (ab_cost.c) */
  hdr[XAB_HDR_MAGIC] = XAB_WIRE_MAGIC;
  hdr[XAB_HDR_VERSION] = XAB_WIRE_VERSION;
  hdr[XAB_HDR_FLAGS] = (host_little_endian() ? XAB_HDRF_LITTLE_ENDIAN : 0) | (final ? XAB_HDRF_FINAL : 0) |
                       (xab_st.mhid >= 0 ? XAB_HDRF_POKE : 0);
  hdr[XAB_HDR_SEQ] = xab_st.seq;
  hdr[XAB_HDR_NSTRINGS] = xab_strings_count() - xab_strings_sent();
  hdr[XAB_HDR_NEVENTS] = xab_st.n;
  hdr[XAB_HDR_LOST] = xab_st.lost;
  hdr[XAB_HDR_RECSIZE] = (int)sizeof(struct xab_event);
  int key[2];
  xab_poke_key(key);
  hdr[XAB_HDR_POKE_KEY_LO] = key[0];
  hdr[XAB_HDR_POKE_KEY_HI] = key[1];
}

void xab_message_done(int ok) {
  if (!ok) {
    xab_st.lost += xab_st.n;
    if (++xab_st.send_failures >= 3) xab_st.mode = XAB_MODE_OFF;
  } else {
    xab_strings_mark_sent();
    xab_st.lost = 0;
    xab_st.send_failures = 0;
    xab_st.seq++;
  }
  xab_st.n = 0;
  xab_st.last_flush_ns = xab_clock();
  xab_cost_send_end(xab_st.last_flush_ns);
}

void xab_flush_now(int final) {
  if (xab_st.mode != XAB_MODE_ACTIVE || xab_st.flushing) return;
  xab_st.net_flush_wanted = 0;
  if (xab_st.n == 0 && !final && xab_st.lost == 0) return;
  if (!final) {
    xab_cost_calibrate_due();
    xab_clock_sync_due();
  }
  if (xab_socket_flush(final) == 0) return;
  /* Let PVM take in what has already arrived before our buffer takes an id,
   * so arriving messages get the ids they would get without libab. */
  xab_st.flushing = 1;
  int autoerr = pvm_setopt(PvmAutoErr, 0);
  pvm_probe(-1, -1);
  pvm_setopt(PvmAutoErr, autoerr);
  xab_pvm_flush(final, 0);
}

/* Records left free in the buffer when a send through PVM waits. */
#define XAB_WAIT_ROOM 256

void xab_flush_auto(void) {
  if (xab_st.filter_wanted && !xab_st.flushing) { /* abmon's filter poke came inside a send (ab_poke.c) */
    xab_filter_set(xab_st.filter_wanted & XAB_FILTER_ALL);
    xab_st.filter_wanted = 0;
  }
  if (xab_st.mode != XAB_MODE_ACTIVE) {
    xab_st.last_flush_ns = xab_clock(); /* not attached: keep, check again later */
    return;
  }
  /* A send through PVM takes in the messages that have arrived (libpvm
   * reads its sockets at every send).  After a call that does not read
   * them itself (initsend, a pack, ...) or once it has returned, that is
   * earlier than without libab, and they would take buffer ids the
   * program's next pvm_mkbuf gets without it.  So the send waits for the
   * start of the program's next call that reads anyway (xab_flush_waiting),
   * unless the buffer is close to full. */
  if (!xab_st.have_sock && xab_st.n < XAB_MAX_BATCH - XAB_WAIT_ROOM) {
    xab_st.net_flush_wanted = 1;
    return;
  }
  xab_flush_now(0);
}

void xab_flush_waiting(void) {
  xab_st.net_flush_wanted = 0;
  xab_flush_now(0);
}

void xab_flush(void) { xab_flush_now(0); }
