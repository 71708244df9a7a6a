#!/bin/bash
# compensate_bench.sh -- how close intrusion compensation comes to the
# plain run (issue 15 §2, docs/performance.md "Intrusion compensation").
#
#   bench/compensate_bench.sh [-b BUILD_DIR] [-r RUNS] [--knob NS] [-- MWORKER_ARGS...]
#
# In a private virtual machine, RUNS times: mworker-plain (no xab), then
# mworker-xab under abmon in default mode (--batch 512) and in immediate
# mode (--batch 1).  Prints per task the plain run's wall time, the
# traced run's per-task run time as recorded (raw) and compensated
# (abstat --compensate), and their errors against the plain run.
# --knob NS: every record costs NS ns more (XAB_TEST_RECORD_COST_NS, a
# test knob, docs/libab.md): a known intrusion far above the noise.
set -euo pipefail
BUILD=build RUNS=1 KNOB=
while [ $# -gt 0 ]; do
  case $1 in
    -b) BUILD=$2; shift 2 ;;
    -r) RUNS=$2; shift 2 ;;
    --knob) KNOB=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "compensate_bench.sh: unknown argument $1" >&2; exit 1 ;;
  esac
done
ARGS=("$@")
BIN=$(cd "$BUILD/bin" && pwd)
BENCH=$(cd "$BUILD/bench" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
VMSH=$HERE/../scripts/pvm-vm.sh
[ -x "$VMSH" ] || VMSH=$(git -C "$HERE" rev-parse --show-toplevel)/scripts/pvm-vm.sh
WORK=$(mktemp -d /tmp/xab-comp-bench-XXXXXX)
[ -n "$KNOB" ] && export XAB_TEST_RECORD_COST_NS=$KNOB  # pvm-vm.sh exports XAB_ variables to spawned tasks
XAB_VM_QUIET=1 "$VMSH" start "$WORK/vm" "$BENCH" "$BIN"
# shellcheck disable=SC1091
source "$WORK/vm/env"
trap '"$VMSH" stop "$WORK/vm" > /dev/null 2>&1 || true; rm -rf "$WORK"' EXIT

traced() {  # $1: abmon's --batch; output: the trace in $WORK/trace
  "$BIN/abmon" --batch "$1" > "$WORK/trace" 2> "$WORK/abmon.err" &
  local mon=$!
  sleep 1
  "$BENCH/mworker-xab" "${ARGS[@]}" > /dev/null
  sleep 1
  kill -INT $mon
  wait $mon || true
}

printf '%-4s %-9s %-8s %10s %10s %10s %8s %8s %9s\n' run mode task "plain s" "raw s" "comp s" "raw err" "comp err" intrusion
for i in $(seq 1 "$RUNS"); do
  "$BENCH/mworker-plain" "${ARGS[@]}" > "$WORK/plain"
  for mode in default:512 immediate:1; do
    traced "${mode#*:}"
    "$BIN/abstat" --json --tasks --compensate "$WORK/trace" > "$WORK/j.json" || true
    python3 - "$WORK/plain" "$WORK/j.json" "$i" "${mode%%:*}" <<'PY'
import json, sys
plain = {l.split()[0][5:]: int(l.split()[1][8:]) / 1e9 for l in open(sys.argv[1]) if l.startswith("task=")}
j = json.load(open(sys.argv[2]))
comp = j["compensation"]["tasks"]
# trace tasks in order: the master first (task index 0), then its workers in spawn order
names = ["master"] + [f"worker{k}" for k in range(1, len(comp))]
for name, c in zip(names, comp):
    p = plain.get(name)
    if p is None: continue
    raw, cr = c["run"], c["compensatedRun"]
    print(f'{sys.argv[3]:<4} {sys.argv[4]:<9} {name:<8} {p:10.4f} {raw:10.4f} {cr:10.4f} {100*(raw-p)/p:7.1f}% {100*(cr-p)/p:7.1f}% {100*c["intrusion"]:8.1f}%')
PY
  done
done
