#!/bin/bash
# scale_bench.sh -- time and peak memory of every reader of a big trace,
# against `wc -l` of the same file in the same run.
#
#   bench/scale_bench.sh [-b BUILD_DIR] [--before BIN_DIR] [--tasks T] [N...]
#
# For each N (records; default "1000000 10000000"; 30000000 and 100000000
# as options) writes a trace of about N records with translators_gentrace
# --clocks (T tasks in a ring, default 16: packs, sends, receives,
# barriers, marks and libab's clock records, each task on a clock of its
# own, so global time has work to do), then runs under /usr/bin/time
# (%e elapsed seconds, %M peak RSS): wc -l, abstat (global time), abstat
# --raw-time, ab2picl, ab2json, ab2otf2 (when built), and xabview opening
# the file offscreen (--play-to-end --save-diagram: the loader, the
# snapshot's analyses and one paint of the diagram), whole (--budget 0) and
# under its default budget (a window of the newest records beyond 1 GiB:
# docs/xabview.md, "Long runs").  Prints, per reader:
# seconds, peak MB, bytes of peak RSS per record and the ratio of its time
# to wc -l's.  --before BIN_DIR runs the readers of BIN_DIR (an older
# build's bin/) too, row by row, on the same file.
set -euo pipefail
BUILD=build TASKS=16 BEFORE='' SIZES=()
while [ $# -gt 0 ]; do
  case $1 in
    -b) BUILD=$2; shift 2 ;;
    --before) BEFORE=$(cd "$2" && pwd); shift 2 ;;
    --tasks) TASKS=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    -*) echo "scale_bench.sh: unknown option $1" >&2; exit 1 ;;
    *) SIZES+=("$1"); shift ;;
  esac
done
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1000000 10000000)
BUILD=$(cd "$BUILD" && pwd)
BIN=$BUILD/bin GEN=$BUILD/bench/translators_gentrace
WORK=$(mktemp -d /tmp/xab-scale-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export QT_QPA_PLATFORM=offscreen

# run LABEL RECORDS BASE CMD...: one row; BASE is wc -l's seconds (0: this is it).
run() {
  local label=$1 records=$2 base=$3; shift 3
  rm -rf "$WORK/out"*
  local rc=0
  /usr/bin/time -f '%e %M' -o "$WORK/time" "$@" > /dev/null 2> "$WORK/err" || rc=$?
  local secs kb
  read -r secs kb < <(tail -1 "$WORK/time")
  LAST=$secs
  awk -v l="$label" -v s="$secs" -v kb="$kb" -v n="$records" -v b="$base" -v rc="$rc" 'BEGIN {
    printf "%-30s %8.2f %9.1f %8.1f %8s %4s\n", l, s, kb / 1024, kb * 1024 / n, (b > 0 ? sprintf("%.1f", s / b) : "1"), rc }'
}

readers() {  # readers DIR TAG FILE RECORDS BASE
  local d=$1 tag=$2 f=$3 n=$4 base=$5
  run "abstat$tag" "$n" "$base" "$d/abstat" "$f"
  run "abstat --raw-time$tag" "$n" "$base" "$d/abstat" --raw-time "$f"
  run "ab2picl$tag" "$n" "$base" "$d/ab2picl" --quiet -o "$WORK/out.trf" "$f"
  run "ab2json$tag" "$n" "$base" "$d/ab2json" --quiet -o "$WORK/out.json" "$f"
  [ -x "$d/ab2otf2" ] && run "ab2otf2$tag" "$n" "$base" "$d/ab2otf2" --quiet -o "$WORK/out.otf2" "$f"
  if [ -x "$d/xabview" ]; then
    # The whole trace (--budget 0, where xabview has a budget): what a record costs; and under
    # the default budget, which keeps a window of the newest records.
    local whole=()
    # (Its help read whole: grep -q ending the pipe early fails it under pipefail.)
    local help
    help=$(QT_QPA_PLATFORM=offscreen "$d/xabview" --help 2>/dev/null || true)
    [[ $help == *--budget* ]] && whole=(--budget 0)
    run "xabview (open, offscreen)$tag" "$n" "$base" \
      "$d/xabview" "${whole[@]}" --play-to-end --timeout 3600 --save-diagram "$WORK/out.png" "$f"
    [ ${#whole[@]} -gt 0 ] && run "xabview (open, default budget)$tag" "$n" "$base" \
      "$d/xabview" --play-to-end --timeout 3600 --save-diagram "$WORK/out.png" "$f"
  fi
  return 0
}

for N in "${SIZES[@]}"; do
  F=$WORK/scale.trace
  "$GEN" --records "$N" "$TASKS" --clocks > "$F"
  RECORDS=$(wc -l < "$F")
  echo "== $RECORDS records, $TASKS tasks, $(stat -c %s "$F") bytes ($(( $(stat -c %s "$F") / RECORDS )) B/record)"
  printf '%-30s %8s %9s %8s %8s %4s\n' reader seconds peak_MB B/record "x wc -l" exit
  cat "$F" > /dev/null  # in the page cache for every reader
  run "wc -l" "$RECORDS" 0 wc -l "$F"
  BASE=$LAST
  readers "$BIN" "" "$F" "$RECORDS" "$BASE"
  [ -n "$BEFORE" ] && readers "$BEFORE" " (before)" "$F" "$RECORDS" "$BASE"
  rm -f "$F"
done
