#!/bin/bash
# sched_trace.sh -- what the scheduler does on the tasks' core in plain and
# traced runs of bench/mworker: the indirect intrusion that intrusion
# compensation cannot take out (docs/compensation.md, "Limits";
# docs/performance.md, "Intrusion compensation").
#
#   bench/sched_trace.sh [-b BUILD_DIR] [-r RUNS] [--batch N] [-- MWORKER_ARGS...]
#
# In a private virtual machine pinned to core 0 (pvmd and every task it
# spawns), abmon on core 1 (--batch N, default 1: immediate mode), RUNS
# rounds of mworker-plain then mworker-xab, each run recorded with the
# kernel's scheduler events (tracefs: sched_switch, sched_waking).  Per
# kind of run, the mean over the runs of: the run's span on core 0, the
# time core 0 was idle, the context switches away from the program's
# tasks and from pvmd, how many of those were pre-emptions (the process
# was still runnable), and the wake-ups of the tasks by pvmd, by other
# tasks and by abmon (from core 1: clock exchanges).  What the traced runs
# have more of is work the scheduler does because of xab, which no clock
# in libab sees.  Tracing every switch slows both kinds of run, the
# traced more (it has more switches): compare counts, not spans, with
# bench/compensate_bench.sh's.  Needs root (tracefs); mounts it at
# /sys/kernel/tracing when it is not there, and unmounts only what it
# mounted; puts back the events, buffer size and on/off it found (what
# the buffer held before is lost).
#
# Example: bench/sched_trace.sh -b build -r 5
set -euo pipefail
BUILD=build RUNS=3 BATCH=1
while [ $# -gt 0 ]; do
  case $1 in
    -b) BUILD=$2; shift 2 ;;
    -r) RUNS=$2; shift 2 ;;
    --batch) BATCH=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "sched_trace.sh: unknown argument $1" >&2; exit 1 ;;
  esac
