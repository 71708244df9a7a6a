/* abmon_filterprog: a master and NWORK workers (copies of itself, argv[0])
 * in the shape of a master/worker program.  Each round the master packs a
 * block of ints and a string for every worker; the worker unpacks them and
 * packs back the sum; the master prints every round's sums.  Halfway the
 * master creates GATEDIR/half and waits until GATEDIR/go exists: the test
 * (filter_live_test.cpp) changes the tasks' filter at the source meanwhile
 * through abmon's control socket.
 *
 *   abmon_filterprog GATEDIR */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "xab.h"

#define NWORK 2
#define ROUNDS 40
#define BLOCK 16
#define TAG_WORK 1
#define TAG_SUM 2
#define TAG_STOP 3

static int worker(void) {
  int parent = pvm_parent();
  for (;;) {
    int bufid = pvm_recv(parent, -1), bytes = 0, tag = 0, src = 0;
    if (bufid < 0 || pvm_bufinfo(bufid, &bytes, &tag, &src) < 0 || tag == TAG_STOP) break;
    int round = 0, block[BLOCK], sum = 0;
    char word[32];
    pvm_upkint(&round, 1, 1);
    pvm_upkint(block, BLOCK, 1);
    pvm_upkstr(word);
    for (int i = 0; i < BLOCK; i++) sum += block[i];
    sum += (int)strlen(word) * round;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&sum, 1, 1);
    pvm_send(parent, TAG_SUM);
  }
  pvm_exit();
  return 0;
}

static int exists(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return access(path, F_OK) == 0;
}

static void gate(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/half", dir);
  FILE *f = fopen(path, "w");
  if (f) fclose(f);
  while (!exists(dir, "go")) usleep(10000);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "-worker") == 0) return worker();
  if (argc < 2) {
    fprintf(stderr, "usage: abmon_filterprog GATEDIR\n");
    return 2;
  }
  char *kid[] = {"-worker", NULL};
  int tids[NWORK];
  if (pvm_spawn(argv[0], kid, PvmTaskDefault, "", NWORK, tids) != NWORK) {
    fprintf(stderr, "abmon_filterprog: spawn failed\n");
    pvm_exit();
    return 1;
  }
  for (int round = 0; round < ROUNDS; round++) {
    if (round == ROUNDS / 2) gate(argv[1]);
    for (int w = 0; w < NWORK; w++) {
      int block[BLOCK];
      for (int i = 0; i < BLOCK; i++) block[i] = round * 100 + w * 10 + i;
      pvm_initsend(PvmDataDefault);
      pvm_pkint(&round, 1, 1);
      pvm_pkint(block, BLOCK, 1);
      pvm_pkstr(w ? "odd" : "even");
      pvm_send(tids[w], TAG_WORK);
    }
    for (int w = 0; w < NWORK; w++) {
      int sum = 0;
      pvm_recv(tids[w], TAG_SUM);
      pvm_upkint(&sum, 1, 1);
      printf("round %d worker %d sum %d\n", round, w, sum);
    }
  }
  for (int w = 0; w < NWORK; w++) {
    pvm_initsend(PvmDataDefault);
    pvm_send(tids[w], TAG_STOP);
  }
  printf("done\n");
  pvm_exit();
  return 0;
}
