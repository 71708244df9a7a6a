#!/usr/bin/env bash
# make-why-pictures.sh -- the pictures of docs/why-slow.md, from real runs.
#
# Records tests/examples/why_slow (a program of the project's own with one
# task made slow on purpose) in each of its shapes under abmon, in a private
# PVM virtual machine, then has xabview choose the costliest root cause of
# each run (--why-cause 1) and draw the critical path (--critical-path),
# and saves the diagram, under an Xvfb of its own (or offscreen).
#
#   docs/img/make-why-pictures.sh [BUILD_DIR]      (default: build-test: why_slow is a test program)
#
# Examples:
#   1. docs/img/make-why-pictures.sh
#   2. docs/img/make-why-pictures.sh build-test
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=docs/img/pictures.sh
source "$ROOT/docs/img/pictures.sh"
pictures_begin why-pictures "${1:-build-test}" abmon why_slow xabview

# picture NAME WHY_SLOW_ARGS...: one run, its diagram with the highlights.
picture() {
  local name=$1 trace=$WORK/$1.trace
  shift
  "$BIN/abmon" -q -o "$trace" -- "$BIN/why_slow" "$@" >"$WORK/$name.out" 2>&1
  "$BIN/xabview" --no-follow --play-to-end --why-cause 1 --critical-path --size 1100x300 \
    --save-diagram "$OUT/why-$name.png" "$trace" 2>>"$WORK/xabview.err"
  echo "wrote docs/img/why-$name.png"
}
picture late-sender chain 3 100 300      # worker 0 late each round, worker 1 late because of it
picture barrier barrier 3 3 100 300      # worker 2 the last at every barrier
picture wrong-order order 3 100 300      # the master takes the slow worker's result first
picture collective reduce 2 3 100 300    # the reduce's root waits for the slow member
picture spawn spawn 100 300              # the master waits for a task its worker spawns late
picture join join 100 300                # worker 0 asks for worker 1's tid until it joins
# The whole window once: the Why slow tab beside the diagram.
"$BIN/abmon" -q -o "$WORK/tab.trace" -- "$BIN/why_slow" barrier 3 3 100 300 >/dev/null 2>&1
"$BIN/xabview" --no-follow --play-to-end --why-cause 1 --critical-path --screenshot "$OUT/why-tab.png" \
  "$WORK/tab.trace" 2>>"$WORK/xabview.err"
echo "wrote docs/img/why-tab.png"