done
ARGS=("$@")
[ "$(id -u)" = 0 ] || { echo "sched_trace.sh: needs root (the kernel's tracefs)" >&2; exit 1; }
command -v taskset > /dev/null || { echo "sched_trace.sh: taskset not found (util-linux)" >&2; exit 1; }
BIN=$(cd "$BUILD/bin" && pwd)
BENCH=$(cd "$BUILD/bench" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
VMSH=$HERE/../scripts/pvm-vm.sh
[ -x "$VMSH" ] || VMSH=$(git -C "$HERE" rev-parse --show-toplevel)/scripts/pvm-vm.sh
T=/sys/kernel/tracing
MOUNTED=0 SAVED=0 WORK='' MON=''
cleanup() {  # tracing as it was found (its buffer's contents are gone), tracefs unmounted if we mounted it
  if ((SAVED)); then
    echo 0 > "$T/tracing_on"
    echo > "$T/set_event"
    echo > "$T/trace"
    echo "$OLD_BUFFER" > "$T/buffer_size_kb" 2> /dev/null || true
    local ev
    for ev in $OLD_EVENTS; do echo "$ev" >> "$T/set_event" 2> /dev/null || true; done
    echo "$OLD_ON" > "$T/tracing_on"
  fi
  if [ -n "$MON" ]; then kill -INT "$MON" 2> /dev/null || true; wait "$MON" 2> /dev/null || true; fi
  if [ -n "$WORK" ]; then
    "$VMSH" stop "$WORK/vm" > /dev/null 2>&1 || true
    rm -rf "$WORK"
  fi
  if ((MOUNTED)); then umount "$T"; fi
}
trap cleanup EXIT
if [ ! -e "$T/trace" ]; then
  mount -t tracefs nodev "$T" || { echo "sched_trace.sh: cannot mount tracefs at $T" >&2; exit 1; }
  MOUNTED=1
fi
[ -w "$T/set_event" ] || { echo "sched_trace.sh: $T/set_event is not writable" >&2; exit 1; }
OLD_BUFFER=$(cat "$T/buffer_size_kb") OLD_ON=$(cat "$T/tracing_on")
OLD_EVENTS=$(cat "$T/set_event")
SAVED=1
WORK=$(mktemp -d /tmp/xab-sched-trace-XXXXXX)
XAB_VM_QUIET=1 XAB_VM_START_WAIT_S=60 taskset -c 0 "$VMSH" start "$WORK/vm" "$BENCH" "$BIN"
# shellcheck disable=SC1091
source "$WORK/vm/env"
taskset -c 1 "$BIN/abmon" --batch "$BATCH" > "$WORK/trace" 2> "$WORK/abmon.err" &
MON=$!
sleep 1
echo 0 > "$T/tracing_on"
echo 16384 > "$T/buffer_size_kb"
echo 'sched:sched_switch sched:sched_waking' > "$T/set_event"
echo "sched_trace: $RUNS runs each, mworker ${ARGS[*]:-(defaults)}; tasks on core 0, abmon on core 1 (--batch $BATCH)"
for i in $(seq 1 "$RUNS"); do
  for kind in plain xab; do
    echo > "$T/trace"
    echo 1 > "$T/tracing_on"
    taskset -c 0 "$BENCH/mworker-$kind" "${ARGS[@]}" > "$WORK/out.$kind.$i"
    echo 0 > "$T/tracing_on"
    cp "$T/trace" "$WORK/sched.$kind.$i"
  done
done
python3 - "$WORK" "$RUNS" <<'PY'
import re, statistics as st, sys
work, runs = sys.argv[1], int(sys.argv[2])
line = re.compile(r'\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (sched_\w+): (.*)')
def who(comm):  # the program's tasks, pvmd, abmon, or the rest
    return "task" if comm.startswith("mworker") else comm if comm in ("pvmd", "abmon") else "other"
def one(path):
    f = dict(span=0.0, idle=0.0, sw_task=0, sw_pvmd=0, pre_task=0, pre_pvmd=0, wake_by_pvmd=0, wake_by_task=0, wake_by_abmon=0)
    first = last = idle_from = None
    for l in open(path):
        m = line.match(l)
        if not m:
            continue
        comm, _, cpu, ts, ev, rest = m.groups()
        cpu, ts = int(cpu), float(ts)
        if ev == "sched_waking":
            target = re.search(r"comm=(\S+)", rest)[1]
            if int(re.search(r"target_cpu=(\d+)", rest)[1]) == 0 and who(target) == "task":
                waker = who(comm)
                if waker in ("pvmd", "task", "abmon"):
                    f["wake_by_" + waker] += 1
            continue
        if cpu != 0:
            continue
        d = dict(kv.split("=", 1) for kv in re.findall(r"(\w+=\S+)", rest))
        first = ts if first is None else first
        last = ts
        if d["prev_comm"].startswith("swapper") and idle_from is not None:
            f["idle"] += ts - idle_from
            idle_from = None
        if d["next_comm"].startswith("swapper"):
            idle_from = ts
        p = who(d["prev_comm"])
        if p in ("task", "pvmd"):
            f["sw_" + p] += 1
            f["pre_" + p] += d["prev_state"].startswith("R")
    f["span"] = (last - first) if first is not None else 0.0
    return f
rows = {k: [one(f"{work}/sched.{k}.{i}") for i in range(1, runs + 1)] for k in ("plain", "xab")}
names = [("span", "span on core 0, ms", 1e3), ("idle", "core 0 idle, ms", 1e3),
         ("sw_task", "switches away from the tasks", 1), ("pre_task", "  of them pre-emptions", 1),
         ("sw_pvmd", "switches away from pvmd", 1), ("pre_pvmd", "  of them pre-emptions", 1),
         ("wake_by_pvmd", "tasks woken by pvmd", 1), ("wake_by_task", "tasks woken by tasks", 1),
         ("wake_by_abmon", "tasks woken by abmon", 1)]
print(f'{"(mean over " + str(runs) + " runs)":<34} {"plain":>9} {"traced":>9} {"traced-plain":>13}')
for key, label, scale in names:
    p = st.mean(r[key] for r in rows["plain"]) * scale
    x = st.mean(r[key] for r in rows["xab"]) * scale
    print(f"{label:<34} {p:9.1f} {x:9.1f} {x - p:+13.1f}")
PY
