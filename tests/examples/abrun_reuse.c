/* abrun_reuse: makes abmon --pvm-tracer see a task under the tid of one
 * whose task.exit it has written, as when PVM reuses a tid (after 262143
 * others per pvmd: minutes), in seconds (tests/examples/abrun_test.sh).
 *
 *   abrun_reuse GO          the program: spawns `abrun_reuse -child` (C),
 *                           prints "ended <C's tid>" once C has exited, waits
 *                           for the file GO (the test has seen C's task.exit),
 *                           spawns `abrun_reuse -pvmd C` and waits for it.
 *   abrun_reuse -child      enrolls and leaves.
 *   abrun_reuse -pvmd TID   sends abmon pvmd's event of a task TID starting;
 *                           abmon takes it only under the test knob
 *                           XAB_TEST_PVMD_TASK=abrun_reuse (docs/abmon.md).
 *   abrun_reuse -late DIR   the program, read late: makes DIR/ready, waits
 *                           for DIR/go (the test has stopped abmon), enrolls
 *                           and leaves PVM, makes DIR/left and waits for
 *                           DIR/done (abmon, resumed, has written its
 *                           records) before it exits.
 * The event is packed as libpvm packs its own (pvmtev.h), as abrun_forger. */
#include <pvm3.h>
#include <pvmtev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void pk(int v) { pvm_pkint(&v, 1, 1); }

static int speak_as_pvmd(int tid) {
  int buf = pvm_recvinfo("xab.abmon", 0, PvmMboxDefault);
  int entry[4] = {0, 0, 0, 0}; /* version, abmon's tid, context, tag */
  if (buf < 0 || pvm_setrbuf(buf) < 0 || pvm_upkint(entry, 4, 1) < 0) return 1;
  /* Through pvmd: its newtask of this task reaches abmon first. */
  pvm_setopt(PvmRoute, PvmDontRoute);
  pvm_setcontext(entry[2]);
  pvm_initsend(PvmDataDefault);
  pk(TEV_MARK_EVENT_DESC);
  pk(TEV_NEWTASK | TEV_EVENT_ENTRY);
  pvm_pkstr("newtask");
  pk(TEV_DID_TS); pk(TEV_DATA_INT); pk(1);
  pk(TEV_DID_TU); pk(TEV_DATA_INT); pk(0);
  pk(TEV_DID_TID); pk(TEV_DATA_INT); pk(tid);
  pk(TEV_DID_PT); pk(TEV_DATA_INT); pk(pvm_parent());
  pk(TEV_DID_TN); pk(TEV_DATA_STRING); pvm_pkstr("reborn");
  pk(TEV_MARK_EVENT_DESC_END);
  pvm_send(entry[1], entry[3] + 3);
  return 0;
}

/* Spawns one abrun_reuse with these arguments and waits for its exit. */
static void touch(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (f) fclose(f);
}

static void await(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  for (int i = 0; i < 600 && access(path, F_OK) != 0; ++i) usleep(100000);
}

static int run(char **args) {
  int tid = 0;
  if (pvm_spawn("abrun_reuse", args, PvmTaskDefault, "", 1, &tid) != 1) return -1;
  pvm_notify(PvmTaskExit, 7, 1, &tid);
  pvm_recv(-1, 7);
  return tid;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "-late") == 0) {
    touch(argv[2], "ready");
    await(argv[2], "go");
    pvm_mytid();
    pvm_exit();
    touch(argv[2], "left");
    await(argv[2], "done");
    return 0;
  }
  pvm_mytid();
  int rc = 0;
  if (argc == 3 && strcmp(argv[1], "-pvmd") == 0) {
    rc = speak_as_pvmd((int)strtol(argv[2], NULL, 16));
  } else if (argc == 2 && strcmp(argv[1], "-child") != 0) {
    char *child[] = {"-child", NULL};
    int c = run(child);
    if (c < 0) {
      pvm_exit();
      return 1;
    }
    printf("ended %x\n", c);
    fflush(stdout);
    for (int i = 0; i < 600 && access(argv[1], F_OK) != 0; ++i) usleep(100000);
    char hex[16];
    snprintf(hex, sizeof hex, "%x", c);
    char *pvmd[] = {"-pvmd", hex, NULL};
    rc = run(pvmd) < 0;
  }
  pvm_exit();
  return rc;
}
