#!/usr/bin/env bash
# make-cpu-wait-picture.sh -- docs/img/xabview-cpu-wait.png: the diagram of a
# real run in which a worker shares its core with a CPU hog.
#
# abmon_cpuburn (a test program: two workers, each pinned to a CPU of its
# own, burning it for 1.5 s) runs under abmon, sampled every 50 ms, in a
# private PVM virtual machine, while a CPU hog (a shell loop, at the
# workers' priority) is pinned to the first worker's CPU; xabview
# screenshots the window: that worker hatched where it waited for its CPU
# (and its share waiting in the task table's CPU column), the host's load
# strip under the rows.
#
#   docs/img/make-cpu-wait-picture.sh [BUILD_DIR]      (default: build-test: abmon_cpuburn is a test program)
#
# Examples:
#   1. docs/img/make-cpu-wait-picture.sh
#   2. docs/img/make-cpu-wait-picture.sh build-test
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=docs/img/pictures.sh
source "$ROOT/docs/img/pictures.sh"
pictures_begin cpu-wait-picture "${1:-build-test}" abmon abmon_cpuburn xabview

# Worker i runs on the i-th CPU this process may use: the hog takes the first worker's.
cpu=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
# Its own session (autogroup) at -20, as the workers' (abmon_cpuburn.c).
setsid nice -n -20 taskset -c "$cpu" sh -c 'echo -20 >/proc/self/autogroup 2>/dev/null; while :; do :; done' &
PICTURE_PIDS="$PICTURE_PIDS $!"
"$BIN/abmon" -q --sample-ms 50 -o "$WORK/burn.trace" -- "$BIN/abmon_cpuburn" 2 1.5 >"$WORK/burn.out" 2>&1
"$BIN/xabview" --no-follow --play-to-end --size 1100x520 --screenshot "$OUT/xabview-cpu-wait.png" \
  "$WORK/burn.trace" 2>>"$WORK/xabview.err"
echo "wrote docs/img/xabview-cpu-wait.png"
