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
SKEW=${SKEW:-0.05} COST_NS=${COST_NS:-20000}
# shellcheck source=docs/img/pictures.sh
source "$ROOT/docs/img/pictures.sh"
pictures_begin global-time-pictures "${1:-build-test}" abmon abstat xabdemo xabview
grep -qa XAB_TEST_CLOCK_SKEW "$BIN/xabdemo" || { echo "make-global-time-pictures.sh: $BIN has no XAB_TEST_* knobs: use a build configured with -DXAB_TEST_KNOBS=ON (scripts/test.sh makes build-test)" >&2; exit 2; }

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
