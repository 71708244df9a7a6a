/*
 * ab_send_socket.c -- messages to abmon through its local socket.
 *
 * A task on abmon's host writes its messages to abmon's local socket
 * (wire.h): one sendmsg, no pvmd, no PVM buffer, nothing for the program to
 * see but a descriptor well above its own.  Only system calls that are
 * async-signal-safe: the SIGTERM handler sends from here too.
 */
#define _GNU_SOURCE
#include "ab_core.h"
#include "ab_send.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* How long a task waits for abmon to make room before it gives up the
 * socket for PVM messages (which pvmd queues for as long as it takes). */
#define XAB_SOCKET_WAIT_MS 1000

/* The socket's descriptor, moved out of the way: the program's next open()
 * gets the number it would without libab. */
static int move_out_of_the_way(int fd) {
  struct rlimit rl;
  int floor = 1000;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 1016)
    floor = rl.rlim_cur > 32 ? (int)rl.rlim_cur - 16 : fd;
  int high = floor > fd ? fcntl(fd, F_DUPFD_CLOEXEC, floor) : -1;
  if (high < 0) return fd;
  close(fd);
  return high;
}

void xab_socket_connect(const char *name, int len) {
  if (len <= 0 || len > XAB_SOCKET_NAME_MAX) return;
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  memcpy(addr.sun_path + 1, name, (size_t)len); /* abstract: sun_path[0] is NUL */
  int sndbuf = XAB_SOCKET_MSG_MAX;
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
  int hello[XAB_HELLO_INTS] = {XAB_WIRE_MAGIC, XAB_WIRE_VERSION, xab_st.mytid};
  if (connect(fd, (struct sockaddr *)&addr, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len)) < 0 ||
      send(fd, hello, sizeof hello, MSG_NOSIGNAL) != (ssize_t)sizeof hello) {
    close(fd);
    return;
  }
  xab_st.sock = move_out_of_the_way(fd);
  xab_st.have_sock = 1;
}

/* From now on PVM messages: abmon reads the socket dry before it takes
 * this task's first PVM message, so the order holds. */
void xab_socket_close(void) {
  if (!xab_st.have_sock) return;
  close(xab_st.sock);
  xab_st.have_sock = 0;
}

/* Header and strings are laid out here; the records go from buf as they are. */
static char local_head[16384];

/* The header and the new strings in local_head: their length, or 0 when
 * they do not fit (rare: PVM takes that message). */
static size_t lay_out_head(int final) {
  int hdr[XAB_HDR_INTS];
  xab_message_header(hdr, final);
  memcpy(local_head, hdr, sizeof hdr);
  size_t len = sizeof hdr;
  for (int id = xab_strings_sent() + 1; id <= xab_strings_count(); id++) {
    const char *text = xab_string(id);
    size_t tl = strlen(text);
    if (len + 2 * sizeof(int) + tl > sizeof local_head) return 0;
    int v[2] = {id, (int)tl};
    memcpy(local_head + len, v, sizeof v);
    memcpy(local_head + len + sizeof v, text, tl);
    len += sizeof v + tl;
  }
  return len;
}

/* One datagram; if abmon is so far behind that the socket is full, wait
 * once for room.  0 when sent. */
static int send_datagram(struct msghdr *mh) {
  for (int waited = 0;;) {
    if (sendmsg(xab_st.sock, mh, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0) return 0;
    if (errno == EINTR) continue;
    if ((errno != EAGAIN && errno != EWOULDBLOCK) || waited) return -1;
    struct pollfd p = {xab_st.sock, POLLOUT, 0};
    poll(&p, 1, XAB_SOCKET_WAIT_MS);
    waited = 1;
  }
}

/* 0 when sent; -1: not sent, nothing changed (send it through PVM). */
static int send_message(int final) {
  size_t len = lay_out_head(final);
  if (len == 0) return -1;
  struct iovec iov[2] = {{local_head, len}, {xab_st.buf, (size_t)xab_st.n * sizeof(struct xab_event)}};
  if (len + iov[1].iov_len > XAB_SOCKET_MSG_MAX) return -1;
  struct msghdr mh;
  memset(&mh, 0, sizeof mh);
  mh.msg_iov = iov;
  mh.msg_iovlen = xab_st.n > 0 ? 2 : 1;
  if (send_datagram(&mh) < 0) return -1;
  xab_message_done(1);
  return 0;
}

int xab_socket_flush(int final) {
  if (!xab_st.have_sock) return -1;
  int was = xab_st.flushing;
  xab_st.flushing = 1;
  int rc = send_message(final);
  xab_st.flushing = was;
  if (rc < 0) xab_socket_close();
  return rc;
}
