#!/usr/bin/env bash
# step-relay-bench.sh -- what control mode costs a program on 2 hosts when no
# client is connected: every communicating call of every task
# still asks, node1's through its relay and two PVM messages to abmon and
# back.  The demo (-n 4 --rounds 40, workers on node0 and node1) under
# `abmon -o` and under `abmon --control`, alternating, RUNS times each;
# prints each run's wall time and the medians.  Needs root (pseudo-hosts).
#
#   bench/step-relay-bench.sh [BUILD_DIR [RUNS]]     (default: build-test, 5)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$ROOT/build-test}
[[ $BUILD = /* ]] || BUILD=$ROOT/$BUILD
RUNS=${2:-5}
BIN=$BUILD/bin
VM=$(mktemp -d /tmp/xabsb.XXXXXX)
H() { "$ROOT/scripts/pvm-hosts.sh" --dir "$VM" "$@"; }
export XAB_HOSTS_QUIET=1
trap 'H down >/dev/null 2>&1 || true; rm -rf "$VM"' EXIT
H up 2 --bin "$BIN" >/dev/null
cd "$VM"
declare -A times
for ((i = 1; i <= RUNS; i++)); do
  for mode in plain control; do
    extra=()
    [[ $mode == control ]] && extra=(--control "$VM/c.sock")
    s=$(date +%s%N)
    H run node0 timeout 120 "$BIN/abmon" "${extra[@]}" -o "t.$mode" -- "$BIN/xabdemo" -n 4 --rounds 40 >/dev/null 2>&1
    t=$((($(date +%s%N) - s) / 1000000))
    times[$mode]+="$t "
    echo "$mode run $i: $t ms, step.wait records $(grep -c ' step.wait ' "t.$mode" || true)"
  done
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
p=$(median "${times[plain]}") c=$(median "${times[control]}")
echo "median: plain $p ms, --control (no client) $c ms, ratio $(awk -v p="$p" -v c="$c" 'BEGIN { printf "%.2f", c / p }'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
