#!/usr/bin/env bash
# demo.sh -- set everything up and run the demo under abmon (and xabview).
#
# 1. scripts/setup.sh (packages, build)
# 2. a private PVM virtual machine (scripts/pvm-vm.sh) whose ep= is build/bin
# 3. abmon | tee TRACE | xabview  -- or, with no display, abmon > TRACE
# 4. xabdemo inside the VM (--hang: the Xab paper's tag 16040/16004 bug)
# 5. stop abmon with SIGINT, show the summary (abstat), halt the VM;
#    Ctrl-C at any point does the same cleanup.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${XAB_BUILD_DIR:-$ROOT/build}
BIN=$BUILD_DIR/bin
HANG=0 VIEW=1 SETUP=1 WORKERS=3 ROUNDS=5
HANG_SECONDS=${XAB_DEMO_HANG_S:-5}
TRACE=""

usage() {
  cat <<EOF
Usage: scripts/demo.sh [--hang] [--no-view] [-n N] [--rounds R] [--trace FILE] [--no-setup]
Build xab (scripts/setup.sh), start a private PVM virtual machine, run
abmon | tee TRACE | xabview, run the demo program xabdemo in the VM, then
stop abmon and the VM and print a summary of the trace.

  --hang         run the hang demo: the master waits for tag 16040 while the
                 workers send 16004; stopped after ${HANG_SECONDS}s (XAB_DEMO_HANG_S)
  --no-view      do not start xabview even when a display is available
  -n N           workers (default 3);  --rounds R  rounds (default 5)
  --trace FILE   where abmon's trace goes (default: BUILD/xabdemo.trace)
  --no-setup     skip scripts/setup.sh (use the existing build)
  -h, --help     this text

Examples:
  1. scripts/demo.sh
  2. scripts/demo.sh --hang --no-view
  3. XAB_BUILD_DIR=build-mine scripts/demo.sh --rounds 20
EOF
}

log() { echo "demo.sh: $*"; }
die() { echo "demo.sh: error: $*" >&2; exit 1; }

parse_args() {
  while (($#)); do
    case $1 in
      --hang) HANG=1 ;;
      --no-view) VIEW=0 ;;
      --no-setup) SETUP=0 ;;
      -n) [[ ${2:-} =~ ^[0-9]+$ ]] || die "-n needs a number"; WORKERS=$2; shift ;;
      --rounds) [[ ${2:-} =~ ^[0-9]+$ ]] || die "--rounds needs a number"; ROUNDS=$2; shift ;;
      --trace) [[ -n ${2:-} ]] || die "--trace needs a file"; TRACE=$2; shift ;;
      -h | --help) usage; exit 0 ;;
      *) usage >&2; exit 2 ;;
    esac
    shift
  done
  TRACE=${TRACE:-$BUILD_DIR/xabdemo.trace}
}

# ---- cleanup: only the processes this script started, by pid ----
VM_DIR="" ABMON_PID="" VIEW_PID="" DEMO_PID=""

