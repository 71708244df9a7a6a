#!/usr/bin/env bash
# sample-bench.sh [BUILD_DIR] [SECONDS] [ROUNDS] -- what abmon's
# clock-driven samples (abmon --sample-ms) cost and how exact they are, in
# a private VM, with tests/abmon/abmon_cpuburn:
#   cost: 64 sleeping tasks for SECONDS (10) under `abmon --`, with
#     --sample-ms 100 and with --sample-ms 0, rounds interleaved: abmon's
#     CPU time (user + system, /usr/bin/time; the program's parent is in
#     both), the difference per second of run = the share of a CPU
#     sampling takes; the same for pvmd (it answers each round's
#     pvm_tasks); and the records abmon wrote;
#   accuracy: 2 workers burning CPU for 2 s: each one's `cpu` in abstat's
#     JSON against its own getrusage, and its `runnable`.
# docs/performance.md has the figures.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=$(cd "${1:-$HERE/../build}" && pwd) SECONDS_RUN=${2:-10} ROUNDS=${3:-3}
BIN=$BUILD/bin
for p in "$BIN/abmon" "$BIN/abstat" "$BIN/abmon_cpuburn"; do
  [[ -x $p ]] || { echo "sample-bench.sh: no $p (build abmon, abstat, abmon_cpuburn)" >&2; exit 2; }
done
# shellcheck source=bench/vm.sh
source "$HERE/vm.sh"
bench_vm sample-bench "$BIN"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
# pvmd's CPU time in clock ticks: it answers each round's pvm_tasks.
pvmd_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$(cat "$work/vm/pvmd.pid")/stat"; }
hz=$(getconf CLK_TCK)
for ((r = 1; r <= ROUNDS; r++)); do
  for ms in 100 0; do
    before=$(pvmd_ticks)
    /usr/bin/time -f "%e %U %S" -o "$work/time" "$BIN/abmon" -q -o "$work/t.trace" --sample-ms "$ms" -- \
      "$BIN/abmon_cpuburn" 64 "$SECONDS_RUN" sleep >/dev/null
    pvmd=$(($(pvmd_ticks) - before))
    read -r wall user sys <"$work/time"
    samples=$(grep -c ' sample ' "$work/t.trace" || true)
    echo "$ms $wall $user $sys $pvmd $samples" >>"$work/rounds"
    awk -v r="$r" -v ms="$ms" -v w="$wall" -v u="$user" -v s="$sys" -v p="$pvmd" -v hz="$hz" -v n="$samples" \
      'BEGIN { printf "round %d sample-ms %3d: wall %.2f s, abmon cpu %.3f s (%.2f%% of a CPU), pvmd cpu %.2f s, %d sample records\n", r, ms, w, u + s, 100 * (u + s) / w, p / hz, n }'
  done
done
# The cost: what abmon (and pvmd) used with samples minus without, per second of run.
awk -v hz="$hz" '{ w[$1] += $2; c[$1] += $3 + $4; p[$1] += $5 / hz; n[$1] += $6 }
  END { printf "sampling 64 tasks every 100 ms: abmon %.2f%% of a CPU, pvmd %.2f%% of a CPU (%.0f records/s)\n",
          100 * (c[100] / w[100] - c[0] / w[0]), 100 * (p[100] / w[100] - p[0] / w[0]), n[100] / w[100] }' "$work/rounds"
"$BIN/abmon" -q -o "$work/a.trace" -- "$BIN/abmon_cpuburn" 2 2 >"$work/a.out"
"$BIN/abstat" --json --tasks "$work/a.trace" >"$work/a.json"
python3 - "$work/a.json" "$work/a.out" <<'PY'
import json, sys
tasks = {t["tid"]: t for t in json.load(open(sys.argv[1]))["tasks"]}
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) == 7 and f[0] == "worker":
        t, own = tasks[f[2]], int(f[6]) / 1e6
        print(f"accuracy {f[2]}: sampled cpu {t['cpu']:.3f} s, getrusage {own:.3f} s, "
              f"diff {t['cpu'] - own:+.3f} s ({(t['cpu'] - own) / own:+.1%}); runnable {t['runnable']:.3f} s "
              f"of {t['last'] - t['first']:.3f} s")
PY
