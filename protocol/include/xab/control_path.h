/*
 * xab/control_path.h -- where abmon's control socket is when nobody names it
 * (docs/abmon.md "Control mode").
 *
 * `abmon --control auto` listens at, and `xabview --control auto` connects
 * to, the same path, from the environment alone (xabview is no PVM task):
 *   ${PVM_TMP:-/tmp}/xab-control.UID[.PVM_VMID]
 * one per user and virtual machine, as pvmd's own files in PVM_TMP are.
 * abmon also announces the path it listens at in its mailbox entry
 * (wire.h, "Stepping").
 */
#ifndef XAB_CONTROL_PATH_H
#define XAB_CONTROL_PATH_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define XAB_CONTROL_AUTO "auto" /* the --control value that asks for the default path */

/* The default path into buf (size bytes): its length, or -1 if it does not fit. */
static inline int xab_control_default_path(char *buf, size_t size) {
  const char *tmp = getenv("PVM_TMP");
  const char *vmid = getenv("PVM_VMID");
  int n = snprintf(buf, size, "%s/xab-control.%u%s%s", tmp && *tmp ? tmp : "/tmp", (unsigned)geteuid(),
                   vmid && *vmid ? "." : "", vmid && *vmid ? vmid : "");
  return n < 0 || (size_t)n >= size ? -1 : n;
}

#endif
