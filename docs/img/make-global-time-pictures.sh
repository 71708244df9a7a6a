#!/usr/bin/env bash
# make-global-time-pictures.sh -- the pictures of docs/global-time.md, from
# a real run: the demo under abmon (immediate mode), its master's clock
# skewed by the test knob XAB_TEST_CLOCK_SKEW and each of its records made
# dearer by XAB_TEST_RECORD_COST_NS (docs/libab.md; set for the master
# only: PVM passes neither to the workers).  xabview then saves the same
# space-time diagram three ways: the task clocks as recorded (--raw-time),
# global time (the default), and global time compensated (--compensate),
# under an Xvfb of its own (or offscreen when Xvfb is missing).  Not a test.
#
#   docs/img/make-global-time-pictures.sh [BUILD_DIR]   (default: build-test, a build with the test knobs)
#
# Knobs: SKEW (default 0.05: the master's clock 50 ms ahead), COST_NS
# (default 20000: 20 us a record).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${1:-$ROOT/build-test}
[[ $BUILD = /* ]] || BUILD=$ROOT/$BUILD
BIN=$BUILD/bin
grep -qa XAB_TEST_CLOCK_SKEW "$BIN/xabdemo" || { echo "make-global-time-pictures.sh: $BUILD has no XAB_TEST_* knobs: use a build configured with -DXAB_TEST_KNOBS=ON (scripts/test.sh makes build-test)" >&2; exit 2; }
OUT=$ROOT/docs/img
SKEW=${SKEW:-0.05} COST_NS=${COST_NS:-20000}
WORK=$(mktemp -d /tmp/global-time-pictures.XXXXXX)
XVFB_PID="" ABMON_PID=""

cleanup() {
  if [[ -n $ABMON_PID ]]; then kill -INT "$ABMON_PID" 2>/dev/null || true; fi
  "$ROOT/scripts/pvm-vm.sh" stop "$WORK/vm" >/dev/null 2>&1 || true
  if [[ -n $XVFB_PID ]]; then kill "$XVFB_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# An X server of our own on a free display, else Qt's offscreen platform.
# shellcheck source=docs/img/display.sh
source "$ROOT/docs/img/display.sh"
start_display "$WORK"

XAB_VM_QUIET=1 "$ROOT/scripts/pvm-vm.sh" start "$WORK/vm" "$BIN"
# shellcheck disable=SC1091
source "$WORK/vm/env"

"$BIN/abmon" --batch 1 >"$WORK/run.trace" 2>"$WORK/abmon.err" & ABMON_PID=$!
sleep 1
XAB_TEST_CLOCK_SKEW=$SKEW XAB_TEST_RECORD_COST_NS=$COST_NS "$BIN/xabdemo" -n 2 --rounds 2 >/dev/null
sleep 1
kill -INT "$ABMON_PID"; wait "$ABMON_PID" || true; ABMON_PID=""

save() {  # save NAME ARGS...
  local name=$1; shift
  "$BIN/xabview" --play-to-end --size 1000x330 "$@" --save-diagram "$OUT/$name" "$WORK/run.trace" 2>>"$WORK/xabview.err"
  echo "wrote docs/img/$name"
}
save global-time-raw.png --raw-time
save global-time-global.png
save global-time-compensated.png --compensate
"$BIN/abstat" --compensate "$WORK/run.trace" 2>/dev/null | sed -n '/^Intrusion/,/^$/p'
