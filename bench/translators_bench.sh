#!/bin/bash
# translators_bench.sh -- input throughput and peak memory of each
# translator, in MB/s of its input, against `cat` of the same file in the
# same run.
#
#   bench/translators_bench.sh [MEGABYTES] [BUILD_DIR]      (defaults: 200, ./build)
#
# Reports elapsed time, CPU time (user + sys) and peak RSS (/usr/bin/time
# -v's "Maximum resident set size"): on a shared machine the CPU figure is
# what one core of this translator does; elapsed includes waiting for the
# core.  Each command runs REPEAT times (default 3), the best run is kept.
#
# Environment:
#   REPEAT=N             runs per command (best kept)
#   BEFORE=DIR           also time the translators in DIR (a build's bin/ of
#                        an older commit), row by row in the same run
#   MEMORY_SIZES="A B"   then a table of peak RSS per translator for traces
#                        of A and B MB: does memory grow with the input?
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

# run_best COMMAND...: best of REPEAT; sets REAL CPU RSS_MB.
run_best() {
  REAL=999999 CPU=999999 RSS_MB=999999
  for _ in $(seq "$REPEAT"); do
    rm -rf "$WORK/otf2"
    /usr/bin/time -f '%e %U %S %M' -o "$WORK/time" "$@" > "$WORK/out" 2>/dev/null
    local real user sys rss cpu
    read -r real user sys rss < "$WORK/time"
    cpu=$(echo "$user + $sys" | bc -l)
    if (( $(echo "$real < $REAL" | bc -l) )); then REAL=$real; fi
    if (( $(echo "$cpu < $CPU" | bc -l) )); then CPU=$cpu; fi
    rss=$(echo "$rss / 1024" | bc -l)
    if (( $(echo "$rss < $RSS_MB" | bc -l) )); then RSS_MB=$rss; fi
  done
}

# measure NAME INPUT_BYTES COMMAND...: prints a table row.
measure() {
  local name=$1 bytes=$2; shift 2
  run_best "$@"
  printf "| %-40s | %8.1f | %6.2f | %8.0f | %6.2f | %8.0f | %7.0f |\n" "$name" "$(echo "$bytes/1000000" | bc -l)" \
    "$REAL" "$(echo "$bytes/1000000/$REAL" | bc -l)" \
    "$CPU" "$(echo "$bytes/1000000/($CPU+0.0001)" | bc -l)" "$RSS_MB"
}

# one TRANSLATOR BIN_DIR SUFFIX: its row.
one() {
  local t=$1 bin=$2 sfx=$3
  case $t in
    ab2picl) measure "ab2picl$sfx" "$SIZE" "$bin/ab2picl" --quiet "$WORK/big.trace" ;;
    picl2ab) measure "picl2ab (input: the PICL file)$sfx" "$PSIZE" "$bin/picl2ab" --quiet "$WORK/big.picl" ;;
    ab2json) measure "ab2json$sfx" "$SIZE" "$bin/ab2json" --quiet "$WORK/big.trace" ;;
    ab2otf2) if [ -x "$bin/ab2otf2" ]; then measure "ab2otf2$sfx" "$SIZE" "$bin/ab2otf2" --quiet -o "$WORK/otf2" "$WORK/big.trace"; fi ;;
    ab2au)   measure "ab2au send 8 1 1000000$sfx" "$SIZE" "$bin/ab2au" --quiet send 8 1 1000000 "$WORK/big.trace" ;;
  esac
}

echo "input: $MB MB requested, $SIZE bytes, $EVENTS records, 8 tasks; PICL: $PSIZE bytes; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| command                                  | input MB | real s | MB/s real | CPU s | MB/s CPU | peak RSS MB |"
echo "|---|---|---|---|---|---|---|"
measure "cat (baseline)" "$SIZE" cat "$WORK/big.trace"
[ -n "${BEFORE:-}" ] && BEFORE=$(cd "$BEFORE" && pwd)
for t in ab2picl picl2ab ab2json ab2otf2 ab2au; do
  # Before and after next to each other, so that both see the same load.
  if [ -n "${BEFORE:-}" ]; then one "$t" "$BEFORE" " (before)"; fi
  one "$t" "$BIN" ""
done

if [ -n "${MEMORY_SIZES:-}" ]; then
  echo
  echo "peak RSS (MB) by input size:"
  echo
  header="| command |" rule="|---|"
  for s in $MEMORY_SIZES; do header="$header $s MB input |"; rule="$rule---|"; done
  echo "$header"
  echo "$rule"
  for s in $MEMORY_SIZES; do "$GEN" "$s" 8 > "$WORK/m$s.trace"; done
  row() {
    local name=$1; shift
    local line="| $name |"
    for s in $MEMORY_SIZES; do
      run_best "${@//@IN@/$WORK/m$s.trace}"
      line="$line $(printf '%.0f' "$RSS_MB") |"
    done
    echo "$line"
  }
  row ab2picl "$BIN/ab2picl" --quiet @IN@
  row ab2json "$BIN/ab2json" --quiet @IN@
  if [ -x "$BIN/ab2otf2" ]; then row ab2otf2 "$BIN/ab2otf2" --quiet -o "$WORK/otf2" @IN@; fi
  row "ab2au send 8 1 1000000" "$BIN/ab2au" --quiet send 8 1 1000000 @IN@
  rm -f "$WORK"/m*.trace
fi
