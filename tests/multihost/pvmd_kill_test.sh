#!/usr/bin/env bash
# node2's pvmd killed while the demo runs on 3 hosts (as if node2 crashed):
# abmon keeps running and writing, the records of the tasks on node0 and
# node1 go on after the kill, abmon stops cleanly on SIGINT, and abstat says
# where the program is stuck (the master waits for node2's results).
# What abmon writes about node2's tasks is printed for the record: the
# host.delete record and task.exit how=host come only when the master pvmd
# declares node2 dead (about 3 minutes); multihost_relay checks them with a
# deleted host.
# shellcheck disable=SC1091  # lib.sh: the tests' shared part, beside this file
source "$(dirname "$0")/lib.sh"
vm_up 3
rm -f kill.trace abmon.err demo.out  # an earlier run's trace would satisfy the waits below

"$HOSTS" --dir "$VM" run node0 "$BIN/abmon" -v -o kill.trace 2>abmon.err &
abmon=$!
wait_for 20 grep -qs ' abmon.start ' kill.trace || fail "abmon did not start: $(cat abmon.err)"
"$HOSTS" --dir "$VM" run node0 "$BIN/xabdemo" -n 6 --rounds 100000 >demo.out 2>&1 &
node2_results() { (($(grep -cs ' tc[0-9a-f]* send dst=t[0-9a-f]* tag=16004 ' kill.trace) >= 10)); }
wait_for 60 node2_results || fail "node2's workers sent no 10 results in 60 s"

kill_time=$(date +%s.%N)
h kill-pvmd node2 || fail "kill-pvmd node2"
sleep 3
alive "$abmon" || fail "abmon died after node2's pvmd was killed: $(cat abmon.err)"
after=$(awk -v k="$kill_time" '$1 > k && $3 ~ /^t[48]/' kill.trace | wc -l)
((after > 0)) || fail "no record of a task on node0 or node1 after the kill"
grep -q ' abmon.bad ' kill.trace && fail "abmon.bad in the trace: $(grep ' abmon.bad ' kill.trace | head -3)"

kill -INT "$abmon"
wait_for 10 eval "! alive $abmon" || fail "abmon did not stop on SIGINT"
wait "$abmon"; rc=$?
((rc == 0)) || fail "abmon's status $rc: $(cat abmon.err)"
[[ $(tail -1 kill.trace) == *' abmon.stop '* ]] || fail "the trace does not end with abmon.stop"
"$BIN/abstat" --json --hang kill.trace >kill.json; rc=$?
((rc == 2)) || fail "abstat --hang: status $rc, not 2"
json kill.json '"\n".join(b["explanation"] for b in d["hang"]["blocked"] if b["task"]["tid"].startswith("t4"))' | head -1
ok "$after records of node0's and node1's tasks after the kill; abmon ran on and stopped cleanly"
echo "note: records about node2's tasks after the kill: $(awk -v k="$kill_time" '$1 > k + 1 && $3 ~ /^tc/' kill.trace | wc -l)" \
  "(task.exit: $(grep -c ' tc[0-9a-f]* task.exit' kill.trace)); abmon said: $(tail -1 abmon.err)"
finish
