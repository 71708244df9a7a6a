#!/usr/bin/env bash
# run-load-bench.sh -- the many-hosts load: TASKS instrumented tasks
# (bench/loadtask.c) over HOSTS pseudo-hosts (scripts/pvm-hosts.sh), each
# making CALLS PVM calls, under one abmon on node0 and a relay on every
# other host.  Checks that every call each task says it made is a record in
# the trace, and reports the sustained events/s and the peak memory (VmHWM)
# of abmon and of each relay.  Needs root.  Figures: docs/performance.md.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=$ROOT/build HOSTS_N=8 TASKS=256 CALLS=20000 KEEP=0
ABMON_OPTS=()
PROG=run-load-bench.sh

usage() {
  cat <<'USAGE'
Usage: bench/run-load-bench.sh [-b BUILD_DIR] [--hosts H] [-n TASKS] [-c CALLS]
                               [--relay-pvm] [--keep]
Start H pseudo-hosts (default 8), abmon on node0 (relays on the others),
then loadtask: TASKS tasks (default 256) placed round robin over the hosts,
each making CALLS PVM calls (default 20000).  Prints: records per task
against the calls each task reports (every missing record is an error),
abmon.lost/abmon.bad records, the sustained events/s (task records over
the span of their arrival at abmon), the run's wall time, and the peak
memory (VmHWM) of abmon and of every relay.  --relay-pvm: the relays send
their batches as PVM messages instead of on TCP streams.  --keep: keep the
run's directory (the trace is large).  Exit status 1 if a record is missing.
Needs root and a build with the bench targets (ninja loadtask-xab abmon).
Example:
  bench/run-load-bench.sh -b build-test
USAGE
}

while (($#)); do
  case $1 in
    -b) BUILD=$(cd "$2" && pwd); shift ;;
    --hosts) HOSTS_N=$2; shift ;;
    -n) TASKS=$2; shift ;;
    -c) CALLS=$2; shift ;;
    --relay-pvm) ABMON_OPTS+=(--relay-pvm) ;;
    --keep) KEEP=1 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
  shift
done

VM=/tmp/xabload.$$
hosts() { XAB_HOSTS_QUIET=1 "$ROOT/scripts/pvm-hosts.sh" --dir "$VM" "$@"; }
trap 'hosts down || true; ((KEEP)) || rm -rf "$VM"' EXIT

# The VmHWM (kB) of every process of the VM whose command line matches RE: "pid kB" lines.
hwm() {
  local pid
  for pid in $(hosts pids); do
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -Eq -- "$1" || continue
    awk -v p="$pid" '/^VmHWM:/ { print p, $2 }' "/proc/$pid/status" 2>/dev/null
  done
}

echo "== $PROG: $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
  "$TASKS tasks x $CALLS calls over $HOSTS_N hosts ${ABMON_OPTS[*]}"
hosts up "$HOSTS_N" --bin "$BUILD/bin" --bin "$BUILD/bench"
cd "$VM"
"$ROOT/scripts/pvm-hosts.sh" --dir "$VM" run node0 "$BUILD/bin/abmon" -q -o "$VM/load.trace" "${ABMON_OPTS[@]}" \
  2>"$VM/abmon.err" &
abmon=$!
for ((i = 0; i < 200; i++)); do
  (($(grep -c ' relay.start ' "$VM/load.trace" 2>/dev/null) + 0 >= HOSTS_N - 1)) && break
  sleep 0.1
done
t0=$(date +%s.%N)
hosts run node0 "$BUILD/bench/loadtask-xab" -n "$TASKS" -c "$CALLS" >"$VM/load.out"
t1=$(date +%s.%N)
load=$(cut -d' ' -f1-3 /proc/loadavg)
sleep 1  # the relays' last batches (they send every 50 ms)
hwm "bin/abmon -q" >"$VM/abmon.hwm"
hwm "--relay " >"$VM/relay.hwm"
kill -INT "$abmon"
wait "$abmon" || echo "abmon's status: $?"

awk -v tasks="$TASKS" -v calls="$CALLS" '
  FNR == NR && /^task=/ { split($0, f, /[ =]/); tid = f[2]; want[tid] = f[6] + f[8]; next }
  FNR == NR { next }
  $4 == "nrecv" || $4 == "probe" { got[$3]++; t = $1 + 0; if (first == 0 || t < first) first = t; if (t > last) last = t; n++ }
  $4 == "abmon.lost" || $4 == "abmon.bad" { bad++ }
  END {
    for (t in want) { tasks_seen++; total += want[t]; if (got[t] != want[t]) { missing += want[t] - got[t]; short++ } }
    printf "tasks reporting: %d of %d; calls reported: %d; records of them in the trace: %d\n", tasks_seen, tasks, total, n
    printf "tasks with a record missing: %d (records missing: %d); abmon.lost/abmon.bad records: %d\n", short, missing, bad
    printf "sustained: %.0f events/s (%d records over %.2f s of arrival at abmon)\n", n / (last - first), n, last - first
    exit (short > 0 || tasks_seen != tasks || bad > 0)
  }' "$VM/load.out" "$VM/load.trace" && status=0 || status=1
awk -v a="$t0" -v b="$t1" -v l="$load" 'BEGIN { printf "loadtask wall time: %.2f s (load average at its end: %s)\n", b - a, l }'
echo "trace: $(wc -c <"$VM/load.trace") bytes, $(wc -l <"$VM/load.trace") records"
awk '{ printf "abmon pid %s: VmHWM %.1f MB\n", $1, $2 / 1024 }' "$VM/abmon.hwm"
awk '{ n++; s += $2; if ($2 > m) m = $2 } END { printf "relays: %d, VmHWM max %.1f MB, mean %.1f MB\n", n, m / 1024, n ? s / n / 1024 : 0 }' "$VM/relay.hwm"
((KEEP)) && echo "run directory kept: $VM"
exit "$status"
