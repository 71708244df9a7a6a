#!/usr/bin/env bash
# run-record-bench.sh -- what record mode (XAB_RECORD, docs/replay.md) costs,
# against the plain program and against full tracing under abmon.
#
# In a private virtual machine, interleaved rounds of:
#   plain    the program without libab (-plain build)
#   record   the libab build with XAB_RECORD=DIR, no abmon
#   trace    the libab build under abmon (default batching), no record
# on the ping-pong (bench/pingpong.c roundtrip: receives from one task, so
# record mode logs nothing and costs only message serials) and on gather
# (bench/gather.c: W workers stream to a master that takes every message
# with pvm_recv(-1, tag): one record entry per message; and gather --probe:
# 100000 pvm_nrecv(-1, tag) finding nothing, one entry each, no message).
# Usage: bench/run-record-bench.sh [BUILD_DIR] [ROUNDS]   (default build, 3)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=$(cd "${1:-$HERE/../build}" && pwd)
ROUNDS=${2:-3}
OUT=$(mktemp -d /tmp/xab-record-bench.XXXXXX)
"$HERE/../scripts/pvm-vm.sh" start "$OUT/vm" "$BUILD/bench" >/dev/null
trap '"$HERE/../scripts/pvm-vm.sh" stop "$OUT/vm" >/dev/null 2>&1 || true' EXIT
# shellcheck disable=SC1091
source "$OUT/vm/env"
B=$BUILD/bench

one() { # MODE PROG ARGS...: prints the program's result line
  local mode=$1 prog=$2
  shift 2
  case $mode in
  plain) "$B/$prog-plain" "$@" ;;
  record) rm -rf "$OUT/rec" && XAB_RECORD=$OUT/rec "$B/$prog-xab" "$@" 2>/dev/null ;;
  trace)
    "$BUILD/bin/abmon" -o "$OUT/run.trace" &
    local mon=$!
    sleep 0.5
    local line ticks
    line=$("$B/$prog-xab" "$@" | tail -1)
    # abmon's own CPU (utime + stime, in clock ticks): what record mode,
    # which needs no abmon, saves beside the task's figures
    ticks=$(awk '{print $14 + $15}' "/proc/$mon/stat" 2>/dev/null || echo 0)
    kill -INT "$mon"
    wait "$mon" || true
    echo "$line abmon_cpu_ms=$((ticks * 1000 / $(getconf CLK_TCK)))"
    ;;
  esac
}

for r in $(seq "$ROUNDS"); do
  for mode in plain record trace; do
    echo "round=$r mode=$mode $(one $mode pingpong roundtrip -n 5000 -r 5 | tail -1)"
    echo "round=$r mode=$mode $(one $mode gather -w 4 -m 5000 -r 5 | tail -1)"
    echo "round=$r mode=$mode $(one $mode gather --probe 100000 | tail -1)"
  done
done
echo "raw files in $OUT"
