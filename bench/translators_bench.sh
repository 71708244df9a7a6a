#!/bin/bash
# translators_bench.sh -- input throughput of each translator, in MB/s of
# its input, against `cat` of the same file in the same run.
#
#   bench/translators_bench.sh [MEGABYTES] [BUILD_DIR]      (defaults: 200, ./build)
#
# Reports elapsed time and CPU time (user + sys): on a shared machine the
# CPU figure is what one core of this translator does; elapsed includes
# waiting for the core.  Each command runs REPEAT times (default 3), the
# best run is kept.
set -euo pipefail
MB=${1:-200}
BUILD=$(cd "${2:-build}" && pwd)
REPEAT=${REPEAT:-3}
BIN=$BUILD/bin
GEN=$BUILD/bench/translators_gentrace
WORK=$(mktemp -d /tmp/xab-trbench-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

"$GEN" "$MB" 8 > "$WORK/big.trace"
"$BIN/ab2picl" --quiet "$WORK/big.trace" > "$WORK/big.picl"
SIZE=$(stat -c %s "$WORK/big.trace")
PSIZE=$(stat -c %s "$WORK/big.picl")
EVENTS=$(grep -vc '^#' "$WORK/big.trace")

# measure NAME INPUT_BYTES COMMAND...: best of REPEAT; prints a table row.
measure() {
  local name=$1 bytes=$2; shift 2
  local best_real=999999 best_cpu=999999
  for _ in $(seq "$REPEAT"); do
    rm -rf "$WORK/otf2"
    local t
    t=$( { TIMEFORMAT='%R %U %S'; time "$@" > "$WORK/out" 2>/dev/null; } 2>&1 )
    read -r real user sys <<< "$t"
    local cpu
    cpu=$(echo "$user + $sys" | bc -l)
    if (( $(echo "$real < $best_real" | bc -l) )); then best_real=$real; fi
    if (( $(echo "$cpu < $best_cpu" | bc -l) )); then best_cpu=$cpu; fi
  done
  printf "| %-34s | %8.1f | %6.2f | %8.0f | %6.2f | %8.0f |\n" "$name" "$(echo "$bytes/1000000" | bc -l)" \
    "$best_real" "$(echo "$bytes/1000000/$best_real" | bc -l)" \
    "$best_cpu" "$(echo "$bytes/1000000/($best_cpu+0.0001)" | bc -l)"
}

echo "input: $MB MB requested, $SIZE bytes, $EVENTS records, 8 tasks; PICL: $PSIZE bytes; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| command                            | input MB | real s | MB/s real | CPU s | MB/s CPU |"
echo "|---|---|---|---|---|---|"
measure "cat (baseline)"                      "$SIZE"  cat "$WORK/big.trace"
measure "ab2picl"                             "$SIZE"  "$BIN/ab2picl" --quiet "$WORK/big.trace"
measure "picl2ab (input: the PICL file)"      "$PSIZE" "$BIN/picl2ab" --quiet "$WORK/big.picl"
measure "ab2json"                             "$SIZE"  "$BIN/ab2json" --quiet "$WORK/big.trace"
if [ -x "$BIN/ab2otf2" ]; then
  measure "ab2otf2"                           "$SIZE"  "$BIN/ab2otf2" --quiet -o "$WORK/otf2" "$WORK/big.trace"
fi
measure "ab2au send 8 1 1000000"              "$SIZE"  "$BIN/ab2au" --quiet send 8 1 1000000 "$WORK/big.trace"
