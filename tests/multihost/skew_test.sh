#!/usr/bin/env bash
# node2's clock 2 hours ahead and 100 ppm fast (libfaketime on its pvmd
# and tasks, one clock for the host: pvm-hosts.sh "skew").  With
# a relay per host, a task's records are stamped by its host's
# relay: node2's tasks' task and receive times are both node2's clock
# (2 h ahead of real time, about 0 apart); node2's relay records carry its
# clock (column 2) 7200 s ahead of abmon's (column 1); the other hosts'
# times are real time.
# shellcheck disable=SC1091  # lib.sh: the tests' shared part, beside this file
source "$(dirname "$0")/lib.sh"
vm_up 3 --skew "node2=+2h x1.0001"

[[ $(h run node2 date +%s) -gt $(($(date +%s) + 7000)) ]] || fail "node2's date is not 2 h ahead: $(h run node2 date)"
# The truth, measured: a probe on node2 reads its (fake) CLOCK_REALTIME
# beside CLOCK_MONOTONIC (real: FAKETIME_DONT_FAKE_MONOTONIC), this shell
# the real pair; before and after the run, each a process of its own.
clocks='import time
best = None
for _ in range(200):
    m1 = time.monotonic_ns(); t = time.time_ns(); m2 = time.monotonic_ns()
    if best is None or m2 - m1 < best[0]: best = (m2 - m1, t, (m1 + m2) // 2)
print(best[1], best[2])'
probe() { echo "$(h run node2 python3 -c "$clocks") $(python3 -c "$clocks")"; }
before=$(probe)
t0=$(date +%s)
out=$(h run node0 timeout "$RUN_LIMIT" "$BIN/abmon" -o skew.trace -- "$BIN/xabdemo" -n 6 --rounds 20 2>&1) || fail "the demo failed: $out"
t1=$(date +%s)
sleep 1  # a rate shows over time
after=$(probe)
# Per host (tid prefix; relay records as "relay-HOST"): the least and
# greatest column 2 - column 1, and receive times outside the run's real
# time (shifted by 7200 s for node2's tasks, stamped by its relay).
awk -v t0="$t0" -v t1="$((t1 + 1))" '
  NR == 1 || $4 ~ /^abmon\./ || ($4 == "task.exit" && $5 == "how=notify") { next }
  { h = $4 ~ /^relay\./ ? "relay-" substr($5, 6) : substr($3, 1, 2); d = $2 - $1
    if (!(h in lo) || d < lo[h]) lo[h] = d
    if (!(h in hi) || d > hi[h]) hi[h] = d
    shift = h == "tc" ? 7200 : 0
    if ($1 < t0 + shift || $1 > t1 + shift) bad++ }
  END { for (h in lo) printf "%s %.3f %.3f\n", h, lo[h], hi[h]; printf "bad %d\n", bad }' skew.trace >offsets
cat offsets
while read -r host lo hi; do
  case $host in
    relay-node2) awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(lo > 7190 && hi < 7210) }' || fail "node2's relay: offset $lo..$hi, not 7200 s" ;;
    t4 | t8 | tc | relay-node1) awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(lo > -10 && hi < 10) }' || fail "$host: offset $lo..$hi, not about 0" ;;
    bad) ((lo == 0)) || fail "$lo receive times outside the run's real time [$t0, $t1] (+7200 s for node2)" ;;
  esac
done <offsets
[[ $(grep -c '^t[48c] \|^relay-node[12] ' offsets) == 5 ]] || fail "not every host's tasks and relays in the trace: $(cat offsets)"
ok "node2's records in its relay's clock (+7200 s); its relay's clock 7200 s ahead of abmon's; the others' not"

