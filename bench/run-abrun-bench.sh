#!/usr/bin/env bash
# run-abrun-bench.sh [BUILD_DIR] [ROUNDS] -- what watching a program costs
# it under abrun (PVM's tracing) against libab, on the ping-pong
# (bench/pingpong.c `roundtrip`, 2000 roundtrips, median of 5), rounds
# interleaved, in a private VM:
#   plain          no monitor (the baseline)
#   libab          pingpong-xab under `abmon --`
#   abrun          pingpong-plain under abrun (PVM's tracing, unbuffered)
#   abrun+libab    pingpong-xab under abrun: libab turns its own PVM tracing off
#   abrun+libab+pvm  the same with XAB_PVM_TRACE=keep (both ways at once:
#                  what libab tasks paid before they turned it off)
# Prints each round's median and CPU µs per roundtrip and the medians' ratio
# to plain; says the load average.  docs/performance.md has the figures.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=$(cd "${1:-$HERE/../build}" && pwd) ROUNDS=${2:-3}
BIN=$BUILD/bin BENCH=$BUILD/bench
for p in "$BENCH/pingpong-plain" "$BENCH/pingpong-xab" "$BIN/abmon" "$BIN/abrun"; do
  [[ -x $p ]] || { echo "run-abrun-bench.sh: no $p (build the bench and abmon targets)" >&2; exit 2; }
done
# shellcheck source=bench/vm.sh
source "$HERE/vm.sh"
bench_vm abrun-bench "$BENCH"
cd "$BENCH"
args=(roundtrip -n 2000 -r 5)
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" | tail -1; }
run() {
  case $1 in
    plain) ./pingpong-plain "${args[@]}" ;;
    libab) "$BIN/abmon" -o "$work/t" -- ./pingpong-xab "${args[@]}" ;;
    abrun) "$BIN/abrun" -o "$work/t" ./pingpong-plain "${args[@]}" ;;
    abrun+libab) "$BIN/abrun" -o "$work/t" ./pingpong-xab "${args[@]}" ;;
    abrun+libab+pvm) XAB_PVM_TRACE=keep "$BIN/abrun" -o "$work/t" ./pingpong-xab "${args[@]}" ;;
  esac 2>&1
}
ways=(plain libab abrun abrun+libab abrun+libab+pvm)
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s' round; for w in "${ways[@]}"; do printf ' %-22s' "$w us (cpu) x"; done; echo
for ((r = 1; r <= ROUNDS; r++)); do
  printf '%-6s' "$r"
  base=""
  for w in "${ways[@]}"; do
    out=$(run "$w") || true
    med=$(field median_us <<<"$out") cpu=$(field cpu_us <<<"$out")
    if [[ -z $med ]]; then
      printf ' %-22s' "failed"
      echo "$w failed: $(tail -2 <<<"$out")" >>"$work/failures"
      continue
    fi
    [[ -n $base ]] || base=$med
    printf ' %-22s' "$(printf '%.0f (%.0f) %.1fx' "$med" "$cpu" "$(echo "$med / $base" | bc -l)")"
  done
  echo
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
[[ ! -f $work/failures ]] || cat "$work/failures"
