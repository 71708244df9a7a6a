#!/bin/bash
# readers_memory.sh -- peak memory (max RSS) of every reader of a trace on
# a file that names many tasks once each: does memory follow what the
# trace holds, or the number of tasks it names?
#
#   bench/readers_memory.sh [-b BUILD_DIR] [-n TASKS] [--before DIR]
#
# Writes a trace of TASKS tasks (default 100000) with one `mytid` record
# each, and one of a task that sends one mcast to TASKS/5 tids that never
# write a record; then runs each reader on it under /usr/bin/time and
# prints its peak RSS (and elapsed time): abstat, xabview (loader, the
# snapshot's analyses, one paint of every view and the saved diagram,
# offscreen), ab2json, ab2picl, ab2au, ab2otf2.  --before DIR runs the
# readers of DIR (an older build's bin/) too, row by row.
#
# ab2otf2 writes two files per location: with 100,000 tasks its time is
# the file system's, so it runs on the TASKS/5 file (and the mcast).
set -euo pipefail
BUILD=build TASKS=100000 BEFORE=
while [ $# -gt 0 ]; do
  case $1 in
    -b) BUILD=$2; shift 2 ;;
    -n) TASKS=$2; shift 2 ;;
    --before) BEFORE=$(cd "$2" && pwd); shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "readers_memory.sh: unknown argument $1" >&2; exit 1 ;;
  esac
done
BIN=$(cd "$BUILD/bin" && pwd)
WORK=$(mktemp -d /tmp/xab-readers-mem-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export QT_QPA_PLATFORM=offscreen

# tasks N FILE: N tasks, one record each.
tasks() {
  awk -v n="$1" 'BEGIN {
    print "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1763680000.000000000"
    for (i = 0; i < n; i++) {
      t = sprintf("1763680000.%09d", (i + 1) * 1000); tid = sprintf("t%x", 262146 + i)
      print t, t, tid, "mytid rc=" tid
    } }' > "$2"
}
# mcast N FILE: one task, one mcast to N tids that write nothing.
mcast() {
  awk -v n="$1" 'BEGIN {
    print "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1763680000.000000000"
    print "1763680000.000001000 1763680000.000001000 t40002 mytid rc=t40002"
    printf "1763680000.000002000 1763680000.000002000 t40002 mcast dst="
    for (i = 0; i < n; i++) printf "%st%x", (i ? "," : ""), 524288 + i
    print " tag=1 bytes=4 serial=1 rc=0" }' > "$2"
}

SMALL=$((TASKS / 5))
tasks "$TASKS" "$WORK/tasks.xab"
tasks "$SMALL" "$WORK/small.xab"
mcast "$SMALL" "$WORK/mcast.xab"
echo "files: tasks.xab $TASKS tasks $(stat -c %s "$WORK/tasks.xab") bytes;" \
     "small.xab $SMALL tasks $(stat -c %s "$WORK/small.xab") bytes;" \
     "mcast.xab 1 mcast to $SMALL tids $(stat -c %s "$WORK/mcast.xab") bytes"

# measure DIR NAME ARGS...: "peak_MB seconds status" of DIR/NAME ARGS.
measure() {
  local dir=$1 name=$2; shift 2
  rm -rf "$WORK/out"*
  local rc=0
  /usr/bin/time -f '%M %e' -o "$WORK/time" "$dir/$name" "$@" > /dev/null 2> "$WORK/err" || rc=$?
  read -r kb secs < <(tail -1 "$WORK/time")
  printf '%8.1f %8.2f %6s' "$(echo "$kb / 1024" | bc -l)" "$secs" "$rc"
}

row() {
  local label=$1 file=$2; shift 2
  printf '%-38s %-10s' "$label" "$(basename "$file")"
  measure "$BIN" "$@"
  [ -n "$BEFORE" ] && { printf '   |'; measure "$BEFORE" "$@"; }
  echo
}

printf '%-38s %-10s %8s %8s %6s' reader file peak_MB seconds exit
[ -n "$BEFORE" ] && printf '   |%8s %8s %6s' before_MB seconds exit
echo
F=$WORK/tasks.xab
row "abstat" "$F" abstat "$F"
row "xabview --play-to-end --save-diagram" "$F" xabview --play-to-end --timeout 600 --save-diagram "$WORK/out.png" "$F"
row "ab2json" "$F" ab2json --quiet -o "$WORK/out.json" "$F"
row "ab2picl" "$F" ab2picl --quiet -o "$WORK/out.trf" "$F"
row "ab2au send 8 400 10000" "$F" ab2au --quiet send 8 400 10000 -o "$WORK/out.au" "$F"
for F in "$WORK/small.xab" "$WORK/mcast.xab"; do
  row "ab2otf2" "$F" ab2otf2 --quiet -o "$WORK/out.otf2" "$F"
done
