/* abrun_talk [kill | host HOST | out | close | ask]: a parent spawns two
 * copies of itself, which print two lines each and answer; no libab
 * (tests/examples/abrun_test.sh, tests/multihost/abrun_test.sh).  With
 * "kill" the children then wait for a message (tag 99): the parent kills
 * the second one while it waits, lets the first one go, and exits.  With
 * "host HOST" the children are spawned on HOST.
 * The other modes spawn nothing; they write what abmon must pass on and
 * record unchanged (the program abmon starts itself):
 *   out    a line before it enrols, lines to stdout and stderr, bytes no
 *          text has (NUL, %, 0xff, CR), a 100000-byte line, a last line
 *          without its newline; exit status 5;
 *   close  closes its stdout early, then writes to stderr; status 3;
 *   ask    prompts without a newline, reads a line, answers it; says
 *          whether its stdout is a terminal (isatty), as an interactive
 *          program may. */
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int own_output(const char *mode) {
  printf("before enrolling\n");
  fflush(stdout);
  if (pvm_mytid() < 0) return 1;
  if (strcmp(mode, "ask") == 0) {
    char name[64] = "";
    printf("stdout is %s; your name? ", isatty(1) ? "a terminal" : "not a terminal");
    if (!fgets(name, sizeof name, stdin)) strcpy(name, "nobody\n");
    printf("hello %s", name);
    pvm_exit();
    return 0;
  }
  if (strcmp(mode, "close") == 0) {
    printf("last line to stdout\n");
    fflush(stdout);
    close(1);
    sleep(1); /* abmon has seen stdout end by now */
    fprintf(stderr, "stderr after stdout closed\n");
    pvm_exit();
    return 3;
  }
  fprintf(stderr, "to stderr\n");
  fwrite("bytes:\0%\377\r.\n", 1, 12, stdout);
  char *longline = malloc(100001);
  memset(longline, 'x', 100000);
  longline[100000] = 0;
  printf("%s\n", longline);
  free(longline);
  printf("no newline at the end");
  pvm_exit();
  return 5;
}

int main(int argc, char **argv) {
  int tids[2], killing = argc > 1 && strcmp(argv[1], "kill") == 0;
  int on_host = argc > 2 && strcmp(argv[1], "host") == 0;
  char *args[] = {killing ? "kill" : NULL, NULL};
  if (argc > 1 && !killing && !on_host) return own_output(argv[1]);
  pvm_mytid();
  if (pvm_parent() == PvmNoParent) {
    int n = pvm_spawn(argv[0], args, on_host ? PvmTaskHost : PvmTaskDefault, on_host ? argv[2] : "", 2, tids);
    for (int i = 0; i < n; i++) {
      pvm_initsend(PvmDataDefault);
      pvm_pkint(&i, 1, 1);
      pvm_send(tids[i], 7);
    }
    for (int i = 0; i < n; i++) {
      int x;
      pvm_recv(-1, 8);
      pvm_upkint(&x, 1, 1);
    }
    if (killing && n == 2) {
      sleep(2); /* the child answered and now enters pvm_recv: killed there */
      pvm_kill(tids[1]);
      pvm_initsend(PvmDataDefault);
      pvm_send(tids[0], 99);
    }
    printf("parent done %d\n", n);
  } else {
    int i;
    pvm_recv(pvm_parent(), 7);
    pvm_upkint(&i, 1, 1);
    printf("child %d says hello\n", i);
    printf("second line of %d\n", i);
    fflush(stdout);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&i, 1, 1);
    pvm_send(pvm_parent(), 8);
    if (killing) pvm_recv(pvm_parent(), 99);
  }
  pvm_exit();
  return 0;
}
