#!/usr/bin/env bash
# record-hosts-bench.sh -- what abreplay --record's clock probes cost
# (docs/replay.md, "What the record holds"): on 2 pseudo-hosts
# (scripts/pvm-hosts.sh, root), interleaved rounds of
#   direct   XAB_RECORD=DIR xabrace -n 4 (record mode, no probe)
#   abreplay abreplay --record DIR -- xabrace -n 4 (the same, with a probe
#            on node1 before and after the run: 2 spawns, 32 exchanges)
# Prints each mode's median wall time and the ratio; the difference is
# the probes' fixed cost per record, none of it during the run.
# Usage: bench/record-hosts-bench.sh [BUILD_DIR] [ROUNDS]   (default build, 9)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=$(cd "${1:-$HERE/../build}" && pwd)
ROUNDS=${2:-9}
VM=$(mktemp -d /tmp/xrh.XXXXXX)
H=("$HERE/../scripts/pvm-hosts.sh" --dir "$VM")
export XAB_HOSTS_QUIET=1
trap '"${H[@]}" down >/dev/null 2>&1 || true; rm -rf "$VM"' EXIT
"${H[@]}" up 2 --bin "$BUILD/bin" >/dev/null
cd "$VM"
ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)); }
direct() { rm -rf d && mkdir d && XAB_RECORD=$VM/d "${H[@]}" run node0 "$BUILD/bin/xabrace" -n 4; }
viaabreplay() { "${H[@]}" run node0 "$BUILD/bin/abreplay" --record r -- "$BUILD/bin/xabrace" -n 4; }
: >direct.ms; : >abreplay.ms
for ((i = 0; i < ROUNDS; i++)); do
  ms direct >>direct.ms
  ms viaabreplay >>abreplay.ms
done
median() { sort -n "$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
d=$(median direct.ms) a=$(median abreplay.ms)
echo "direct (XAB_RECORD): median $d ms; abreplay --record (probes): median $a ms; ratio $(awk -v a="$a" -v d="$d" 'BEGIN { printf "%.2f", a / d }'); $ROUNDS rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