# Global time across hosts (docs/global-time.md): each relay measures its
# clock against abmon's (clock records of the relay's tid, ref= abmon),
# its tasks measure theirs against the relay's; the model composes the two.
grep -q "^[^ ]* [^ ]* tc[0-9a-f]* clock ref=t40" skew.trace || fail "node2's relay wrote no clock record against abmon"
"$BIN/abstat" --json skew.trace >global.json || fail "abstat --json failed"
"$BIN/abstat" --json --raw-time skew.trace >raw.json || fail "abstat --json --raw-time failed"
# node2's clock as the probes saw it: one clock for the host, 100 ppm fast
# (processes of their own each, started seconds apart: without a clock
# shared by the host's processes, each would start its own at +7200 s).
python3 - "$before" "$after" >truth <<'PY' || fail "node2's clock is not one clock 2 h ahead and 100 ppm fast: $(cat truth)"
import sys
def probe(s):
    fake, fmono, real, rmono = map(int, s.split())
    return real + (fmono - rmono), fake
(r0, f0), (r1, f1) = probe(sys.argv[1]), probe(sys.argv[2])
rate = ((f1 - r1) - (f0 - r0)) / (r1 - r0) * 1e6
print(r0, f0, rate)
sys.exit(not (abs((f0 - r0) / 1e9 - 7200) < 60 and abs(rate - 100) < 10))
PY
cat truth
# Per task: |global time - true time| at the task's first and last record
# date, in us (node2's truth from the probes; the others' clocks are real).
awk '$3 ~ /^t/ && $4 !~ /^(abmon|relay|host)\.|^task\.exit$/ { if (!($3 in lo) || $2 < lo[$3]) lo[$3] = $2; if ($2 > hi[$3]) hi[$3] = $2 }
     END { for (t in lo) print t, lo[t], hi[t] }' skew.trace >dates
python3 - global.json truth dates >errors <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); r0, f0, ppm = map(float, open(sys.argv[2]).read().split())
dates = {t: (float(a), float(b)) for t, a, b in (l.split() for l in open(sys.argv[3]))}
for t in d['clock']['tasks']:
    if t['tid'] not in dates: continue
    worst = 0
    for L in dates[t['tid']]:
        L *= 1e9
        true = r0 + (L - f0) / (1 + ppm * 1e-6) if t['tid'].startswith('tc') else L
        glob = L - t['offset'] * 1e9 - (L - t['offsetAt'] * 1e9) * t['driftPpm'] / (1e6 + t['driftPpm'])
        worst = max(worst, abs(glob - true) / 1e3)
    print('%s %.1f' % (t['tid'], worst))
PY
cat errors
[[ $(grep -c '^tc' errors) -ge 2 ]] || fail "fewer than 2 of node2's tasks have a clock fit: $(cat errors)"
# 500 us: typically under 20 (docs/performance.md); a loaded 2-core
# machine (ASan) can make a short run's every exchange slow.
awk '$2 > 500 { bad++ } END { exit bad > 0 }' errors || fail "a task's global time is more than 500 us from the true time"
raw=$(json global.json "d['clock']['violationsRaw']") fit=$(json global.json "d['clock']['violationsFit']")
corrected=$(json global.json "d['clock']['violationsCorrected']")
echo "receives before their sends: $raw as recorded, $fit after the fit, $corrected after the correction"
((raw >= 10)) || fail "only $raw receives before their sends in the raw trace: the skew did not show"
# The fit alone leaves 0 on an idle machine; a loaded one (ASan) can leave
# a receive within the fit's error of a fast send, which the causality
# correction then moves (docs/global-time.md).
((fit * 10 <= raw)) || fail "$fit receives before their sends after the fit (raw: $raw)"
((corrected == 0)) || fail "$corrected receives before their sends on global time"
[[ $(json raw.json "d['time']") == raw ]] || fail "--raw-time is not raw"
ok "global time across hosts: node2's tasks within 500 us of the true time, 0 receives before their sends (raw: $raw)"

