#!/usr/bin/env bash
# Global time across hosts (docs/global-time.md, docs/performance.md):
# the demo over 3 pseudo-hosts (scripts/pvm-hosts.sh) with node2's clock
# skewed by libfaketime, then abstat's global time against the truth: per
# task, the fitted offset minus the injected one at the task's first and
# last record, and the receives before their sends, raw and on global time.
#
#   bench/clock_hosts.sh [-b BUILD] [--skew SPEC] [--offset S] [--rounds R]
#
# SPEC is libfaketime's (default "+2h"); S the offset it injects in seconds
# (default 7200).  Needs root and namespaces, as the multihost tests.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build-test skew=+2h offset=7200 rounds=300
while (($#)); do
  case $1 in
    -b) build=$(cd "$2" && pwd); shift 2 ;;
    --skew) skew=$2; shift 2 ;;
    --offset) offset=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
bin=$build/bin vm=$(mktemp -d /tmp/xab-clockhosts.XXXXXX)
hosts() { "$src/scripts/pvm-hosts.sh" --dir "$vm" "$@"; }
trap 'hosts down >/dev/null 2>&1; rm -rf "$vm"' EXIT
XAB_HOSTS_QUIET=1 hosts up 3 --bin "$bin" --skew "node2=$skew" >/dev/null
start=$(date +%s.%N)
hosts run node0 "$bin/abmon" -o "$vm/run.trace" -- "$bin/xabdemo" -n 6 --rounds "$rounds" >/dev/null
echo "run: $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s, node2 skewed by $skew"
"$bin/abstat" --json "$vm/run.trace" >"$vm/global.json"
python3 - "$vm/global.json" "$offset" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); c = d['clock']; injected = float(sys.argv[2])
span = {t['tid']: t['last'] - t['first'] for t in d['tasks']}
print('receives before their sends: %d as recorded, %d on global time (of %d)'
      % (c['violationsRaw'], c['violationsFit'], c['messagesChecked']))
print('%-8s %-5s %8s %12s %12s %10s' % ('task', 'host', 'span s', 'err start', 'err end', 'drift ppm'))
worst = 0
for t in c['tasks']:
    host = 'node%d' % ((int(t['tid'][1:], 16) >> 18 & 0xfff) - 1)
    e0 = (t['offset'] - (injected if host == 'node2' else 0)) * 1e6
    e1 = e0 + t['driftPpm'] * span[t['tid']]
    worst = max(worst, abs(e0), abs(e1))
    print('%-8s %-5s %8.1f %9.1f us %9.1f us %10.2f' % (t['tid'], host, span[t['tid']], e0, e1, t['driftPpm']))
print('largest error: %.1f us' % worst)
PY
