/*
 * abmon_stdio_kind.c -- what kind of file a program's standard output and
 * error are (as its stdio sees them: fstat, isatty), written to the file
 * REPORT; then one line to each stream, as a PVM task.  abmon's tests run
 * it plain and under `abmon -- `, with its streams sent to a regular file,
 * a pipe, /dev/null: the report must be the same.
 *
 *   abmon_stdio_kind REPORT [TRACE]
 *
 * With TRACE (abmon's trace file), it stays enrolled until TRACE holds its
 * line to stderr as an output record: abmon learns the program's tid from
 * pvmd, which must still list it then.
 */
#include <pvm3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int traced(const char *trace) {
  char line[4096];
  int found = 0;
  FILE *f = fopen(trace, "r");
  while (f && !found && fgets(line, sizeof line, f)) found = strstr(line, " output ") && strstr(line, "to%20stderr");
  if (f) fclose(f);
  return found;
}

static const char *kind(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return "closed";
  if (isatty(fd)) return "terminal";
  if (S_ISREG(st.st_mode)) return "regular file";
  if (S_ISFIFO(st.st_mode)) return "pipe";
  if (S_ISCHR(st.st_mode)) return "character device";
  if (S_ISSOCK(st.st_mode)) return "socket";
  return "other";
}

int main(int argc, char **argv) {
  FILE *report = argc > 1 ? fopen(argv[1], "w") : NULL;
  if (!report) return 2;
  fprintf(report, "stdout: %s\nstderr: %s\n", kind(STDOUT_FILENO), kind(STDERR_FILENO));
  fclose(report);
  if (pvm_mytid() < 0) return 1;
  printf("a line to stdout\n");
  fflush(stdout);
  fprintf(stderr, "a line to stderr\n");
  struct timeval tick = {0, 20000};
  for (int i = 0; argc > 2 && i < 500 && !traced(argv[2]); i++) pvm_trecv(-1, 1, &tick); /* 10 s at most */
  pvm_exit();
  return 0;
}
