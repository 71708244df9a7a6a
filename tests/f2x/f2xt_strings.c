/*
 * f2xt_strings.c -- libfpvm3's string helpers, ftocstr and ctofstr, on a
 * table of cases.  Built twice (with libfpvm3 and with libf2x); the two
 * must print the same: f2x converts Fortran strings exactly as PVM does.
 */
#include <stdio.h>
#include <string.h>

int ftocstr(char *ds, int dl, char *ss, int sl);
int ctofstr(char *ds, int dl, char *ss);

struct ftoc_case {
  const char *src;
  int len, cap;
};

static const struct ftoc_case ftoc_cases[] = {
    {"group", 5, 32},       {"group   ", 8, 32},        {"", 0, 32},
    {"        ", 8, 32},    {" lead", 5, 32},           {"in side  ", 9, 32},
    {"abc\0def  ", 9, 32},  {"1234567890123456789012345678901", 31, 32},
    {"12345678901234567890123456789012", 32, 32},       {"12345678901234567890123456789012  ", 34, 32},
    {"x", 1, 1},            {"", 0, 1},                 {"tab\t ", 5, 32},
};

static const struct {
  const char *src;
  int len;
} ctof_cases[] = {{"host", 8}, {"host", 4}, {"longer name", 6}, {"", 3}, {"a", 1}};

int main(void) {
  for (size_t i = 0; i < sizeof ftoc_cases / sizeof ftoc_cases[0]; i++) {
    char src[64], dst[64];
    memset(dst, '#', sizeof dst);
    memcpy(src, ftoc_cases[i].src, (size_t)ftoc_cases[i].len);
    int rc = ftocstr(dst, ftoc_cases[i].cap, src, ftoc_cases[i].len);
    printf("ftoc %zu rc=%d [%s]\n", i, rc, rc ? "" : dst);
  }
  for (size_t i = 0; i < sizeof ctof_cases / sizeof ctof_cases[0]; i++) {
    char dst[16];
    memset(dst, '#', sizeof dst);
    int rc = ctofstr(dst, ctof_cases[i].len, (char *)ctof_cases[i].src);
    printf("ctof %zu rc=%d [%.16s]\n", i, rc, dst);
  }
  return 0;
}
