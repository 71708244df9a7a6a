#!/usr/bin/env bash
# xabview_live.sh -- does xabview keep up with a busy real program?
#
#   bench/xabview_live.sh BUILD_DIR [PAIRS] [ROUNDTRIPS] [pipe|file|both]
#
# Starts a private PVM (scripts/pvm-vm.sh) and an Xvfb of its own, then runs
# PAIRS (default 8, so 16 tasks) copies of bench/pingpong-xab roundtrip -n
# ROUNDTRIPS (default 40000) at once under `abmon -- PROGRAM`, watched live:
#   pipe: abmon -- ... | tee evfile | xabview --frame-log frames
#   file: abmon -- ... > evfile  and  xabview evfile --frame-log frames
# xabview --play-to-end exits once abmon.stop is read.  From the frame log
# (one line per diagram repaint, see xabview(1) --frame-log) it prints, over
# the time records arrived: the arrival rate at the reader, repaints per
# second, the longest gap between two repaints, the worst age of the newest
# record shown, the most records behind, the worst main-thread stall
# (a 20 ms watchdog timer's longest lateness), and the share of repaints
# that had an analysis of their window (message lines, barriers, hang).  Timings go to
# docs/performance.md; never run by ctest.
#
# As every benchmark here: the program (pvmd, its tasks) on core 0, the
# monitor side (abmon, tee, xabview, Xvfb) on core 1; PIN=0 runs them
# unpinned, sharing both cores.  WORKLOAD=packloop makes each pair's
# master send ROUNDTRIPS messages as fast as it can (pingpong's packloop)
# instead of round trips: more records per second from the one core.
#
# Memory: xabview's peak RSS (/usr/bin/time) and its RSS every SAMPLE_S
# seconds (default 30) are printed too.  BUDGET=SIZE runs xabview with
# --budget SIZE (its default otherwise); TEE=0 pipes abmon straight into
# xabview without keeping the trace (a long run's text is ~86 bytes a
# record: ten minutes at 500 k records/s are 26 GB).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
readonly HERE ROOT
BUILD=${1:?usage: xabview_live.sh BUILD_DIR [PAIRS] [ROUNDTRIPS] [pipe|file|both]}
BUILD=$(cd "$BUILD" && pwd)
readonly PAIRS=${2:-8} ROUNDTRIPS=${3:-40000} MODES=${4:-both}
OUT=$(mktemp -d /tmp/xabview_live.XXXXXX)
readonly OUT VM="$OUT/vm"
PROGRAM_CORE=() MONITOR_CORE=()
if [[ ${PIN:-1} != 0 ]]; then PROGRAM_CORE=(taskset -c 0) MONITOR_CORE=(taskset -c 1); fi

XVFB_PID=
cleanup() {
  "$ROOT/scripts/pvm-vm.sh" stop "$VM" >/dev/null 2>&1 || true
  if [[ -n $XVFB_PID ]]; then kill "$XVFB_PID" 2>/dev/null || true; fi
}
trap cleanup EXIT

for f in "$BUILD/bin/xabview" "$BUILD/bin/abmon" "$BUILD/bench/pingpong-xab"; do
  [[ -x $f ]] || { echo "xabview_live.sh: $f missing (ninja xabview abmon bench/pingpong-xab)" >&2; exit 1; }
done

# An Xvfb of our own: the first free display number from 90.
for d in $(seq 90 140); do
  [[ -e /tmp/.X11-unix/X$d || -e /tmp/.X$d-lock ]] && continue
  "${MONITOR_CORE[@]}" Xvfb ":$d" -screen 0 1400x900x24 -nolisten tcp >"$OUT/xvfb.log" 2>&1 &
  XVFB_PID=$!
  export DISPLAY=":$d"
  break
done
sleep 1
kill -0 "$XVFB_PID" || { echo "xabview_live.sh: Xvfb did not start" >&2; exit 1; }
unset QT_QPA_PLATFORM

XAB_VM_QUIET=1 "${PROGRAM_CORE[@]}" "$ROOT/scripts/pvm-vm.sh" start "$VM" "$BUILD/bench" "$BUILD/bin"
# shellcheck disable=SC1091
source "$VM/env"

# The program: PAIRS pingpongs at once (each a master and its partner).
WORKLOAD=${WORKLOAD:-roundtrip} WARMUP=
[[ $WORKLOAD == roundtrip ]] && WARMUP="-w 0"
cat >"$OUT/program.sh" <<PROG
#!/bin/sh
for i in \$(seq $PAIRS); do ${PROGRAM_CORE[*]} "$BUILD/bench/pingpong-xab" $WORKLOAD -n $ROUNDTRIPS -r 1 $WARMUP >/dev/null & done
wait
PROG
chmod +x "$OUT/program.sh"

