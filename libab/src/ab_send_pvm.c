/*
 * ab_send_pvm.c -- messages to abmon as PVM messages.
 *
 * The program must not be able to tell.  libab's message is built in a
 * buffer of its own (made and freed around the send, so PVM's LIFO
 * buffer-id list hands the program the same ids as without libab), sent in
 * abmon's message context (switched only around the send, so children
 * spawned later inherit the program's context), with PvmAutoErr off so no
 * error of libab's is ever printed.
 */
#include "ab_core.h"
#include "ab_send.h"

/* A PVM fragment that holds the whole message (PVM writes a message
 * fragment by fragment, a system call each), but no bigger: the fragment
 * is allocated at every send, and a 160 KB one for a one-record message
 * (immediate mode) costs more than the send. */
static int message_bytes(void) {
  size_t bytes = 1024 + XAB_HDR_INTS * 4 + (size_t)xab_st.n * sizeof(struct xab_event);
  for (int id = xab_strings_sent() + 1; id <= xab_strings_count(); id++) bytes += 16 + strlen(xab_string(id));
  return (int)((bytes + 4095) & ~(size_t)4095);
}

static void pack_message(int final) {
  int hdr[XAB_HDR_INTS];
  xab_message_header(hdr, final);
  pvm_pkint(hdr, XAB_HDR_INTS, 1);
  for (int id = xab_strings_sent() + 1; id <= xab_strings_count(); id++) {
    pvm_pkint(&id, 1, 1);
    pvm_pkstr((char *)xab_string(id));
  }
  if (xab_st.n > 0) pvm_pkbyte((char *)xab_st.buf, xab_st.n * (int)sizeof(struct xab_event), 1);
}

void xab_pvm_flush(int final, int mid) {
  xab_st.flushing = 1;
  int autoerr = pvm_setopt(PvmAutoErr, 0);
  /* Through pvmd, never on a direct route: on a direct socket the program
   * would wait whenever abmon reads slower than it writes.  In one
   * fragment (message_bytes). */
  int route = pvm_setopt(PvmRoute, PvmDontRoute);
  int frag = pvm_setopt(PvmFragSize, message_bytes());
  int ctx = pvm_setcontext(xab_st.ctx);
  if (mid == 0) mid = pvm_mkbuf(PvmDataDefault);
  int user_sbuf = pvm_setsbuf(mid);
  pack_message(final);
  int rc = pvm_send(xab_st.abmon_tid, xab_st.tag);
  pvm_setsbuf(user_sbuf);
  pvm_freebuf(mid);
  pvm_setcontext(ctx);
  if (frag > 0) pvm_setopt(PvmFragSize, frag);
  if (route >= 0) pvm_setopt(PvmRoute, route);
  pvm_setopt(PvmAutoErr, autoerr);
  xab_message_done(rc >= 0);
  xab_st.flushing = 0;
}
