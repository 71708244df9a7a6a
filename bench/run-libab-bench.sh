#!/usr/bin/env bash
# run-libab-bench.sh -- what libab costs a PVM program, in one run.
#
# Starts a private virtual machine with pvmd pinned to one core (its tasks
# inherit the affinity), runs bench/pingpong-{plain,xab} and
# bench/libab_record_bench-{plain,xab} under each way of watching a program:
#   plain          no monitor (the baseline)
#   xab            abmon, default batching (512 events / 200 ms)
#   xab-samecore   the same with abmon on the program's core
#   xab-immediate  abmon --batch 1: one message per communicating call
#   xab-pvm, xab-immediate-pvm
#                  the same two with abmon --pvm-only: event messages go
#                  through pvmd instead of abmon's local socket
#   pvm-trace      PVM's own tracer, `full`, default mask, unbuffered
#   pvm-trace-buf  the same with -B 65536 (buffered in the tasks)
#   plain+trecv    attribution: the plain program waiting as libab's receive
#                  did before pokes (pvm_trecv with a 2 ms timeout first)
#   plain+poll     attribution: the plain program waiting with pvm_nrecv and a
#                  blocking poll() on PVM's sockets (no timer)
# and checks that a task ended by pvm_kill loses no event under xab (and
# what PVM's buffered tracer keeps of it).  Prints tables; keeps raw output,
# traces and logs in the output directory.  See docs/performance.md.
set -euo pipefail

readonly PROG=run-libab-bench.sh
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly HERE ROOT=$HERE/..

BUILD=$ROOT/build
OUT=""
ROUNDS=3
RT_N=5000 RT_REPS=7
PL_N=20000 PL_REPS=3
TASK_CORE=0 MON_CORE=1
KILL_K=100
QUICK=0
NICE=0
CHECKS_ONLY=0
PAIRS=0
XAB=xab # the instrumented variant's suffix
ABMON_ARGS=() # --abmon-args

usage() {
  cat <<'EOF'
Usage: bench/run-libab-bench.sh [-b BUILD_DIR] [-o OUT_DIR] [-R ROUNDS] [--quick]
Measure what libab adds per event and per ping-pong roundtrip, against the
uninstrumented program and against PVM's own tracer, in one run.

  -b DIR     build directory holding bench/ and bin/abmon (default: build)
  -o DIR     keep raw results, traces and logs here (default: a new temp dir)
  -R N       interleaved rounds of every configuration (default 3); tables
             show the median over rounds
  --quick    fewer and shorter runs (a smoke test, figures are rough)
  --checks-only
             only the pvm_kill checks, no timing
  --pairs N  only the default mode against plain, in N back-to-back pairs
             (plain then xab, abmon running throughout, shorter runs): the
             least drift between the two, for the 1.10x target
  --abmon-args "ARGS"
             more options for every abmon started, e.g. "--pvm-only" with
             --pairs to measure the default mode through pvmd
  --variant V
             instrumented programs are pingpong-V and libab_record_bench-V
             (default xab): to measure a libab built elsewhere, link the two
             sources against it under these names in the bench directory
  --nice N  run everything (pvmd, tasks, monitors) at nice N, e.g. -10 as
             root, so other jobs on a shared machine stretch the figures less
  --task-core C / --monitor-core C
             core of pvmd and the program (default 0) and of abmon and the
             tracer (default 1)
  -h, --help this text

Needs: pvm, pvm-dev (tracer), taskset; the bench targets built:
  cmake --build build --target bench abmon

Examples:
  1. bench/run-libab-bench.sh
  2. bench/run-libab-bench.sh -b build-bench -o /tmp/libab-bench -R 5
  3. bench/run-libab-bench.sh --quick
  4. sudo bench/run-libab-bench.sh --nice -10 -R 5   # on a shared machine
  5. bench/run-libab-bench.sh --checks-only          # does pvm_kill lose events?
EOF
}

die() { echo "$PROG: $*" >&2; exit 1; }

