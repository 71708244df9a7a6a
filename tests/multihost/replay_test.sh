#!/usr/bin/env bash
# Record and replay across hosts, node1's clock 0.5 s ahead
# (libfaketime: pvm-hosts.sh "skew").
# 1. A record of xabrace whose workers ran on node0 and node1 replays (traced
#    by abmon, and recording itself) with every task on its recorded host,
#    the record's output and the record's message matching (the same dump);
#    so does a record of --collector (siblings found through the mailbox).
# 2. Record mode stamps each host's own clock: abreplay --record measures
#    every host's clock against its own (DIR/clocks) and the record is put
#    on one clock, so the correction's anchors agree: no recorded receive
#    before its sender started, no anchor pushed by more than 5 ms.  The
#    same record without DIR/clocks shows what that fixes: receives before
#    their sender's start, anchors pushed by about the skew.
# 1b. A full trace across hosts (abmon, default mode) serves as the record
#    (abreplay --from-trace): the record made from it is libab's own, and
#    its replay puts every task on its host with the traced output and
#    matching.
# 3. node1 deleted: a replay departs at the spawn of the first task the
#    record put there, naming task, call and host.
# shellcheck disable=SC1091  # lib.sh: the tests' shared part, beside this file
source "$(dirname "$0")/lib.sh"
vm_up 2 --skew "node1=+0.5s"
prog=("$BIN/xabrace" -n 4 --delay 30)
on0() { h run node0 timeout "$RUN_LIMIT" "$@"; }
lines() { grep '^xabrace: ' <<<"$1"; }
# The dump of a run that ended (a worker marks its record "exited" a moment after the master printed).
dump_ended() {
  local d i
  for ((i = 0; i < 100; i++)); do
    d=$(on0 "$BIN/abreplay" --dump "$1") || return 1
    [[ $d == *" stopped after"* ]] || break
    sleep 0.1
  done
  echo "$d"
}

# ---- 1. placement, output and matching
for ((try = 1; try <= 5; try++)); do
  rm -rf rec
  rec_out=$(on0 "$BIN/abreplay" --record rec -- "${prog[@]}" 2>&1) || fail "the record run failed: $rec_out"
  rec_dump=$(dump_ended rec)
  # "1 1 spawn host N 0 HOST 0 0 0": task 1.N was put on HOST
  placed=$(awk '$3 == "spawn" && $4 == "host" { print $1 "." $5, $7 }' <<<"$rec_dump")
  [[ $(awk '{ print $2 }' <<<"$placed" | sort -u | tr '\n' ' ') == "node0 node1 " ]] && break
done
((try <= 5)) || fail "no record with workers on both hosts in 5 runs: $placed"

rm -rf again
rep_out=$(XAB_RECORD=$VM/again on0 "$BIN/abmon" -o rep.trace -- "$BIN/abreplay" rec -- "${prog[@]}" 2>&1) ||
  fail "the traced replay failed: $rep_out"
[[ $(lines "$rep_out") == "$(lines "$rec_out")" ]] || fail "replay printed '$(lines "$rep_out")', the record '$(lines "$rec_out")'"
[[ $(dump_ended again) == "$rec_dump" ]] || fail "the replay's receives got other messages: $(diff <(echo "$rec_dump") <(dump_ended again))"
while read -r path host; do
  tid=$(awk -v p="path=$path" '$4 == "replay.task" && $5 == p { print $3 }' rep.trace)
  [[ -n $tid ]] || { fail "no replay.task for $path"; continue; }
  [[ $(host_of_tid "$tid") == "$host" ]] || fail "task $path ran on $(host_of_tid "$tid") ($tid), recorded on $host"
done <<<"$placed"
ok "replay across hosts: every task on its recorded host ($(tr '\n' ' ' <<<"$placed")), the record's output and matching"

# --collector: worker 0 takes its siblings' results, so each replaying task
# finds a sibling's tid, on the other host too, in PVM's mailbox.
rm -rf crec cagain
c_out=$(on0 "$BIN/abreplay" --record crec -- "${prog[@]}" --collector 2>&1) || fail "the --collector record failed: $c_out"
c_dump=$(dump_ended crec)
c_rep=$(XAB_RECORD=$VM/cagain on0 "$BIN/abreplay" crec -- "${prog[@]}" --collector 2>&1) || fail "the --collector replay failed: $c_rep"
[[ $(lines "$c_rep") == "$(lines "$c_out")" ]] || fail "--collector replay printed '$(lines "$c_rep")', the record '$(lines "$c_out")'"
[[ $(dump_ended cagain) == "$c_dump" ]] || fail "the --collector replay's receives got other messages: $(diff <(echo "$c_dump") <(dump_ended cagain))"
ok "--collector across hosts: the record's output and matching ($(grep -c ' recv got ' <<<"$c_dump") receives)"

# ---- 1b. a full trace across hosts serves as a record (abreplay --from-trace)
# xabrace traced by abmon in default mode and recorded by libab at once,
# until its workers ran on both hosts; node1's clock is 0.5 s ahead, so the
# trace is put on global time (its clock records) before it is read as a
# record.  The record made from the trace is libab's, and a replay from
# the trace puts every task on its host, prints the traced output and gets
# the traced messages.
for ((try = 1; try <= 5; try++)); do
  rm -rf frec full.trace
  full_out=$(on0 "$BIN/abmon" -o full.trace -- "$BIN/abreplay" --record frec -- "${prog[@]}" 2>&1) ||
    fail "the traced record run failed: $full_out"
  full_dump=$(dump_ended frec)
  fplaced=$(awk '$3 == "spawn" && $4 == "host" { print $1 "." $5, $7 }' <<<"$full_dump")
  [[ $(awk '{ print $2 }' <<<"$fplaced" | sort -u | tr '\n' ' ') == "node0 node1 " ]] && break