summary() {  # FRAMELOG: figures over the time records arrived
  awk '
    /^#/ { next }
    { ms=$1; read=$4 }
    NR>1 && read > lastread && first == "" { first = prevms; base = lastread }
    read > lastread { last = ms; total = read }
    first != "" && ms <= last {
      frames++; if (prev_in != "" && ms - prev_in > gap) gap = ms - prev_in; prev_in = ms
      if ($12 > 0) analysed++
      if ($7 > age) age = $7; if ($5 > behind) behind = $5; if ($6 > lag) lag = $6
    }
    { if ($10 > stall) stall = $10; lastread = read; prevms = ms }
    END {
      d = (last - first) / 1000.0; if (d <= 0) d = 1e-9
      printf "records %d in %.2f s: arrival %.0f records/s | repaints %.1f/s, longest gap %d ms | newest shown record at most %.0f ms old | at most %d records, %.2f s behind | worst main-thread stall %.0f ms | %.0f%% of repaints with an analysis of their window\n",
             total - base, d, (total - base) / d, frames / d, gap, age, behind, lag, stall, frames ? 100 * analysed / frames : 0
    }' "$1"
}

sample_rss() {  # FRAMELOG OUT: xabview's RSS (MB) every SAMPLE_S seconds while it runs
  local pid=
  : >"$2"
  for _ in $(seq 100); do
    pid=$(pgrep -f "^$BUILD/bin/xabview .*$1" | head -1) && break
    sleep 0.2
  done
  [[ -n $pid ]] || return 0
  while kill -0 "$pid" 2>/dev/null; do
    awk '/^VmRSS/ { print int($2 / 1024) }' "/proc/$pid/status" >>"$2" 2>/dev/null || true
    sleep "${SAMPLE_S:-30}"
  done
}

run() {  # MODE
  local mode=$1 frames="$OUT/frames-$1.log" ev="$OUT/evfile-$1"
  # --dump-on-hang: follows the input to its real end (abmon.stop), then exits.
  local wrap=()
  read -r -a wrap <<<"${XABVIEW_WRAP:-}"  # e.g. "perf record -g -o FILE --"
  local budget=()
  [[ -n ${BUDGET:-} ]] && budget=(--budget "$BUDGET")
  local viewer=("${MONITOR_CORE[@]}" "${wrap[@]}" /usr/bin/time -f %M -o "$OUT/peak-$mode" "$BUILD/bin/xabview"
                "${budget[@]}" --dump-on-hang "$OUT/hang-$mode.json" --frame-log "$frames")
  sample_rss "$frames" "$OUT/rss-$mode" &
  local sampler=$!
  if [[ $mode == pipe && ${TEE:-1} == 0 ]]; then
    "${MONITOR_CORE[@]}" "$BUILD/bin/abmon" -- "$OUT/program.sh" 2>"$OUT/abmon-$mode.err" | "${viewer[@]}" 2>"$OUT/xabview-$mode.err"
  elif [[ $mode == pipe ]]; then
    "${MONITOR_CORE[@]}" "$BUILD/bin/abmon" -- "$OUT/program.sh" 2>"$OUT/abmon-$mode.err" | "${MONITOR_CORE[@]}" tee "$ev" | "${viewer[@]}" 2>"$OUT/xabview-$mode.err"
  else
    : >"$ev"
    "${viewer[@]}" "$ev" 2>"$OUT/xabview-$mode.err" &
    local vpid=$!
    sleep 1
    "${MONITOR_CORE[@]}" "$BUILD/bin/abmon" -- "$OUT/program.sh" >"$ev" 2>"$OUT/abmon-$mode.err"
    wait "$vpid"
  fi
  kill "$sampler" 2>/dev/null || true
  wait "$sampler" 2>/dev/null || true
  printf '%-4s %s\n' "$mode" "$(summary "$frames")"
  printf '     xabview peak RSS %s MB; RSS every %s s (MB): %s\n' "$(( $(cat "$OUT/peak-$mode") / 1024 ))" \
    "${SAMPLE_S:-30}" "$(tr '\n' ' ' <"$OUT/rss-$mode")"
  if [[ -s $ev ]]; then echo "     ($(wc -l <"$ev") lines in the trace; frame log $frames)"; else echo "     (frame log $frames)"; fi
}

[[ $MODES == both || $MODES == pipe ]] && run pipe
[[ $MODES == both || $MODES == file ]] && run file
echo "xabview_live.sh: files in $OUT"
