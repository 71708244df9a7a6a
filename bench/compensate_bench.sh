#!/bin/bash
# compensate_bench.sh -- how close intrusion compensation comes to the
# plain run (docs/performance.md "Intrusion compensation").
#
#   bench/compensate_bench.sh [-b BUILD_DIR] [-r RUNS] [--knob NS] [--one-monitor]
#                             [--task-core N] [--monitor-core N] [--keep DIR]
#                             [-- MWORKER_ARGS...]
#
# In a private virtual machine, RUNS rounds of: mworker-plain (no xab),
# mworker-xab under abmon in default mode (--batch 512), mworker-plain
# again, mworker-xab in immediate mode (--batch 1): plain and traced runs
# interleave, so that a change of the machine's load hits both alike.  The
# VM (pvmd and every task it spawns) runs on core --task-core (default 0),
# abmon on --monitor-core (default 1), as bench/run-libab-bench.sh does;
# an empty core (--task-core '') leaves that side to the scheduler.
# Each traced run is paired with the plain run just before it: per task,
# the traced run's run time as recorded (raw) and compensated (abstat
# --compensate), as errors against that plain run.  The summary gives the
# median over the rounds of each error, and the spread of the plain runs;
# and each task's CPU time (mworker's cpu_ns) in the traced run less the
# plain run's ("cpu +ms") beside what libab timed of it ("timed ms": its
# records, sends to abmon and clock exchanges): what no clock in libab saw
# is the difference; and how many times more the task blocked ("blocks
# +", its voluntary context switches, traced less plain), beside the
# receives abstat finds waited only because of xab ("xab waits").
# --one-monitor: one abmon per mode for all its rounds (RUNS pairs of
# plain, traced, each pair within a second: the machine's speed, which
# drifts by 10-20 % here, hardly moves within one), the traced runs in
# one trace, told apart by their tasks' order; many rounds in little time.
# --keep DIR: keep each traced run's trace, abstat's JSON of it and the
# runs' outputs in DIR/MODE/ (--one-monitor) or DIR/MODE.ROUND/.
# --knob NS: every record costs NS ns more (XAB_TEST_RECORD_COST_NS, a
# test knob, docs/libab.md): a known intrusion far above the noise.
# The summary's last lines give abmon's CPU time in each mode (all its
# rounds, plain runs and pauses included); "pvmd +ms" is pvmd's CPU time
# in the traced run less the plain run's (one figure a run, on each of
# its tasks' rows): what xab made it do forwarding the program's messages.
# A line per mode sets the master's excess beside the CPU xab added on the
# tasks' core (the tasks' and pvmd's, traced less plain) and what libab
# timed of it: the untimed rest, as a share of the master's plain run, is
# what no compensation from the trace can take out.
#
# On an idle machine: bench/compensate_bench.sh -b build -r 21
set -euo pipefail
BUILD=build RUNS=9 KNOB='' TASK_CORE=0 MON_CORE=1 ONE_MONITOR=0 KEEP=''
while [ $# -gt 0 ]; do
  case $1 in
    -b) BUILD=$2; shift 2 ;;
    -r) RUNS=$2; shift 2 ;;
    --knob) KNOB=$2; shift 2 ;;
    --one-monitor) ONE_MONITOR=1; shift ;;
    --keep) KEEP=$2; shift 2 ;;
    --task-core) TASK_CORE=$2; shift 2 ;;
    --monitor-core) MON_CORE=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,43p' "$0"; exit 0 ;;
    *) echo "compensate_bench.sh: unknown argument $1" >&2; exit 1 ;;
  esac