parse_args() {
  while (($#)); do
    case $1 in
      -b) BUILD=$2; shift ;;
      -o) OUT=$2; shift ;;
      -R) ROUNDS=$2; shift ;;
      --quick) QUICK=1 ;;
      --checks-only) CHECKS_ONLY=1 ;;
      --pairs) PAIRS=$2; shift ;;
      --variant) XAB=$2; shift ;;
      --abmon-args) read -r -a ABMON_ARGS <<<"$2"; shift ;;
      --nice) NICE=$2; shift ;;
      --task-core) TASK_CORE=$2; shift ;;
      --monitor-core) MON_CORE=$2; shift ;;
      -h | --help) usage; exit 0 ;;
      *) usage >&2; exit 2 ;;
    esac
    shift
  done
  if ((QUICK)); then ROUNDS=1 RT_N=1000 RT_REPS=3 PL_N=5000 PL_REPS=1; fi
  BUILD=$(cd "$BUILD" && pwd) || die "no build directory $BUILD"
  BENCH=$BUILD/bench
  ABMON=$BUILD/bin/abmon
  local f
  for f in pingpong-plain "pingpong-$XAB" libab_record_bench-plain "libab_record_bench-$XAB"; do
    [[ -x $BENCH/$f ]] || die "$BENCH/$f missing: cmake --build $BUILD --target bench"
  done
  [[ -x $ABMON ]] || die "$ABMON missing: cmake --build $BUILD --target abmon"
  command -v tracer >/dev/null || die "PVM's tracer not found (package pvm-dev)"
  command -v taskset >/dev/null || die "taskset not found (package util-linux)"
  if [[ -z $OUT ]]; then OUT=$(mktemp -d /tmp/libab-bench.XXXXXX); fi
  mkdir -p "$OUT"
  OUT=$(cd "$OUT" && pwd)
  RAW=$OUT/raw.txt
  : >"$RAW"
}

# ---------------------------------------------------------------- the VM

VM=""
MON_PID=""
TRACER_FD_OPEN=0

cleanup() {
  stop_monitor || true
  if [[ -n $VM ]]; then XAB_VM_QUIET=1 "$ROOT/scripts/pvm-vm.sh" stop "$VM" || true; fi
}

start_vm() {
  VM=$(mktemp -d /tmp/lbvm.XXXXXX) # short: pvmd's socket path must fit
  # A loaded machine can make pvmd slow to answer: give it time.
  XAB_VM_QUIET=1 XAB_VM_START_WAIT_S=60 taskset -c "$TASK_CORE" "$ROOT/scripts/pvm-vm.sh" start "$VM" "$BENCH" "$BUILD/bin"
  # shellcheck disable=SC1091
  source "$VM/env"
  trap cleanup EXIT
}

# ---------------------------------------------------------------- monitors

# Wait until FILE has stopped growing (the monitor has drained what the
# tasks sent), at most 60 s.
wait_quiet() {
  local file=$1 last=-1 size i same=0
  for ((i = 0; i < 600; i++)); do
    size=$(stat -c %s "$file" 2>/dev/null || echo 0)
    if ((size == last)); then ((++same >= 4)) && return 0; else same=0; fi
    last=$size
    sleep 0.25
  done
}

# start_abmon NAME CORE [abmon options]: abmon writes $OUT/NAME.xab
start_abmon() {
  local name=$1 core=$2; shift 2
  MON_KIND=abmon MON_FILE=$OUT/$name.xab
  rm -f "$MON_FILE" # a previous round's file already says abmon.start
  taskset -c "$core" "$ABMON" -q -o "$MON_FILE" "$@" "${ABMON_ARGS[@]}" 2>"$OUT/$name.abmon.log" &
  MON_PID=$!
  local i
  for ((i = 0; i < 100; i++)); do
    grep -q 'abmon.start' "$MON_FILE" 2>/dev/null && break
    kill -0 "$MON_PID" 2>/dev/null || die "abmon failed: $(cat "$OUT/$name.abmon.log")"
    sleep 0.1
  done
  ((i < 100)) || die "abmon did not start"
  probe_abmon "$name"
}

# Wait until an instrumented task finds abmon (abmon registers before it
# writes abmon.start, so one try should do; the tries are in raw.txt).
probe_abmon() {
  local i err
  for ((i = 1; i <= 50; i++)); do
    err=$("$BENCH/libab_record_bench-$XAB" -w 1 -r 1 2>&1 >/dev/null) || true
    if [[ $err != *"not running"* ]]; then
      echo "abmonprobe config=$1 tries=$i" >>"$RAW"
      return 0
    fi
    sleep 0.1
  done
  die "no task finds abmon ($1) after 50 tries: $err"
}