stop_pid() {  # pid signal seconds
  local pid=$1 sig=$2 i
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 0
  kill "-$sig" "$pid" 2>/dev/null || true
  for ((i = 0; i < $3 * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  trap - EXIT INT TERM
  stop_pid "$DEMO_PID" TERM 3
  stop_pid "$ABMON_PID" INT 5
  if [[ -n $VM_DIR ]]; then
    XAB_VM_QUIET=1 "$ROOT/scripts/pvm-vm.sh" stop "$VM_DIR" || true
    rm -rf "$VM_DIR"
  fi
}

on_signal() {
  echo
  log "interrupted: stopping abmon, the demo and the virtual machine"
  cleanup
  exit 130
}

# A sleep that a trapped SIGINT/SIGTERM interrupts at once (bash runs traps
# only after a foreground command ends, but `wait` returns early).
pause_for() {
  sleep "$1" &
  wait $! || true
}

have_display() {
  [[ -n ${DISPLAY:-} ]] || return 1
  if command -v xdpyinfo >/dev/null; then xdpyinfo >/dev/null 2>&1; return; fi
  command -v xset >/dev/null && xset q >/dev/null 2>&1
}

start_vm() {
  VM_DIR=$(mktemp -d /tmp/xabdemo-vm.XXXXXX)
  "$ROOT/scripts/pvm-vm.sh" start "$VM_DIR" "$BIN"
  # shellcheck disable=SC1091
  source "$VM_DIR/env"
}

# abmon | tee TRACE | xabview, through a FIFO so that we know abmon's pid
# (to stop it with SIGINT, which makes it write its abmon.stop record).
start_monitor() {
  local show=$1
  mkdir -p "$(dirname "$TRACE")"
  if ((show)); then
    mkfifo "$VM_DIR/abmon.fifo"
    "$BIN/abmon" >"$VM_DIR/abmon.fifo" 2>"$VM_DIR/abmon.err" &
    ABMON_PID=$!
    tee "$TRACE" <"$VM_DIR/abmon.fifo" | "$BIN/xabview" &
    VIEW_PID=$!
  else
    "$BIN/abmon" >"$TRACE" 2>"$VM_DIR/abmon.err" &
    ABMON_PID=$!
  fi
  local i
  for ((i = 0; i < 100; i++)); do
    grep -q ' abmon.start ' "$TRACE" 2>/dev/null && return 0
    kill -0 "$ABMON_PID" 2>/dev/null || die "abmon exited: $(cat "$VM_DIR/abmon.err")"
    sleep 0.1
  done
  die "abmon did not start within 10 s: $(cat "$VM_DIR/abmon.err")"
}

run_demo() {
  local args=(-n "$WORKERS" --rounds "$ROUNDS")
  if ((HANG)); then
    log "running: xabdemo --hang ${args[*]}  (it will not finish by itself)"
    "$BIN/xabdemo" --hang "${args[@]}" &
    DEMO_PID=$!
    pause_for "$HANG_SECONDS"
    if kill -0 "$DEMO_PID" 2>/dev/null; then
      log "after ${HANG_SECONDS}s the demo is still blocked, as the paper's Cholesky program was:"
      log "  the master waits in pvm_recv for tag 16040; the workers sent their results with tag 16004."
      log "stopping the master (pid $DEMO_PID); halting the VM stops the workers."
      stop_pid "$DEMO_PID" TERM 3
    else
      log "unexpected: the --hang demo exited by itself"
    fi
    DEMO_PID=""
  else
    log "running: xabdemo ${args[*]}"
    "$BIN/xabdemo" "${args[@]}"
  fi
  pause_for 1  # let the tasks' last event batches reach abmon
}

summary() {
  log "trace: $TRACE ($(grep -vc '^#' "$TRACE") records)"
  if [[ -x $BIN/abstat ]]; then
    "$BIN/abstat" --no-progress "$TRACE" || true  # exit 2 means "hang found", which --hang wants
  else
    log "abstat is not built; the first records of the trace:"
    grep -v '^#' "$TRACE" | head -n 40 | column -t
    log "records per event:"
    awk '!/^#/ {n[$4]++} END {for (e in n) printf "  %-14s %d\n", e, n[e]}' "$TRACE" | sort
  fi
}

main() {
  parse_args "$@"
  if ((SETUP)); then "$ROOT/scripts/setup.sh" --build-dir "$BUILD_DIR"; fi
  local b
  for b in abmon xabdemo; do
    [[ -x $BIN/$b ]] || die "$BIN/$b is not built (run scripts/setup.sh)"
  done
  trap cleanup EXIT
  trap on_signal INT TERM
  start_vm

  local show=0
  if ((VIEW)); then
    if ! have_display; then
      log "no display (DISPLAY unset or not reachable): showing the text summary instead of xabview"
    elif [[ ! -x $BIN/xabview ]]; then
      log "xabview is not built (Qt 6 missing?): showing the text summary instead"
    else
      show=1
    fi
  fi
  start_monitor "$show"
  run_demo
  stop_pid "$ABMON_PID" INT 5
  ABMON_PID=""
  summary
  if ((show)) && kill -0 "$VIEW_PID" 2>/dev/null; then
    log "xabview shows the run; close its window to finish"
    wait "$VIEW_PID" || true
  fi
  cleanup
  log "done; the trace is in $TRACE"
}

main "$@"
