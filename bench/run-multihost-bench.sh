#!/usr/bin/env bash
# run-multihost-bench.sh -- what several pseudo-hosts cost (scripts/pvm-hosts.sh):
# the time `up` takes for 3 and 8 hosts, a PVM round trip between two hosts
# (through the pvmds and direct) against one on the same host, and libab's
# cost on the cross-host round trip (abmon on node0; default and immediate
# mode, with node1's relay and without), plain and xab back to back in the
# same VM.  Needs root.  Figures: docs/performance.md.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=$ROOT/build REPEAT=3 PAIRS=9 N=3000
PROG=run-multihost-bench.sh

usage() {
  cat <<'USAGE'
Usage: bench/run-multihost-bench.sh [-b BUILD_DIR] [--repeat R] [--pairs P] [-n N]
Start 3 and 8 pseudo-hosts R times each (default 3), then on 3 hosts time
round trips of pingpong-plain (-n N round trips, default 3000, 7 reps) on
one host and between node0 and node1, through the pvmds and direct, and P
back-to-back pairs (default 9) of pingpong-plain and pingpong-xab between
node0 and node1 under abmon on node0, four times: default and immediate
mode (abmon --batch 1), with a relay on node1 (the default) and with
--no-relays.  Prints medians.  Needs root.
Example:
  1. bench/run-multihost-bench.sh -b build-test
USAGE
}

while (($#)); do
  case $1 in
    -b) BUILD=$(cd "$2" && pwd); shift ;;
    --repeat) REPEAT=$2; shift ;;
    --pairs) PAIRS=$2; shift ;;
    -n) N=$2; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
  shift
done

VM=/tmp/xabmh-bench.$$
hosts() { XAB_HOSTS_QUIET=1 "$ROOT/scripts/pvm-hosts.sh" --dir "$VM" "$@"; }
trap 'hosts down' EXIT
median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { sed -n "s/.* $1=\\([0-9.]*\\).*/\\1/p"; }

echo "== $PROG: $(date -u +%FT%TZ), $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
for n in 3 8; do
  for ((i = 0; i < REPEAT; i++)); do
    t0=$(date +%s.%N)
    hosts up "$n" --bin "$BUILD/bin" --bin "$BUILD/bench"
    awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }'
    hosts down
  done | median | xargs printf "up %d hosts (namespaces, pvmds, until conf lists them all): %.2f s median of $REPEAT\n" "$n"
done

hosts up 3 --bin "$BUILD/bin" --bin "$BUILD/bench"
cd "$VM"
pp() { hosts run node0 "$BUILD/bench/pingpong-$1" roundtrip -n "$N" -r 7 "${@:2}"; }
for route in 0 1; do
  for host in node0 node1; do
    line=$(pp plain -d "$route" -H "$host")
    printf 'plain round trip, %-6s node0 -> %s: median %8.1f us, cpu %6.1f us (%s)\n' \
      "$([[ $route == 1 ]] && echo direct || echo pvmd)" "$host" "$(field median_us <<<"$line")" \
      "$(field cpu_us <<<"$line")" "partner ${line##*partner=}"
  done
done

# pairs LABEL ABMON_OPTIONS...: P back-to-back pairs of plain and xab
# under one abmon on node0 started with those options.
pairs() {
  local label=$1; shift
  rm -f "$VM/pairs.trace"
  "$ROOT/scripts/pvm-hosts.sh" --dir "$VM" run node0 "$BUILD/bin/abmon" -q -o "$VM/pairs.trace" "$@" &
  local abmon=$! i v line
  for ((i = 0; i < 100; i++)); do grep -qs ' abmon.start ' "$VM/pairs.trace" && break; sleep 0.1; done
  sleep 0.5
  for ((i = 1; i <= PAIRS; i++)); do
    for v in plain xab; do
      line=$(pp "$v" -H node1)
      echo "$v $(field median_us <<<"$line") $(field cpu_us <<<"$line")"
    done
  done >"$VM/pairs.txt"
  kill -INT "$abmon"; wait "$abmon" || true
  # Medians over the pairs of plain, xab and each pair's xab/plain, for the
  # wall time per round trip and for the CPU time of both tasks (which other
  # jobs on the machine stretch less).
  awk -v label="$label" 'function sort(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t } }
    function med(a, n) { sort(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    { k = ++n[$1]; w[$1, k] = $2; c[$1, k] = $3 }
    END {
      m = n["plain"]
      for (i = 1; i <= m; i++) {
        pw[i] = w["plain", i]; xw[i] = w["xab", i]; rw[i] = xw[i] / pw[i]
        pc[i] = c["plain", i]; xc[i] = c["xab", i]; rc[i] = xc[i] / pc[i]
      }
      printf "cross-host round trip node0 -> node1 (direct), %d pairs, abmon on node0, %s:\n", m, label
      printf "  wall: plain %.1f us, xab %.1f us, xab/plain %.3f\n", med(pw, m), med(xw, m), med(rw, m)
      printf "  cpu:  plain %.1f us, xab %.1f us, xab/plain %.3f\n", med(pc, m), med(xc, m), med(rc, m)
    }' "$VM/pairs.txt"
  echo "  records of the xab runs in the trace: $(grep -c ' send ' "$VM/pairs.trace") sends, $(grep -c ' relay.batch ' "$VM/pairs.trace") relay batches"
}
pairs "default mode, a relay on node1" 
pairs "immediate mode (--batch 1), a relay on node1" --batch 1
pairs "default mode, no relay (--no-relays)" --no-relays
pairs "immediate mode (--batch 1), no relay (--no-relays)" --no-relays --batch 1
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