# start_tracer NAME [-B bytes]: PVM's tracer, commands from a FIFO (it
# reads standard input and quits at its end), trace in $OUT/NAME.trc
start_tracer() {
  local name=$1; shift
  MON_KIND=tracer MON_FILE=$OUT/$name.trc
  local fifo=$OUT/$name.fifo
  rm -f "$fifo" "$MON_FILE"
  mkfifo "$fifo"
  taskset -c "$MON_CORE" tracer -T "$MON_FILE" "$@" full <"$fifo" >"$OUT/$name.tracer.log" 2>&1 &
  MON_PID=$!
  exec 7>"$fifo" # keeps the tracer's stdin open until stop_monitor
  TRACER_FD_OPEN=1
  local i
  for ((i = 0; i < 100; i++)); do
    grep -q 'tracer>' "$OUT/$name.tracer.log" 2>/dev/null && [[ -s $MON_FILE ]] && return 0
    kill -0 "$MON_PID" 2>/dev/null || die "tracer failed: $(cat "$OUT/$name.tracer.log")"
    sleep 0.1
  done
  die "tracer did not start"
}

# stop_monitor [nodrain]: abmon is stopped once it has written everything;
# PVM's tracer lags far behind a busy program (minutes for a few 100k
# events), so after a timing run it is stopped without draining.
stop_monitor() {
  [[ -n $MON_PID ]] || return 0
  if [[ ${1:-} == nodrain && $MON_KIND == tracer ]]; then sleep 1; else wait_quiet "$MON_FILE"; fi
  if [[ $MON_KIND == tracer ]]; then
    if ((TRACER_FD_OPEN)); then exec 7>&-; TRACER_FD_OPEN=0; fi
  else
    kill -INT "$MON_PID" 2>/dev/null || true
  fi
  wait "$MON_PID" 2>/dev/null || true
  MON_PID=""
  [[ $MON_KIND == abmon ]] && check_monitored
  CHECKS=()
}

# Every instrumented run must have been monitored throughout: libab gives
# up on abmon after 3 failed sends, and a task that finds no abmon runs
# plain -- its figures would then be the plain program's.  Count each
# master's records (6 per roundtrip, 3 per message: libab's own count).
CHECKS=()
check_monitored() {
  local c config mode tid ops per got
  for c in "${CHECKS[@]}"; do
    read -r config mode tid ops <<<"$c"
    per=$([[ $mode == roundtrip ]] && echo 6 || echo 3)
    got=$(awk -v t="$tid" '$3 == t' "$MON_FILE" | wc -l)
    echo "monitorcheck config=$config mode=$mode tid=$tid expected_min=$((per * ops)) got=$got" \
      "ok=$((got >= per * ops ? 1 : 0))" | tee -a "$RAW" >&2
  done
}

# ---------------------------------------------------------------- runs

# pp CONFIG VARIANT MODE [options]: one pingpong run, its result line
# tagged with the configuration appended to $RAW.
pp() {
  local config=$1 variant=$2 mode=$3; shift 3
  local line
  line=$(taskset -c "$TASK_CORE" "$BENCH/pingpong-$variant" "$mode" "$@" 2>>"$OUT/stderr.log") ||
    die "pingpong-$variant $mode failed (see $OUT/stderr.log)"
  echo "config=$config $line" | tee -a "$RAW" >&2
  if [[ $variant != plain && $mode != kill ]]; then
    CHECKS+=("$config $mode $(sed -n 's/.* tid=\(t[0-9a-f]*\) ops=\([0-9]*\).*/\1 \2/p' <<<"$line")")
  fi
}

both_modes() {
  local config=$1 variant=$2; shift 2
  pp "$config" "$variant" roundtrip -n "$RT_N" -r "$RT_REPS" "$@"
  pp "$config" "$variant" packloop -n "$PL_N" -r "$PL_REPS" "$@"
}

one_round() {
  both_modes plain plain
  pp plain+trecv plain roundtrip -n "$RT_N" -r "$RT_REPS" -t 1
  pp plain+poll plain roundtrip -n "$RT_N" -r "$RT_REPS" -t 2
  start_abmon xab "$MON_CORE"
  both_modes xab "$XAB"
  stop_monitor
  start_abmon xab-samecore "$TASK_CORE"
  both_modes xab-samecore "$XAB"
  stop_monitor
  start_abmon xab-immediate "$MON_CORE" --batch 1
  both_modes xab-immediate "$XAB"
  stop_monitor
  start_abmon xab-pvm "$MON_CORE" --pvm-only
  both_modes xab-pvm "$XAB"
  stop_monitor
  start_abmon xab-immediate-pvm "$MON_CORE" --batch 1 --pvm-only
  both_modes xab-immediate-pvm "$XAB"
  stop_monitor
  # PVM's tracer is 10x slower: fewer roundtrips keep the run short.
  start_tracer pvm-trace
  pp pvm-trace plain roundtrip -n $((RT_N / 5)) -r "$RT_REPS"
  pp pvm-trace plain packloop -n $((PL_N / 5)) -r "$PL_REPS"
  trace_check pvm-trace
  start_tracer pvm-trace-buf -B 65536
  both_modes pvm-trace-buf plain
  trace_check pvm-trace-buf
}

