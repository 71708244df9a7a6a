#!/usr/bin/env bash
# from-trace-bench.sh [BUILD_DIR] [MEGABYTES] -- what reading a full trace
# as a record costs (abreplay --from-trace TRACE, which prints the record),
# against abstat's analyses of the same trace (the same model reads both),
# on a generated ring trace of MEGABYTES (default 100) and 8 tasks.
#
# The generated tasks are spawned by no one (parent=none), so abreplay
# reads, matches and converts the whole trace and then refuses it ("8 tasks
# were started by no spawn of the trace"): the time is the whole cost.
set -euo pipefail
build=${1:-build} mb=${2:-100}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/from-trace-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$build/bench/translators_gentrace" "$mb" 8 > "$tmp/big.trace"
echo "trace: $(du -m "$tmp/big.trace" | cut -f1) MB, $(wc -l < "$tmp/big.trace") records; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for run in 1 2 3; do
  for tool in abstat "abreplay --from-trace"; do
    # shellcheck disable=SC2086  # the tool's words
    /usr/bin/time -f "run $run  $tool: %e s wall, %U s user, %M KiB max RSS" "$build/bin/"$tool "$tmp/big.trace" \
      > /dev/null 2> "$tmp/err" || true
    tail -1 "$tmp/err"
  done
done
