#!/usr/bin/env bash
# run-ingest-bench.sh -- how many events per second one abmon takes in from
# its relays: H pseudo-hosts, abmon on node0, and each relay
# sending B full batches (256 KiB of ready records each) as fast as it can
# (the test knob XAB_TEST_RELAY_FEED, relay.h), on its TCP stream and, with
# --relay-pvm, as PVM messages through the pvmds.  Optionally profiles abmon
# with perf.  Needs root.  Figures: docs/performance.md.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=$ROOT/build-test HOSTS_N=3 BATCHES=200 REPEAT=3 PERF=0
TRANSPORTS=(stream pvm)
PROG=run-ingest-bench.sh

usage() {
  cat <<'USAGE'
Usage: bench/run-ingest-bench.sh [-b BUILD_DIR] [--hosts H] [--batches B] [--repeat R]
                                 [--stream-only] [--perf]
Start H pseudo-hosts (default 3: two relays), then R times (default 3) for
each transport (the relays' TCP streams, then PVM messages: abmon
--relay-pvm): abmon on node0, every relay sending B batches (default 200,
about 3000 records each) as fast as it can.  Prints per run the records
abmon took in, over the span between the first and the last batch's
arrival (abmon's clock), in events/s, and abmon's CPU time per million
records; then the median.  --perf: also `perf record` abmon in one more
stream run and print its top functions.  Needs root.
Example:
  bench/run-ingest-bench.sh -b build-test
USAGE
}

while (($#)); do
  case $1 in
    -b) BUILD=$(cd "$2" && pwd); shift ;;
    --hosts) HOSTS_N=$2; shift ;;
    --batches) BATCHES=$2; shift ;;
    --repeat) REPEAT=$2; shift ;;
    --stream-only) TRANSPORTS=(stream) ;;
    --perf) PERF=1 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
  shift
done

VM=/tmp/xabingest.$$
grep -qa XAB_TEST_RELAY_FEED "$BUILD/bin/abmon" || { echo "run-ingest-bench.sh: $BUILD has no XAB_TEST_* knobs: use a build configured with -DXAB_TEST_KNOBS=ON (scripts/test.sh makes build-test)" >&2; exit 2; }
hosts() { XAB_HOSTS_QUIET=1 "$ROOT/scripts/pvm-hosts.sh" --dir "$VM" "$@"; }
trap 'hosts down || true; rm -rf "$VM"' EXIT
median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

echo "== $PROG: $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
  "$((HOSTS_N - 1)) relays x $BATCHES batches"
hosts up "$HOSTS_N" --bin "$BUILD/bin"
cd "$VM"

# one TRANSPORT [PERF]: one run; prints "events/s cpu_s_per_M" and a line for people on stderr.
one() {
  local opts=() trace=$VM/ingest.trace
  [[ $1 == pvm ]] && opts+=(--relay-pvm)
  rm -f "$VM/ingest.trace"
  local wrap=()
  [[ $2 == perf ]] && wrap=(perf record -g -o "$VM/perf.data" --)
  XAB_TEST_RELAY_FEED=$BATCHES "$ROOT/scripts/pvm-hosts.sh" --dir "$VM" run node0 \
    "${wrap[@]}" "$BUILD/bin/abmon" -o "$trace" "${opts[@]}" 2>"$VM/abmon.err" &
  local abmon=$! i want=$(((HOSTS_N - 1) * BATCHES))
  local pid=$abmon c0=0
  sleep 0.2
  # abmon's CPU from its start: its relays feed from the moment they start.
  [[ $2 == perf ]] && pid=$(pgrep -P "$abmon" -x abmon || echo "$abmon")
  # Until every batch has come (2 minutes at most).
  for ((i = 0; i < 1200; i++)); do
    (($(grep -c ' relay.batch .* bytes=26' "$VM/ingest.trace" 2>/dev/null) + 0 >= want)) && break
    sleep 0.1
  done
  local c1; c1=$(cpu_ticks "$pid")
  kill -INT "$pid"; wait "$abmon" || true
  awk -v c="$((c1 - c0))" -v hz="$(getconf CLK_TCK)" -v t="$1" '
    $4 == "relay.batch" && / bytes=26/ { n++; t1 = $1 + 0; if (!t0) t0 = t1; for (i = 6; i <= NF; i++) if ($i ~ /^events=/) e += substr($i, 8) }
    END { r = e / (t1 - t0); printf "%.0f %.3f\n", r, c / hz / (e / 1e6)
          printf "  %s: %d records in %d batches over %.3f s: %.0f events/s; abmon CPU %.2f s\n", t, e, n, t1 - t0, r, c / hz > "/dev/stderr" }' "$VM/ingest.trace"
}

for t in "${TRANSPORTS[@]}"; do
  for ((r = 0; r < REPEAT; r++)); do one "$t" no; done >"$VM/$t.runs"
  printf '%-6s median of %d: %8.0f events/s, abmon %.3f CPU s per million records (load %s)\n' "$t" "$REPEAT" \
    "$(cut -d' ' -f1 "$VM/$t.runs" | median)" "$(cut -d' ' -f2 "$VM/$t.runs" | median)" "$(cut -d' ' -f1-3 /proc/loadavg)"
done
if ((PERF)); then
  one stream perf >/dev/null
  perf report -i "$VM/perf.data" --no-children --stdio --percent-limit 2 -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -25
fi