# Evidence that PVM's tracer really traced the tasks: its send and recv
# events so far (it is stopped before it has written them all).
trace_check() {
  local n
  n=$(grep -c '^"\(send\|recv\)(' "$MON_FILE" || true)
  echo "tracecheck config=$1 send_recv_events_written=$n" | tee -a "$RAW" >&2
  ((n > 100)) || die "PVM's tracer wrote no send/recv events to $MON_FILE: tracing did not happen"
  stop_monitor nodrain
}

record_bench() {
  local v line
  start_abmon record "$MON_CORE"
  for v in plain "$XAB" plain "$XAB"; do
    line=$(XAB_BATCH=4096 XAB_FLUSH_MS=1000000 taskset -c "$TASK_CORE" \
      "$BENCH/libab_record_bench-$v" -r $((QUICK ? 50 : 300)) 2>"$OUT/record.stderr")
    if grep -q 'not running\|not monitored' "$OUT/record.stderr"; then
      echo "record: $v ran unmonitored, left out: $(cat "$OUT/record.stderr")" | tee -a "$OUT/stderr.log" >&2
      continue
    fi
    echo "config=record $line" | tee -a "$RAW" >&2
  done
  stop_monitor
}

# ---------------------------------------------------------------- pvm_kill

# victim_check CONFIG VARIANT EVENT KEY PINGPONG_ARGS...: run a pingpong
# kill mode, then count the victim's EVENT records in the monitor's output
# against the number the master printed as KEY=.  abmon: one record per
# call; PVM's tracer: the call's entry event "EVENT(0.0)", whose third field
# is the tid in decimal.
victim_check() {
  local config=$1 variant=$2 event=$3 key=$4; shift 4
  local line victim expected got
  line=$(taskset -c "$TASK_CORE" "$BENCH/pingpong-$variant" "$@" 2>>"$OUT/stderr.log")
  echo "config=$config $line" | tee -a "$RAW" >&2
  victim=$(sed -n 's/.*victim=\(t[0-9a-f]*\).*/\1/p' <<<"$line")
  expected=$(sed -n "s/.*$key=\\([0-9]*\\).*/\\1/p" <<<"$line")
  sleep 1 # the kill reaches the victim, its last message reaches the monitor
  stop_monitor
  if [[ $MON_KIND == abmon ]]; then
    got=$(awk -v t="$victim" -v e="$event" '$3 == t && $4 == e' "$MON_FILE" | wc -l)
  else
    got=$(awk -v t="$((16#${victim#t}))" -v e="\"$event(0.0)\"" '$1 == e { gsub(/,/, "", $5); if ($5 == t) n++ } END { print n + 0 }' "$MON_FILE")
  fi
  echo "killcheck config=$config victim=$victim expected=$expected kept=$got" | tee -a "$RAW" >&2
}

# kill_check CONFIG VARIANT [MODE]: the victim is killed after K pvm_mytid
# calls, computing (kill) or blocked in a receive (killrecv).
kill_check() {
  victim_check "$1" "$2" mytid expected_mytid "${3:-kill}" -k "$KILL_K"
}

# killsend_check CONFIG VARIANT ROUTE: the victim is killed while sending
# (-d 0: its messages queue in its socket to pvmd).  Every message that
# reached the master must have its send record.
killsend_check() {
  victim_check "$1" "$2" send received killsend -d "$3"
}

kill_checks() {
  start_abmon kill-xab "$MON_CORE"
  kill_check kill-xab "$XAB"
  # killed while blocked in a receive, before abmon's first poke (500 ms
  # after its last message): its SIGTERM handler writes the records to
  # abmon's local socket
  start_abmon killrecv-xab "$MON_CORE" --poke-ms 500
  kill_check killrecv-xab "$XAB" killrecv
  # the same through pvmd (--pvm-only): a blocked task's records wait for
  # the poke
  start_abmon kill-xab-pvm "$MON_CORE" --pvm-only
  kill_check kill-xab-pvm "$XAB"
  start_abmon killrecv-xab-pvm "$MON_CORE" --poke-ms 500 --pvm-only
  kill_check killrecv-xab-pvm "$XAB" killrecv
  start_tracer kill-pvm-trace
  kill_check kill-pvm-trace plain
  start_tracer kill-pvm-trace-buf -B 65536
  kill_check kill-pvm-trace-buf plain
  local r
  for r in 1 2 3; do
    start_abmon killsend-xab-direct "$MON_CORE"
    killsend_check killsend-xab-direct "$XAB" 1
    start_abmon killsend-xab-pvmd "$MON_CORE"
    killsend_check killsend-xab-pvmd "$XAB" 0
    start_abmon killsend-xab-pvm-only "$MON_CORE" --pvm-only
    killsend_check killsend-xab-pvm-only "$XAB" 0
  done
  start_tracer killsend-pvm-trace-buf -B 65536
  killsend_check killsend-pvm-trace-buf plain 0
}

