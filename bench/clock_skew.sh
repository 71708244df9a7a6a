#!/bin/bash
# clock_skew.sh -- how close the global-time fit comes to a known skew
# (docs/performance.md "Global time").
#
#   bench/clock_skew.sh [-b BUILD_DIR] [-r RUNS] [--rounds R] [--skew OFFSET_S,PPM]
#
# Runs the demo (2 workers, R rounds) RUNS times in a private virtual
# machine under abmon, the master's clock skewed by the test knob
# XAB_TEST_CLOCK_SKEW (default 7200,100), and prints per run: the run's
# length, the clock samples of the master, the fitted offset's error at
# its first sample, the drift's error, the largest error of the fitted
# clock over the run (offset error + drift error x time), and the
# receives before their sends as recorded / after the fit / corrected.
# The knob's skew starts at the master's first clock reading, a few ms
# before its first sample: the truth at the sample is the offset plus at
# most ppm x that, < 1 us for 100 ppm.
set -euo pipefail
BUILD=build-test RUNS=5 ROUNDS=200 SKEW=7200,100
while [ $# -gt 0 ]; do
  case $1 in
    -b) BUILD=$2; shift 2 ;;
    -r) RUNS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --skew) SKEW=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "clock_skew.sh: unknown argument $1" >&2; exit 1 ;;
  esac
done
BIN=$(cd "$BUILD/bin" && pwd)
grep -qa XAB_TEST_CLOCK_SKEW "$BIN/xabdemo" || { echo "clock_skew.sh: $BUILD has no XAB_TEST_* knobs: use a build configured with -DXAB_TEST_KNOBS=ON (scripts/test.sh makes build-test)" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
VMSH=$HERE/../scripts/pvm-vm.sh
[ -x "$VMSH" ] || VMSH=$(git -C "$HERE" rev-parse --show-toplevel)/scripts/pvm-vm.sh
WORK=$(mktemp -d /tmp/xab-clock-bench-XXXXXX)
# A run that fails leaves no VM and no directory behind.
trap '"$VMSH" stop "$WORK/vm" > /dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
OFF=${SKEW%%,*} PPM=${SKEW#*,}
[ "$PPM" = "$SKEW" ] && PPM=0
printf '%-4s %8s %8s %12s %12s %12s %s\n' run "run s" samples "offset err" "drift err" "max err" "violations raw/fit/corrected"
for i in $(seq 1 "$RUNS"); do
  XAB_VM_QUIET=1 "$VMSH" start "$WORK/vm" "$BIN"
  # shellcheck disable=SC1091
  source "$WORK/vm/env"
  "$BIN/abmon" > "$WORK/trace" 2> "$WORK/abmon.err" &
  mon=$!
  sleep 1
  XAB_TEST_CLOCK_SKEW=$SKEW "$BIN/xabdemo" -n 2 --rounds "$ROUNDS" --block 200 > /dev/null
  sleep 1
  kill -INT $mon; wait $mon || true
  "$VMSH" stop "$WORK/vm" > /dev/null 2>&1
  "$BIN/abstat" --json --tasks "$WORK/trace" > "$WORK/j.json" || true
  python3 - "$WORK/j.json" "$OFF" "$PPM" "$i" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); off, ppm, run = float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
c = j["clock"]; m = max(c["tasks"], key=lambda t: abs(t["offset"]))
dur = j["trace"]["duration"]
oe = (m["offset"] - off) * 1e6
de = m["driftPpm"] - ppm if m["rateFitted"] else -ppm
print(f'{run:<4} {dur:8.2f} {m["samples"]:8d} {oe:9.2f} us {de:8.2f} ppm {abs(oe) + abs(de) * dur:9.2f} us '
      f'{c["violationsRaw"]}/{c["violationsFit"]}/{c["violationsCorrected"]}')
PY
done
rm -rf "$WORK"
