/*
 * ab_send.h -- a message to abmon, and its two ways there.
 *
 * A message is the header (wire.h), the strings interned since the last
 * message abmon got, and the records waiting in the buffer.  A task on
 * abmon's host writes it to abmon's local socket (ab_send_socket.c); every
 * other task, and a task whose socket failed, sends it as a PVM message in
 * abmon's context (ab_send_pvm.c).  Both carry the same bytes.  ab_send.c
 * decides which way and when; the rooms that send from places where PVM
 * cannot be called (a message handler, the SIGTERM handler) use the socket
 * alone.
 */
#ifndef XAB_AB_SEND_H
#define XAB_AB_SEND_H

#include "xab/wire.h"

/* The header of the message that would carry what waits now. */
void xab_message_header(int hdr[XAB_HDR_INTS], int final);

/* The message has reached abmon (ok) or is lost for good: start the next. */
void xab_message_done(int ok);

/* The poke key (ab_poke.c, wire.h "Pokes").  new: 64 random bits, drawn
 * when the task attaches; -1 when the system gives none (the task then
 * takes no pokes).  key: what the message header carries (0, 0 when the
 * task takes no pokes). */
int xab_poke_key_new(void);
void xab_poke_key(int key[2]);

/* The local socket.  connect: to the abstract address abmon published (its
 * mailbox entry), sets have_sock on success.  flush: send what waits, 0
 * when sent; on failure the socket is closed and PVM takes this message
 * and every later one.  Only async-signal-safe system calls. */
void xab_socket_connect(const char *name, int len);
void xab_socket_close(void);
int xab_socket_flush(int final);

/* As a PVM message, packed into `mid`: 0 for a buffer of libab's own, or
 * (from the poke handler) the poke's own buffer. */
void xab_pvm_flush(int final, int mid);

/* The strings a message carries: ids xab_strings_sent() + 1 up to
 * xab_strings_count() have not reached abmon yet (ab_buffer.c). */
int xab_strings_count(void);
int xab_strings_sent(void);
const char *xab_string(int id);
void xab_strings_mark_sent(void);  /* the message that carried them reached abmon */
void xab_strings_forget_sent(void); /* a new abmon (the process enrolled again) knows none */

#endif /* XAB_AB_SEND_H */