done
((try <= 5)) || fail "no traced run with workers on both hosts in 5 runs: $fplaced"
made=$(on0 "$BIN/abreplay" --from-trace full.trace 2>&1) || fail "abreplay --from-trace full.trace: $made"
[[ $made == "$full_dump" ]] || fail "the record made from the trace is not libab's: $(diff <(echo "$full_dump") <(echo "$made") | head -5)"
rm -rf fagain
f_rep=$(XAB_RECORD=$VM/fagain on0 "$BIN/abreplay" --from-trace full.trace -- "${prog[@]}" 2>&1) || fail "the replay from the trace failed: $f_rep"
[[ $(lines "$f_rep") == "$(lines "$full_out")" ]] || fail "replay from the trace printed '$(lines "$f_rep")', the traced run '$(lines "$full_out")'"
[[ $(dump_ended fagain) == "$full_dump" ]] || fail "the replay from the trace got other messages: $(diff <(echo "$full_dump") <(dump_ended fagain) | head -5)"
ok "a trace across hosts as a record: libab's record made from it; its replay put tasks on $(tr '\n' ' ' <<<"$fplaced")with the traced output and matching"

# ---- 2. the record on one clock
# (node0, abreplay's host, is the reference: no probe there.)
[[ $(awk '$1 == "clock" { print $3 }' rec/clocks | sort -u) == node1 ]] || fail "rec/clocks is not node1's: $(head -3 rec/clocks)"
rm -rf rec.noclocks && mkdir rec.noclocks && cp rec/*.rec rec.noclocks/
# How far the correction pushed anchors, and the recorded receives of task
# 1 dated before their sender's first call (the record's dates, as read).
# correction RECORD [REPLAY_TRACE [RECORD_DUMP]]
correction() {
  "$BIN/abstat" --json --compensate --replay-of "$1" "${2:-rep.trace}" >"$1.json" || { echo "abstat failed"; return; }
  python3 - "$1.json" "${3:-$rec_dump}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))['replay']
start = {a['path']: a['recorded'] for a in d['anchors'] if a['seq'] == 0}
got = {int(w[1]): w[6] for w in (l.split() for l in sys.argv[2].splitlines()) if w[0] == '1' and w[3] == 'got'}
before = sum(1 for a in d['anchors'] if a['path'] == '1' and a['seq'] in got
             and a['recorded'] < start.get(got[a['seq']], -1e9))
print(d['anchorsUsed'], d['anchorsPushed'], '%.6f' % d['largestPush'], before)
PY
}
# on_one_clock WHAT WITHOUT RECORD BARE_RECORD [REPLAY_TRACE [DUMP]]: the
# correction of REPLAY_TRACE against RECORD (its hosts on one clock) and
# against BARE_RECORD (the same without what puts them there, WITHOUT);
# sets used pushed largest pushed0 largest0 before0.
on_one_clock() {
  local what=$1 without=$2 used0
  read -r used pushed largest before <<<"$(correction "$3" "${5:-}" "${6:-}")"
  read -r used0 pushed0 largest0 before0 <<<"$(correction "$4" "${5:-}" "${6:-}")"
  echo "$what: $used anchors, $pushed pushed (largest $largest s), $before receives before their sender's start"
  echo "without $without: $used0 anchors, $pushed0 pushed (largest $largest0 s), $before0 receives before their sender's start"
  ((used >= 10)) || fail "$what: only $used anchors used"
  ((before == 0)) || fail "$what: $before recorded receives before their sender's start"
  awk -v l="$largest" 'BEGIN { exit !(l < 0.005) }' || fail "$what: an anchor pushed by $largest s"
  # The skew shows without them (else the checks above prove nothing).
  if ! ((before0 > 0)) || ! awk -v l="$largest0" 'BEGIN { exit !(l > 0.3) }'; then
    fail "without $without the skew did not show: $before0 receives before their sender, largest push $largest0"
  fi
}
on_one_clock "with host clocks" DIR/clocks rec rec.noclocks
has "hosts' clocks put on one" "$BIN/abstat" --compensate --replay-of rec rep.trace || fail "abstat does not say the record is on one clock"
ok "record on one clock: $pushed anchors pushed (largest $largest s); without: $pushed0 (largest $largest0 s), $before0 receives before their sender"

# The trace as the record: put on global time by its own clock records
# (without them, node1's records are 0.5 s ahead and the skew shows).
rm -rf fagain2
f_rep2=$(XAB_RECORD=$VM/fagain2 on0 "$BIN/abmon" -o frep.trace -- "$BIN/abreplay" --from-trace full.trace -- "${prog[@]}" 2>&1) ||
  fail "the traced replay from the trace failed: $f_rep2"
grep -v ' clock ref=' full.trace >noclocks.trace
on_one_clock "trace as record, global time" "its clock records" full.trace noclocks.trace frep.trace "$full_dump"
ok "trace as record on global time: $pushed anchors pushed (largest $largest s); without its clock records: $pushed0 (largest $largest0 s)"

# ---- 3. a replay on a machine without the recorded host
h delete node1 || fail "cannot delete node1"
first=$(awk '$2 == "node1" { print $1; exit }' <<<"$placed")
dep=$(on0 "$BIN/abreplay" --timeout 5 rec -- "${prog[@]}" 2>&1)
rc=$?
((rc == 3)) || fail "a replay without node1: status $rc, not 3: $dep"
grep -q "task 1 (xabrace t[0-9a-f]*), call 1 pvm_spawn(4, 0): the recorded run put task $first on host node1, which this virtual machine has not" <<<"$dep" ||
  fail "the departure does not name task, call and host: $dep"
ok "without node1 the replay departs: $(grep -m1 'put task' <<<"$dep")"
finish
