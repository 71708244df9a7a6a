#!/usr/bin/env bash
# Clocks that disagree, one time base for every reader: a spawn tree of
# ours (clock_tree: 15 tasks over 3 hosts) unmodified under abrun, and
# rebuilt with xab.h under abmon, with node1's clock 90 s ahead and
# node2's 2 s behind and 100 ppm fast.  On global time (abstat):
#  - the run starts at its first record and lasts what it lasted (a few s,
#    not the 90 s between the hosts' clocks);
#  - every task begins after time zero and ends (task.exit) after its first
#    record, within the run: its end is on its own records' clock;
#  - node1's and node2's tasks are put on abmon's clock (their relays' fits);
#  - no receive before its send after the correction, and none on the raw
#    clocks between two tasks of one host (one clock: the records' dates);
#  - xabview (--dump-state) shows the trace on global time, each task's
#    last record where abstat has it.
# shellcheck disable=SC1091  # lib.sh: the tests' shared part, beside this file
source "$(dirname "$0")/lib.sh"
plain=$BUILD/pvm-examples/plain/clock_tree xab=$BUILD/pvm-examples/xab/clock_tree
[[ -x $plain && -x $xab ]] || { echo "SKIP: no clock_tree in this build"; exit 77; }
vm_up 3 --skew "node1=+90s" --skew "node2=-2s x1.0001"
[[ $(h run node1 date +%s) -gt $(($(date +%s) + 80)) ]] || fail "node1's date is not 90 s ahead: $(h run node1 date)"
[[ $(h run node2 date +%s) -lt $(date +%s) ]] || fail "node2's date is not behind: $(h run node2 date)"

# check NAME TRACE WALL_S: the figures above, from abstat's JSON (global
# time) and the raw trace.
check() {
  local name=$1 trace=$2 wall=$3
  "$BIN/abstat" --json "$trace" >"$name.json" || { fail "$name: abstat failed"; return; }
  python3 - "$name.json" "$trace" "$wall" >"$name.checks" 2>&1 <<'PY' || fail "$name: $(grep -v '^ok' "$name.checks" | head -5)"
import collections, json, sys
d = json.load(open(sys.argv[1])); wall = float(sys.argv[3])
host = lambda tid: (int(tid.lstrip('t'), 16) >> 18) & 0xfff
bad = []
if not d['trace']['duration'] < wall + 1:
    bad.append('the run lasts %.3f s on global time, %.1f s by the wall clock' % (d['trace']['duration'], wall))
# (An output line may come after its task's end: it is dated when abmon
# read it, seconds later when abmon is behind.)
for t in d['tasks']:
    if not 0 <= t['first'] <= t['exitTime'] <= d['trace']['duration']:
        bad.append('%s (%s): first %.6f, ends at %.6f, last %.6f, run %.6f' %
                   (t['label'], t['tid'], t['first'], t['exitTime'], t['last'], d['trace']['duration']))
fitted = {c['tid'] for c in d['clock']['tasks']}
away = {t['tid'] for t in d['tasks'] if host(t['tid']) != host(d['trace']['abmon'])}
if not away or not away <= fitted:
    bad.append('tasks on node1 and node2 not on abmon\'s clock: %s' % sorted(away - fitted))
if d['clock']['violationsCorrected'] != 0:
    bad.append('%d receives before their sends on global time' % d['clock']['violationsCorrected'])
# The raw trace: receives before their sends between two tasks of one host,
# matched by serial (libab) or by order (PVM's tracer).
sends, by_serial, order = collections.defaultdict(list), {}, collections.Counter()
pairs = 0
records = [l.split() for l in open(sys.argv[2]) if not l.startswith('#')]
for f in records:
    kv = dict(x.split('=', 1) for x in f[4:] if '=' in x)
    if f[3] == 'send':
        sends[(f[2], kv['dst'], kv['tag'])].append(float(f[1]))
        if kv.get('serial', '0') != '0': by_serial[(f[2], kv['serial'])] = float(f[1])
early = []
for f in records:
    kv = dict(x.split('=', 1) for x in f[4:] if '=' in x)
    if f[3] != 'recv' or 'src' not in kv or host(kv['src']) != host(f[2]): continue
    if kv.get('serial', '0') != '0':
        sent = by_serial.get((kv['src'], kv['serial']))
    else:
        key = (kv['src'], f[2], kv['tag']); k = order[key]; order[key] += 1
        sent = sends[key][k] if k < len(sends[key]) else None
    if sent is None: continue
    pairs += 1
    if float(f[1]) < sent: early.append('%s from %s %.0f us' % (f[2], kv['src'], (sent - float(f[1])) * 1e6))
if pairs < 50: bad.append('only %d receives between tasks of one host' % pairs)
if early: bad.append('%d of %d receives before their sends on one host: %s' % (len(early), pairs, early[:3]))
print('\n'.join(bad) if bad else 'ok: %d tasks, %.3f s (wall %.1f s), %d away fitted, %d one-host receives, %d/%d/%d before their sends raw/fit/corrected' % (
    len(d['tasks']), d['trace']['duration'], wall, len(away), pairs, d['clock']['violationsRaw'], d['clock']['violationsFit'], d['clock']['violationsCorrected']))
sys.exit(1 if bad else 0)
PY
  cat "$name.checks"
  [[ -x $BIN/xabview ]] || return 0
  QT_QPA_PLATFORM=offscreen timeout 60 "$BIN/xabview" --play-to-end --dump-state "$name.view.json" "$trace" >/dev/null 2>&1 ||
    { fail "$name: xabview --dump-state failed"; return; }
  python3 - "$name.json" "$name.view.json" <<'PY' || fail "$name: the viewer's time base is not abstat's"
import json, sys
a, v = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
last = {t['tid']: t['last'] for t in a['tasks']}
off = [(t['tid'], t['last_s'], last.get(t['tid'])) for t in v['tasks']
       if last.get(t['tid']) is None or abs(t['last_s'] - last[t['tid']]) > 1e-6]
print('viewer: %s; %d tasks, %d where abstat has them not' % (v['time'], len(v['tasks']), len(off)))
sys.exit(0 if v['time'].startswith('global time') and len(v['tasks']) == len(a['tasks']) and not off else 1)
PY
}

# run NAME COMMAND...: on node0, its output "tree 15 tasks" (abmon's
# diagnostics in NAME.err); the wall time in s.
run() {
  local name=$1 out t0 t1; shift
  t0=$(date +%s.%N)
  out=$(h run node0 timeout "$RUN_LIMIT" "$@" 2>"$name.err")
  t1=$(date +%s.%N)
  [[ $out == "tree 15 tasks" ]] || fail "$name: $out $(cat "$name.err")"
  wall=$(python3 -c "print($t1 - $t0)")
}

run abrun "$BIN/abrun" -o abrun.trace "$plain" 3 20
check abrun abrun.trace "$wall"
ok "abrun over three clocks: one time base"
run xab "$BIN/abmon" -o xab.trace -- "$xab" 3 20
check xab xab.trace "$wall"
ok "rebuilt with xab.h over three clocks: one time base"
finish
