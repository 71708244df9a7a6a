#!/usr/bin/env bash
# Global time across hosts (docs/global-time.md, docs/performance.md):
# the demo over 3 pseudo-hosts (scripts/pvm-hosts.sh) with node2's clock
# skewed by libfaketime (an offset and a rate), then abstat's global time
# against the truth: per 5-second window of the run, the largest error
# |global time - true time| of any record date of a task of each host,
# and the receives before their sends, raw and on global time.
#
#   bench/clock_hosts.sh [-b BUILD] [--skew SPEC] [--rounds R] [--window S] [--relay-pvm]
#
# --relay-pvm: the relays' clock exchanges (and batches) as PVM messages
# through both pvmds instead of on their TCP streams: the baseline of the
# same build (docs/performance.md, "Global time across hosts").
# SPEC is libfaketime's FAKETIME (default "+2h x1.0001": 2 hours ahead and
# 100 ppm fast); R the demo's rounds (default 3000: about 60 s here).
# The truth is measured, not assumed: a probe on node2 reads its faked
# CLOCK_REALTIME beside CLOCK_MONOTONIC (real: FAKETIME_DONT_FAKE_MONOTONIC),
# before and after the run, and this script reads the real pair; node2's
# processes share one fake clock (pvm-hosts.sh gives them FAKETIME_SHARED).
# Needs root and namespaces, as the multihost tests.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build-test skew="+2h x1.0001" rounds=3000 window=5 abmon_opts=()
while (($#)); do
  case $1 in
    -b) build=$(cd "$2" && pwd); shift 2 ;;
    --skew) skew=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --window) window=$2; shift 2 ;;
    --relay-pvm) abmon_opts+=(--relay-pvm); shift ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
bin=$build/bin vm=$(mktemp -d /tmp/xab-clockhosts.XXXXXX)
hosts() { "$src/scripts/pvm-hosts.sh" --dir "$vm" "$@"; }
trap 'hosts down >/dev/null 2>&1; rm -rf "$vm"' EXIT
# CLOCK_REALTIME and CLOCK_MONOTONIC read together: the closest pair of 200.
clocks='import time
best = None
for _ in range(200):
    m1 = time.monotonic_ns(); t = time.time_ns(); m2 = time.monotonic_ns()
    if best is None or m2 - m1 < best[0]: best = (m2 - m1, t, (m1 + m2) // 2)
print(best[1], best[2])'
probe() { echo "$(hosts run node2 python3 -c "$clocks") $(python3 -c "$clocks")"; }
XAB_HOSTS_QUIET=1 hosts up 3 --bin "$bin" --skew "node2=$skew" >/dev/null
before=$(probe)
start=$(date +%s.%N)
hosts run node0 "$bin/abmon" "${abmon_opts[@]}" -o "$vm/run.trace" -- "$bin/xabdemo" -n 6 --rounds "$rounds" >/dev/null
echo "run: $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s${abmon_opts[*]:+ (${abmon_opts[*]})}, node2's clock: FAKETIME=\"$skew\"; load $(cut -d' ' -f1-3 /proc/loadavg)"
after=$(probe)
"$bin/abstat" --json "$vm/run.trace" >"$vm/global.json"
python3 - "$vm/global.json" "$vm/run.trace" "$before" "$after" "$window" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); c = d['clock']; window = float(sys.argv[5])
# node2's clock as a line of real time: fake = real + off0 + rate * (real - r0), from two probes.
def probe(s):
    fake, fmono, real, rmono = map(int, s.split())
    return real + (fmono - rmono), fake  # real time at the probe's reading, node2's clock then
(r0, f0), (r1, f1) = probe(sys.argv[3]), probe(sys.argv[4])
rate = ((f1 - r1) - (f0 - r0)) / (r1 - r0)
def true_of(host, L):  # real time (ns) when the host's clock read L
    if host != 'node2': return L
    return r0 + (L - f0) / (1 + rate)
print('node2 measured: offset %.6f s, rate %+.2f ppm' % ((f0 - r0) / 1e9, rate * 1e6))
print('receives before their sends: %d as recorded, %d on global time, %d after the correction (of %d)'
      % (c['violationsRaw'], c['violationsFit'], c['violationsCorrected'], c['messagesChecked']))
# Each task's record dates on its own clock: the first and last of the trace.
dates = {}
for line in open(sys.argv[2]):
    f = line.split(' ', 3)
    if len(f) < 4 or not f[2].startswith('t') or f[3].startswith(('abmon.', 'relay.', 'host.', 'task.exit')): continue
    try: L = round(float(f[1]) * 1e9)
    except ValueError: continue
    lo, hi = dates.get(f[2], (L, L)); dates[f[2]] = (min(lo, L), max(hi, L))
rows, worst = {}, {}
t_start = None
for t in c['tasks']:
    tid = t['tid']
    if tid not in dates: continue
    host = 'node%d' % ((int(tid[1:], 16) >> 18 & 0xfff) - 1)
    rfit = 1 / (1 + t['driftPpm'] * 1e-6)
    L0 = round(t['offsetAt'] * 1e9); ref0 = L0 - round(t['offset'] * 1e9)
    lo, hi = dates[tid]
    step = max((hi - lo) // 2000, 1)
    for L in range(lo, hi + 1, step):
        err = (ref0 + (L - L0) * rfit) - true_of(host, L)  # global time - true time
        real = true_of(host, L)
        t_start = real if t_start is None else min(t_start, real)
        rows.setdefault(host, []).append((real, abs(err)))
    worst[tid] = (host, max(e for r, e in rows[host][-((hi - lo) // step + 1):]))
print('largest |global time - true time| per %g s window (us), by host of the task:' % window)
hosts = sorted(rows)
print('%-10s' % 'window s' + ''.join('%10s' % h for h in hosts))
nwin = int(max(r for h in hosts for r, e in rows[h]) - t_start) // int(window * 1e9) + 1
for w in range(nwin):
    cells = []
    for h in hosts:
        es = [e for r, e in rows[h] if int((r - t_start) // (window * 1e9)) == w]
        cells.append('%10.1f' % (max(es) / 1e3) if es else '%10s' % '-')
    print('%-10s' % ('%g-%g' % (w * window, (w + 1) * window)) + ''.join(cells))
print('per task: ' + ', '.join('%s %s %.1f us' % (tid, h, e / 1e3) for tid, (h, e) in sorted(worst.items())))
print('largest error: %.1f us' % (max(e for h, e in worst.values()) / 1e3))
# The relays' exchanges with abmon (clock records of a relay's tid): their
# round trips, the fastest and the median, per host.
relays, rtts = {}, {}
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) > 4 and f[3] == 'relay.start': relays[f[2]] = f[4][5:]
    elif len(f) > 4 and f[3] == 'clock' and f[2] in relays:
        rtts.setdefault(relays[f[2]], []).extend(int(x[7:]) for x in f[4:] if x.startswith('rtt_ns='))
print('relay exchanges\' round trips (us): ' + ', '.join('%s fastest %.1f median %.1f of %d' % (
    h, min(v) / 1e3, sorted(v)[len(v) // 2] / 1e3, len(v)) for h, v in sorted(rtts.items())))
PY