# ---------------------------------------------------------------- pairs

# Plain and xab back to back, N times, with abmon running all along (the
# plain program does not talk to it): the machine drifts less between the
# two halves of a pair than between the configurations of a round.
pairs() {
  local i
  start_abmon pairs "$MON_CORE"
  for ((i = 1; i <= PAIRS; i++)); do
    echo "-- pair $i of $PAIRS" >&2
    pp pair-plain plain roundtrip -n "$RT_N" -r 3
    pp pair-xab "$XAB" roundtrip -n "$RT_N" -r 3
    pp pair-plain plain packloop -n "$PL_N" -r 1
    pp pair-xab "$XAB" packloop -n "$PL_N" -r 1
  done
  stop_monitor # checks that every xab run was monitored
}

pairs_report() {
  echo
  echo "== libab default mode against plain: $(date -u +%FT%TZ), $PAIRS back-to-back pairs, nice $NICE${ABMON_ARGS[*]:+, abmon ${ABMON_ARGS[*]}}"
  echo "   load average before: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg)"
  awk '
    function median(a, n,   i, j, t) {
      for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
      return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
    }
    /^config=pair-/ {
      cfg = substr($1, 13); mode = $2
      for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      wall = mode == "roundtrip" ? v["median_us"] : v["median_ns"]
      cpu = mode == "roundtrip" ? v["cpu_us"] : v["cpu_ns"]
      k = ++n[mode, cfg]; W[mode, cfg, k] = wall; C[mode, cfg, k] = cpu
    }
    END {
      printf "  %-10s %12s %12s %12s %12s %14s %14s\n", "mode", "plain wall", "xab wall", "plain cpu", "xab cpu", "x plain wall", "x plain cpu"
      split("roundtrip packloop", modes, " ")
      for (m = 1; m <= 2; m++) {
        mode = modes[m]; np = n[mode, "plain"]; nx = n[mode, "xab"]
        if (!np || np != nx) continue
        for (k = 1; k <= np; k++) {
          pw[k] = W[mode, "plain", k]; xw[k] = W[mode, "xab", k]; rw[k] = xw[k] / pw[k]
          pc[k] = C[mode, "plain", k]; xc[k] = C[mode, "xab", k]; rc[k] = xc[k] / pc[k]
        }
        printf "  %-10s %12.2f %12.2f %12.2f %12.2f %14.3f %14.3f\n", mode, median(pw, np), median(xw, np), median(pc, np), median(xc, np), median(rw, np), median(rc, np)
      }
      print "  (medians over pairs; x plain: median of each pair'"'"'s ratio; roundtrip in us, packloop in ns per message)"
    }' "$RAW"
}

# ---------------------------------------------------------------- report

report() {
  echo
  echo "== libab overhead: $(date -u +%FT%TZ), $(nproc) cores, $(uname -r), $ROUNDS round(s)"
  echo "   pvmd and the two tasks on core $TASK_CORE, abmon/tracer on core $MON_CORE unless 'samecore', nice $NICE"
  echo "   load average before: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg)"
  awk -f "$HERE/libab_report.awk" "$RAW"
}

main() {
  parse_args "$@"
  # pvmd, the tasks it spawns and the monitors all inherit it
  if ((NICE)); then renice -n "$NICE" -p $$ >/dev/null || die "cannot renice to $NICE"; fi
  start_vm
  LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
  local r
  if ((PAIRS > 0)); then
    pairs
    pairs_report | tee "$OUT/report.txt"
    echo "(raw results, traces and logs: $OUT)"
    return
  fi
  if ((!CHECKS_ONLY)); then
    for ((r = 1; r <= ROUNDS; r++)); do
      echo "-- round $r of $ROUNDS" >&2
      one_round
    done
    record_bench
  fi
  kill_checks
  report | tee "$OUT/report.txt"
  echo "(raw results, traces and logs: $OUT)"
}

main "$@"
