#!/usr/bin/env bash
# make-replay-pictures.sh -- the pictures of docs/replay.md ("from a flaky
# hang to the stepped replay"), from real runs of demo/xabrace.  Not a test.
#
# In a private PVM virtual machine (scripts/pvm-vm.sh) and an Xvfb of its
# own (Qt's offscreen platform when Xvfb is missing):
#   1. records `xabrace --hang` (abreplay --record) until a run hangs;
#   2. replays that record under abmon: replay-hang.png, xabview's Hang
#      panel on the replay's trace (the same hang as recorded);
#   3. replays it again under `abmon --control auto`, xabview connected
#      with `--control auto --control-steps N`: replay-stepped.png, the
#      window with its Control dock after N presses of Step all.
#
#   docs/img/make-replay-pictures.sh [BUILD_DIR [STEPS]]   (default: build, 6)
#
# Needs the targets abmon abreplay xabrace xabview built in BUILD_DIR.
#
# Examples:
#   1. docs/img/make-replay-pictures.sh
#   2. docs/img/make-replay-pictures.sh build-test 8
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
STEPS=${2:-6}
# shellcheck source=docs/img/pictures.sh
source "$ROOT/docs/img/pictures.sh"
pictures_begin replay-pictures "${1:-build}" abmon abreplay xabrace xabview
cd "$WORK"

# 1. Record until a run hangs (a run that has not ended in 5 s has).
hung=""
for i in $(seq 40); do
  rc=0
  timeout -s INT 5 "$BIN/abreplay" --record "rec$i" -- "$BIN/xabrace" --hang >"rec$i.out" 2>&1 || rc=$?
  if ((rc == 124)); then hung=rec$i; break; fi
done
[[ -n $hung ]] || { echo "make-replay-pictures.sh: no run of xabrace --hang hung in 40" >&2; exit 1; }
echo "run $i hung: record $hung"

# 2. The replay, traced: the same hang.
"$BIN/abmon" -o replay.trace 2>abmon.err & ABMON_PID=$!
sleep 1
timeout -s INT 8 "$BIN/abreplay" "$hung" -- "$BIN/xabrace" --hang >replay.out 2>&1 || true
kill -INT "$ABMON_PID"; wait "$ABMON_PID" || true; ABMON_PID=""
"$BIN/xabview" --play-to-end --tab hang --screenshot "$OUT/replay-hang.png" replay.trace 2>>xabview.err
echo "wrote docs/img/replay-hang.png"

# 3. The replay, stepped from xabview's Control dock.
mkfifo trace.pipe
rm -f "$OUT/replay-stepped.png"
"$BIN/abmon" -v --control auto >trace.pipe 2>abmon2.err & ABMON_PID=$!
"$BIN/xabview" --control auto --control-steps "$STEPS" --tab hang --timeout 120 \
  --screenshot "$OUT/replay-stepped.png" <trace.pipe 2>>xabview.err & PICTURE_PIDS+=" $!"
for _ in $(seq 100); do grep -qs 'control: a client connected' abmon2.err && break; sleep 0.1; done
"$BIN/abreplay" "$hung" -- "$BIN/xabrace" --hang >stepped.out 2>&1 & PICTURE_PIDS+=" $!"
# xabview writes the picture, then reads its input to the end (the pipe).
for _ in $(seq 1200); do [[ -s $OUT/replay-stepped.png ]] && break; sleep 0.1; done
sleep 1
[[ -s $OUT/replay-stepped.png ]] || { echo "make-replay-pictures.sh: no stepped picture: $(cat xabview.err)" >&2; exit 1; }
echo "wrote docs/img/replay-stepped.png"
