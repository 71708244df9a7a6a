#!/usr/bin/env bash
# make-xabview-pictures.sh -- the xabview pictures in docs/img, from real runs.
#
# Starts a private PVM virtual machine (scripts/pvm-vm.sh), records the demo
# with abmon twice (a normal run and the --hang run of the Xab paper's
# Figure 2), then drives xabview with --step/--play-to-end --screenshot under
# an Xvfb of its own (or offscreen when Xvfb is missing).
#
#   docs/img/make-xabview-pictures.sh [BUILD_DIR]      (default: build)
#
# Examples:
#   1. docs/img/make-xabview-pictures.sh
#   2. docs/img/make-xabview-pictures.sh build-xabview
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=docs/img/pictures.sh
source "$ROOT/docs/img/pictures.sh"
pictures_begin xabview-pictures "${1:-build}" abmon xabdemo xabview xabt_wait

record() {  # record FILE ARGS...: the demo under abmon
  local file=$1; shift
  "$BIN/abmon" >"$file" 2>"$file.err" & ABMON_PID=$!
  sleep 1
  "$@"
  sleep 1
  kill -INT "$ABMON_PID"; wait "$ABMON_PID" || true; ABMON_PID=""
}

record "$WORK/run.trace" "$BIN/xabdemo" -n 4 --rounds 6
hang() { "$BIN/xabdemo" --hang >"$WORK/hang.out" 2>&1 & PICTURE_PIDS+=" $!"; sleep 3; }
record "$WORK/hang.trace" hang
kill "${PICTURE_PIDS##* }" 2>/dev/null || true
# A receive that times out: tests/libab/xabt_wait.c's pvm_trecv of a tag
# nobody sends, with a timeout of 0.5 s
record "$WORK/timeout.trace" "$BIN/xabt_wait" 0.5

shot() {  # shot NAME ARGS...
  local name=$1; shift
  "$BIN/xabview" "$@" --screenshot "$OUT/$name" 2>>"$WORK/xabview.err"
  echo "wrote docs/img/$name"
}
n=$(grep -vc '^#' "$WORK/run.trace")
shot xabview-running.png --step $((n / 3)) --tab log "$WORK/run.trace"
shot xabview-barriers.png --play-to-end --tab barriers "$WORK/run.trace"
shot xabview-messages.png --step $((n / 2)) --tab messages "$WORK/run.trace"
shot xabview-hang.png --play-to-end --tab hang "$WORK/hang.trace"
# Find (the Find bar, the overview, the record found in the Details tab)
shot xabview-find.png --goto 0.1 --find "tag=16004" --tab details "$WORK/run.trace"
# Failed calls: PVM's group example ge (a real run kept as a test fixture):
# the red cross where pvm_getinst and pvm_gettid failed, listed in the Hang tab
shot xabview-failures.png --no-follow --play-to-end --tab hang "$ROOT/tests/model/data/ge.trace"
# The timeout marked on the diagram and in the Failed calls list
shot xabview-timeout.png --no-follow --play-to-end --tab hang "$WORK/timeout.trace"
# Replay speed in trace time: x1 plays the run at its own pace
shot xabview-speed.png --step $((n / 4)) --speed-in-trace-time --tab log "$WORK/run.trace"
"$BIN/xabview" --play-to-end --save-diagram "$OUT/xabview-diagram.svg" "$WORK/run.trace" 2>>"$WORK/xabview.err"
echo "wrote docs/img/xabview-diagram.svg"