done
ARGS=("$@")
BIN=$(cd "$BUILD/bin" && pwd)
[ -z "$KNOB" ] || grep -qa XAB_TEST_RECORD_COST_NS "$BIN/xabdemo" || { echo "compensate_bench.sh: --knob: $BUILD has no XAB_TEST_* knobs: use a build configured with -DXAB_TEST_KNOBS=ON (scripts/test.sh makes build-test)" >&2; exit 2; }
BENCH=$(cd "$BUILD/bench" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
VMSH=$HERE/../scripts/pvm-vm.sh
[ -x "$VMSH" ] || VMSH=$(git -C "$HERE" rev-parse --show-toplevel)/scripts/pvm-vm.sh
command -v taskset > /dev/null || { echo "compensate_bench.sh: taskset not found (util-linux)" >&2; exit 1; }
WORK=$(mktemp -d /tmp/xab-comp-bench-XXXXXX)
MON=''
# From here on: abmon, the VM and the work directory go however the bench ends.
trap '[ -n "$MON" ] && kill -INT "$MON" 2> /dev/null; "$VMSH" stop "$WORK/vm" > /dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
[ -n "$KNOB" ] && export XAB_TEST_RECORD_COST_NS=$KNOB  # pvm-vm.sh exports XAB_ variables to spawned tasks
# Command prefixes: on a core, or anywhere when the core is empty (a prefix,
# not a shell function, so that abmon in the background gets SIGINT itself).
TASK_PIN=() MON_PIN=()
[ -n "$TASK_CORE" ] && TASK_PIN=(taskset -c "$TASK_CORE")
[ -n "$MON_CORE" ] && MON_PIN=(taskset -c "$MON_CORE")
XAB_VM_QUIET=1 XAB_VM_START_WAIT_S=60 "${TASK_PIN[@]}" "$VMSH" start "$WORK/vm" "$BENCH" "$BIN"
# shellcheck disable=SC1091
source "$WORK/vm/env"

# pvmd's CPU time so far, ns (the first field of /proc/PID/schedstat): what
# it spends forwarding a run's messages, traced or not.
PVMD=$(cat "$WORK/vm/pvmd.pid")
pvmd_cpu() { cut -d' ' -f1 "/proc/$PVMD/schedstat"; }
run() {  # $1: the program, $2: where its per task lines go, and pvmd's CPU in $2.pvmd
  local before
  before=$(pvmd_cpu)
  "${TASK_PIN[@]}" "$1" "${ARGS[@]}" > "$2"
  echo $(($(pvmd_cpu) - before)) > "$2.pvmd"
}
plain() { run "$BENCH/mworker-plain" "$1"; }  # $1: where the per task lines go

monitor_start() {  # $1: abmon's --batch, $2: the trace
  "${MON_PIN[@]}" "$BIN/abmon" --batch "$1" > "$2" 2> "$WORK/abmon.err" &
  MON=$!
  sleep 1
}
monitor_stop() {  # $1: the mode, whose abmon CPU time (ticks) grows
  sleep 1
  # utime and stime, fields 14 and 15 of /proc/PID/stat (after the ") ").
  read -r -a stat <<< "$(sed 's/.*) //' "/proc/$MON/stat")"
  echo "$1 $((stat[11] + stat[12]))" >> "$WORK/abmon_cpu"
  kill -INT "$MON"
  wait "$MON" || true
  MON=''
}

traced() { run "$BENCH/mworker-xab" "$1"; }  # $1: where mworker's per task lines go

# One row per task of each traced run: round mode task plain raw comp
# intrusion plain_cpu traced_cpu own (s; own: the CPU libab timed in the
# task, its records, sends and clock exchanges) plain_blocks traced_blocks
# (voluntary context switches) xab_waits (abstat's: receives that waited
# only because of xab) plain_pvmd traced_pvmd (s: pvmd's CPU in the run).
# The runs' tasks follow one another in the trace's order, each run's
# master first, then its workers in spawn order.
rows() {  # $1 mode, $2 compensation JSON, then ROUND PLAIN_LINES TRACED_LINES for each run in the trace
  python3 - "$@" >> "$WORK/rows" <<'PY'
import json, sys
def pvmd(path):  # pvmd's CPU during the run, s
    try: return int(open(path + ".pvmd").read()) / 1e9
    except (OSError, ValueError): return 0.0
def runs(path):  # task -> (wall s, cpu s, voluntary context switches)
    out = {}
    for l in open(path):
        if l.startswith("task="):
            f = dict(w.split("=", 1) for w in l.split())
            out[f["task"]] = (int(f["wall_ns"]) / 1e9, int(f.get("cpu_ns", 0)) / 1e9, int(f.get("vcsw", 0)))
    return out
mode, comp, first = sys.argv[1], json.load(open(sys.argv[2]))["compensation"]["tasks"], 0
for k in range(3, len(sys.argv), 3):
    rnd, plain, traced = sys.argv[k], runs(sys.argv[k + 1]), runs(sys.argv[k + 2])
    mine, first = comp[first:first + len(traced)], first + len(traced)
    names = ["master"] + [f"worker{w}" for w in range(1, len(mine))]
    for name, c in zip(names, mine):
        if name in plain:
            own = c["recordTime"] + c["sendTime"] + c["clockTime"]
            print(rnd, mode, name, plain[name][0], c["run"], c["compensatedRun"], c["intrusion"],
                  plain[name][1], traced.get(name, (0, 0, 0))[1], own, plain[name][2], traced.get(name, (0, 0, 0))[2],
                  c.get("xabWaits", 0), pvmd(sys.argv[k + 1]), pvmd(sys.argv[k + 2]))
PY
}

echo "compensate_bench: $RUNS rounds, mworker ${ARGS[*]:-(defaults)}${KNOB:+, knob $KNOB ns}; tasks on core ${TASK_CORE:-any}, abmon on core ${MON_CORE:-any}"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
keep() {  # $1: a name; the trace, its JSON and the files after it go to --keep's DIR/NAME/
  [ -n "$KEEP" ] || return 0
  local to=$KEEP/$1
  shift
  mkdir -p "$to"
  cp "$WORK/trace" "$WORK/j.json" "$@" "$to/"
}
compensation() {  # $1 trace, $2 JSON
  "$BIN/abstat" --json --tasks --compensate "$1" > "$2" 2> /dev/null || true
}
: > "$WORK/rows"
: > "$WORK/abmon_cpu"
if ((ONE_MONITOR)); then
  for mode in default:512 immediate:1; do
    monitor_start "${mode#*:}" "$WORK/trace"
    for i in $(seq 1 "$RUNS"); do
      plain "$WORK/plain.$i"
      traced "$WORK/traced.$i"
    done
    monitor_stop "${mode%%:*}"
    compensation "$WORK/trace" "$WORK/j.json"
    keep "${mode%%:*}" "$WORK"/plain.* "$WORK"/traced.*
    pairs=()
    for i in $(seq 1 "$RUNS"); do pairs+=("$i" "$WORK/plain.$i" "$WORK/traced.$i"); done
    rows "${mode%%:*}" "$WORK/j.json" "${pairs[@]}"
  done
else
  for i in $(seq 1 "$RUNS"); do
    for mode in default:512 immediate:1; do
      plain "$WORK/plain"
      monitor_start "${mode#*:}" "$WORK/trace"
      traced "$WORK/traced.out"
      monitor_stop "${mode%%:*}"
      compensation "$WORK/trace" "$WORK/j.json"
      keep "${mode%%:*}.$i" "$WORK/plain" "$WORK/plain.pvmd" "$WORK/traced.out" "$WORK/traced.out.pvmd"
      rows "${mode%%:*}" "$WORK/j.json" "$i" "$WORK/plain" "$WORK/traced.out"
    done
  done
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$WORK/rows" "$WORK/abmon_cpu" "$(getconf CLK_TCK)" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
def med(v): return st.median(v) if v else float("nan")
def ci(v):  # a 95 % confidence interval of the median (order statistics, n/2 -+ 1.96 sqrt(n)/2)
    v, n = sorted(v), len(v)
    k = int(1.96 * n ** 0.5 / 2 + 0.5)
    return (v[max(n // 2 - k, 0)], v[min((n - 1) // 2 + k, n - 1)]) if n else (float("nan"),) * 2
print(f'{"mode":<10} {"task":<8} {"plain s":>9} {"spread":>7} {"raw err":>8} {"comp err":>9} {"95% CI":>14} {"|comp| max":>10} {"intrusion":>9} {"cpu +ms":>8} {"timed ms":>8} {"blocks +":>8} {"xab waits":>9} {"pvmd +ms":>8}')
print(f'(medians over {len({r[0] for r in rows})} rounds; errors against the plain run just before; CI: of the compensated median)')
for mode in ("default", "immediate"):
    tasks = sorted({r[2] for r in rows if r[1] == mode}, key=lambda n: (n != "master", n))
    for task in tasks:
        sel = [r for r in rows if r[1] == mode and r[2] == task]
        p = [float(r[3]) for r in sel]
        raw = [100 * (float(r[4]) - float(r[3])) / float(r[3]) for r in sel]
        comp = [100 * (float(r[5]) - float(r[3])) / float(r[3]) for r in sel]
        share = [100 * float(r[6]) for r in sel]
        cpu = [1e3 * (float(r[8]) - float(r[7])) for r in sel]  # the task's CPU, traced less plain
        timed = [1e3 * float(r[9]) for r in sel]                # of it, what libab timed
        blocks = [int(r[11]) - int(r[10]) for r in sel]         # voluntary context switches, traced less plain
        waits = [int(r[12]) for r in sel]                       # receives that waited only because of xab (abstat)
        pvmd = [1e3 * (float(r[14]) - float(r[13])) for r in sel]  # pvmd's CPU, traced less plain (the run's, on every task's row)
        spread = 100 * (max(p) - min(p)) / med(p) / 2 if p else 0
        lo, hi = ci(comp)
        print(f'{mode:<10} {task:<8} {med(p):9.4f} {spread:6.1f}% {med(raw):7.1f}% {med(comp):8.1f}% {f"{lo:+.1f}..{hi:+.1f}%":>14} {max(abs(c) for c in comp):9.1f}% {med(share):8.1f}% {med(cpu):8.1f} {med(timed):8.1f} {med(blocks):8.0f} {med(waits):9.0f} {med(pvmd):8.1f}')
# The core's account, per traced run: its excess (the master's traced run
# less its plain one) beside the CPU xab added on the tasks' core (every
# task's CPU and pvmd's, traced less plain) and what libab timed of it.
# On a core the tasks keep busy the excess is that added CPU; what no
# clock in libab saw of it is left in any compensation made from the
# trace (as a share of the master's plain run: the floor of its error).
for mode in ("default", "immediate"):
    runs = {}
    for r in rows:
        if r[1] == mode: runs.setdefault(r[0], []).append(r)
    excess, added, timed, untimed = [], [], [], []
    for sel in runs.values():
        m = [r for r in sel if r[2] == "master"]
        if not m: continue
        a = sum(float(r[8]) - float(r[7]) for r in sel) + float(sel[0][14]) - float(sel[0][13])
        t = sum(float(r[9]) for r in sel)
        excess.append(1e3 * (float(m[0][4]) - float(m[0][3])))
        added.append(1e3 * a)
        timed.append(1e3 * t)
        untimed.append(100 * (a - t) / float(m[0][3]))
    if excess:
        print(f'{mode}: master +{med(excess):.1f} ms; CPU added on the core {med(added):.1f} ms, libab timed {med(timed):.1f} ms; '
              f'untimed {med(untimed):.1f}% of the master\'s plain run')
ticks = {}
for l in open(sys.argv[2]):
    mode, t = l.split()
    ticks[mode] = ticks.get(mode, 0) + int(t)
for mode in ("default", "immediate"):
    print(f'abmon ({mode}): {ticks.get(mode, 0) / int(sys.argv[3]):.2f} s CPU')
PY