# The relays' clock exchanges go on their TCP streams (relay_stream.h,
# "Clock exchanges"): abmon answers a ping frame only on a stream whose
# hello it took.  Forged ones (relay's tid with another token, a second
# stream in the relay's name, a stranger announcing a 64 MiB ping) get not
# a byte and are closed; the relay's own stream goes on (its clock records
# keep coming, no host is taken as lost).
rm -f streams.trace pvm.trace  # an earlier run's would satisfy the waits below
# abmon takes its token from the test knob (docs/abmon.md), so the forged
# "second" stream below can say the real one; `env` after `run`: not one of
# the XAB_ variables run exports to the tasks abmon spawns.
token=$(od -An -N8 -tx8 /dev/urandom | tr -d ' \n')
"$HOSTS" --dir "$VM" run node0 env XAB_TEST_RELAY_TOKEN="$token" "$BIN/abmon" -o streams.trace 2>streams.err &  # not h: SIGINT must reach it
abmon=$!
wait_for 20 eval "(( \$(count_lines ' relay.start ' streams.trace) >= 2 ))" || fail "not 2 relays: $(cat streams.err)"
relay=$(awk '$4 == "relay.start" && $5 == "host=node1" { print substr($3, 2); exit }' streams.trace)
abmon_tid=$(awk '$4 == "abmon.start" { print substr($3, 2); exit }' streams.trace)
# The stream's token is nowhere another user of a relay's host can read
# it: not on the relay's command line, not in its environment (abmon
# sends it in a PVM message; relay.h, StreamToken).
args='' relays=0
for pid in $(h pids); do
  cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || continue
  [[ $cmd == *"--relay $((16#$abmon_tid)),"* ]] || continue
  relays=$((relays + 1))
  args=$(grep -o -- '--relay [0-9]*,[-0-9]*,[0-9]*[^ ]*' <<<"$cmd")
  [[ $args =~ ^--relay\ [0-9]+,-?[0-9]+,[0-9]+$ ]] || fail "relay pid $pid: its stream's token on its command line: '$args'"
  grep -qi -- "$token" "/proc/$pid/cmdline" && fail "relay pid $pid: the token $token on its command line: $cmd"
  grep -qi -- "$token" "/proc/$pid/environ" && fail "relay pid $pid: the token $token in its environment"
done
((relays == 2)) || fail "$relays relays of abmon t$abmon_tid found in the VM's processes, not 2"
ok "no relay's stream token on its command line or in its environment ($relays relays)"
port=${args##*,}
[[ -n $relay && -n $port ]] || fail "no relay's port: relay '$relay', args '$args'"
h run node1 python3 "$SRC/tests/multihost/stream_client.py" node0 "$port" "$relay" "$token" >forged 2>&1 ||
  fail "a forged stream's ping was answered or the stream was not closed: $(cat forged)"
cat forged
alive "$abmon" || fail "abmon died of the forged streams: $(cat streams.err)"
clocks_of() { grep -c "^[^ ]* [^ ]* t$relay clock ref=" streams.trace; }
n=$(clocks_of)
wait_for 10 eval "(( \$(clocks_of) > $n ))" || fail "node1's relay wrote no clock record after the forged streams"
kill -INT "$abmon"
wait_for 20 eval "! alive $abmon" || fail "abmon did not stop on SIGINT"
grep -q ' host.delete ' streams.trace && fail "a forged stream's end was taken for a host lost: $(grep ' host.delete ' streams.trace)"
grep -q "refused a second stream that says it is relay t$relay" streams.err || fail "no word of the second stream refused: $(cat streams.err)"
ok "forged clock pings on the relays' port: not answered, closed; the relays' own exchanges go on"

# A relay without a stream (--relay-pvm) makes its exchanges as PVM
# messages through both pvmds, as before.
out=$(h run node0 timeout "$RUN_LIMIT" "$BIN/abmon" --relay-pvm -o pvm.trace -- "$BIN/xabdemo" -n 3 --rounds 5 2>&1) || fail "the demo with --relay-pvm failed: $out"
grep -q "^[^ ]* [^ ]* tc[0-9a-f]* clock ref=t40.* phase=2 " pvm.trace || fail "--relay-pvm: node2's relay wrote no end clock record"
ok "--relay-pvm: the relays' clock exchanges as PVM messages"
finish
