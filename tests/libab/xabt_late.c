/*
 * xabt_late.c -- a message that arrives while the program does not read.
 *
 * Built twice: xabt_late (with libab) and xabt_late_plain (-DXAB_DISABLE).
 * The parent spawns a child that sends it one message; once that message
 * has had time to reach the parent's socket, the parent makes buffers
 * (calls that do not read the network) and only then receives.  Without
 * libab the message takes its buffer id in the receive, after the
 * parent's buffers; libab must not take it in earlier (its own sends
 * through PVM read the sockets too).  Prints the ids: both builds' output
 * must be the same.
 *
 *   xabt_late            the parent
 *   xabt_late child F    the child: sends, then creates the file F
 */
#include "xab.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int child(const char *flag) {
  int one = 1;
  pvm_initsend(PvmDataDefault);
  pvm_pkint(&one, 1, 1);
  pvm_send(pvm_parent(), 71);
  int fd = open(flag, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd >= 0) close(fd);
  pvm_exit();
  return 0;
}

static void pause_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

int main(int argc, char **argv) {
  if (argc > 2 && !strcmp(argv[1], "child")) return child(argv[2]);
  const char *slash = strrchr(argv[0], '/');
  char *prog = slash ? (char *)slash + 1 : argv[0];
  char flag[64];
  snprintf(flag, sizeof flag, "/tmp/xabt-late-%ld", (long)getpid());
  unlink(flag);
  char *args[] = {"child", flag, NULL};
  int tid = 0;
  pvm_mytid();
  if (pvm_spawn(prog, args, PvmTaskDefault, "", 1, &tid) != 1) {
    printf("spawn failed: %d\n", tid);
    pvm_exit();
    return 1;
  }
  /* The child has sent once its file exists; pvmd then delivers the
   * message to this task's socket within milliseconds.  This task reads
   * nothing meanwhile (the wait only makes the arrival sure: were it
   * later, the ids would match with or without the defect). */
  for (int i = 0; i < 1000 && access(flag, F_OK) != 0; i++) pause_ms(10);
  unlink(flag);
  pause_ms(300);
  printf("initsend=%d\n", pvm_initsend(PvmDataDefault));
  int n = 7;
  pvm_pkint(&n, 1, 1);
  printf("mkbuf=%d\n", pvm_mkbuf(PvmDataDefault));
  printf("recv=%d\n", pvm_recv(-1, 71));
  printf("next=%d\n", pvm_mkbuf(PvmDataDefault));
  pvm_exit();
  return 0;
}
