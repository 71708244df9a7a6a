/*
 * nfqdelay -- hold every packet of a netfilter queue for a fixed time.
 *
 * `tc netem` is not available on every kernel (it is not on the machines
 * xab is tested on), so scripts/pvm-hosts.sh delays a pseudo-host's incoming
 * packets with an nftables rule `queue num Q bypass` in that host's network
 * namespace and this program in the same namespace: it takes each queued
 * packet's id, and gives the verdict NF_ACCEPT once MS milliseconds have
 * passed.  Every packet gets the same delay, so the ids wait in arrival order
 * in a ring and only the oldest one is ever due.
 *
 * Nothing is dropped on purpose: the queue fails open (a packet that finds
 * it full passes at once), and on SIGTERM or SIGINT every packet still held
 * is accepted before the queue is unbound (the kernel would drop them).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

enum { QUEUE_MAXLEN = 65536, RECV_BUFFER = 1 << 16 };

struct held {
  uint32_t id;
  int64_t due_ns;
};

/* The packets held, oldest first: a ring that grows as needed. */
struct ring {
  struct held *items;
  size_t cap, head, len;
};

struct delayer {
  struct ring ring;
  int64_t delay_ns;
  struct nfq_q_handle *queue;
  unsigned long accepted;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig) {
  (void)sig;
  stop_requested = 1;
}

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int ring_push(struct ring *r, struct held h) {
  if (r->len == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 1024;
    struct held *items = malloc(cap * sizeof *items);
    if (!items) return -1;
    for (size_t i = 0; i < r->len; i++) items[i] = r->items[(r->head + i) % r->cap];
    free(r->items);
    r->items = items, r->cap = cap, r->head = 0;
  }
  r->items[(r->head + r->len) % r->cap] = h;
  r->len++;
  return 0;
}

static struct held ring_pop(struct ring *r) {
  struct held h = r->items[r->head];
  r->head = (r->head + 1) % r->cap;
  r->len--;
  return h;
}

static void accept_packet(struct delayer *d, uint32_t id) {
  if (nfq_set_verdict(d->queue, id, NF_ACCEPT, 0, NULL) < 0)
    fprintf(stderr, "nfqdelay: verdict for packet %u failed: %s\n", id, strerror(errno));
  d->accepted++;
}

static int on_packet(struct nfq_q_handle *qh, struct nfgenmsg *msg, struct nfq_data *nfad, void *data) {
  (void)qh, (void)msg;
  struct delayer *d = data;
  struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfad);
  if (!ph) return 0;
  uint32_t id = ntohl(ph->packet_id);
  if (ring_push(&d->ring, (struct held){id, now_ns() + d->delay_ns}) < 0) accept_packet(d, id);
  return 0;
}

/* Accepts every held packet that is due (all of them when `all`); returns
 * the poll timeout in ms until the next one is due (-1: none held). */
static int release_due(struct delayer *d, int all) {
  int64_t now = now_ns();
  while (d->ring.len) {
    struct held *oldest = &d->ring.items[d->ring.head];
    if (!all && oldest->due_ns > now) {
      int64_t wait_ms = (oldest->due_ns - now + 999999) / 1000000;
      return wait_ms > 1000 ? 1000 : (int)wait_ms;
    }
    accept_packet(d, ring_pop(&d->ring).id);
  }
  return -1;
}

static int usage(FILE *to, int status) {
  fprintf(to,
          "Usage: nfqdelay [-q QUEUE] MS\n"
          "Hold every packet of netfilter queue QUEUE (default 0) for MS milliseconds,\n"
          "then accept it.  Runs until SIGTERM or SIGINT, then accepts what it holds.\n"
          "Used by scripts/pvm-hosts.sh delay, with the nftables rule\n"
          "  ... hook input ... queue num QUEUE bypass\n"
          "in the same network namespace.\n");
  return status;
}

static int parse_args(int argc, char **argv, unsigned *queue, long *ms) {
  int i = 1;
  if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) return 2;
  if (argc > 2 && !strcmp(argv[1], "-q")) {
    char *end;
    unsigned long q = strtoul(argv[2], &end, 10);
    if (*argv[2] == '\0' || *end || q > 65535) return 1;
    *queue = (unsigned)q, i = 3;
  }
  if (argc != i + 1) return 1;
  char *end;
  *ms = strtol(argv[i], &end, 10);
  return *argv[i] == '\0' || *end || *ms < 0 || *ms > 60000 ? 1 : 0;
}

static struct nfq_handle *open_queue(unsigned queue_num, struct delayer *d) {
  struct nfq_handle *h = nfq_open();
  if (!h) return NULL;
  d->queue = nfq_create_queue(h, (uint16_t)queue_num, on_packet, d);
  if (!d->queue || nfq_set_mode(d->queue, NFQNL_COPY_META, 0) < 0) {
    nfq_close(h);
    return NULL;
  }
  nfq_set_queue_maxlen(d->queue, QUEUE_MAXLEN);
  nfq_set_queue_flags(d->queue, NFQA_CFG_F_FAIL_OPEN, NFQA_CFG_F_FAIL_OPEN);
  nfnl_rcvbufsiz(nfq_nfnlh(h), 8u << 20);
  return h;
}

int main(int argc, char **argv) {
  unsigned queue_num = 0;
  long ms = 0;
  switch (parse_args(argc, argv, &queue_num, &ms)) {
  case 1: return usage(stderr, 2);
  case 2: return usage(stdout, 0);
  }
  struct delayer d = {.delay_ns = (int64_t)ms * 1000000};
  struct nfq_handle *h = open_queue(queue_num, &d);
  if (!h) {
    fprintf(stderr, "nfqdelay: cannot bind netfilter queue %u: %s\n", queue_num, strerror(errno));
    return 1;
  }
  struct sigaction sa = {.sa_handler = on_signal};
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  fprintf(stderr, "nfqdelay: queue %u, delay %ld ms\n", queue_num, ms);

  static char buf[RECV_BUFFER];
  struct pollfd pfd = {.fd = nfq_fd(h), .events = POLLIN};
  int status = 0;
  while (!stop_requested) {
    int timeout = release_due(&d, 0);
    int n = poll(&pfd, 1, timeout);
    if (n < 0 && errno != EINTR) { perror("nfqdelay: poll"); status = 1; break; }
    if (n <= 0) continue;
    ssize_t len = recv(pfd.fd, buf, sizeof buf, MSG_DONTWAIT);
    if (len > 0) nfq_handle_packet(h, buf, (int)len);
    /* ENOBUFS: the kernel's messages overflowed our socket; those packets
     * stay queued in the kernel until the queue is unbound (fail-open keeps
     * new ones flowing).  Go on. */
    else if (len < 0 && errno != EAGAIN && errno != EINTR && errno != ENOBUFS) {
      perror("nfqdelay: recv");
      status = 1;
      break;
    }
  }
  release_due(&d, 1);
  fprintf(stderr, "nfqdelay: stopped after %lu packets\n", d.accepted);
  nfq_destroy_queue(d.queue);
  nfq_close(h);
  free(d.ring.items);
  return status;
}
