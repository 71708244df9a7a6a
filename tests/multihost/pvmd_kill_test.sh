#!/usr/bin/env bash
# node2's pvmd killed while the demo runs on 3 hosts (as if node2 crashed):
# within seconds (not PVM's ~3 minutes) abmon writes host.delete how=lost for
# node2 and a task.exit how=host for each of node2's tasks (its relay's TCP
# uplink says so, docs/abmon.md "Relays"); abmon keeps running and writing,
# the records of the tasks on node0 and node1 go on after the kill, node2's
# records that came before stay, abmon stops cleanly on SIGINT, and abstat
# says where the program is stuck (the master waits for node2's results).
# Then node1 vanishes: cut from the network, first one way (what abmon sends
# it unacknowledged) then both (loss 100), and crashed whole
# (pvm-hosts.sh crash: its pvmd, its relay and its tasks killed together, so
# nobody there says anything, and no FIN or RST reaches abmon): abmon writes
# host.delete how=lost for node1 and task.exit how=host for node1's tasks
# within seconds too (its stream's keepalive), and goes on with node0's.
# shellcheck disable=SC1091  # lib.sh: the tests' shared part, beside this file
source "$(dirname "$0")/lib.sh"
vm_up 3
rm -f kill.trace abmon.err demo.out  # an earlier run's trace would satisfy the waits below

"$HOSTS" --dir "$VM" run node0 "$BIN/abmon" -v -o kill.trace 2>abmon.err &
abmon=$!
wait_for 20 grep -qs ' abmon.start ' kill.trace || fail "abmon did not start: $(cat abmon.err)"
"$HOSTS" --dir "$VM" run node0 "$BIN/xabdemo" -n 6 --rounds 100000 >demo.out 2>&1 &
node2_results() { (($(count_lines ' tc[0-9a-f]* send dst=t[0-9a-f]* tag=16004 ' kill.trace) >= 10)); }
wait_for 60 node2_results || fail "node2's workers sent no 10 results in 60 s"

kill_time=$(date +%s.%N)
h kill-pvmd node2 || fail "kill-pvmd node2"
node2_lost() { grep -qs ' host.delete host=node2 .*how=lost' kill.trace; }
wait_for 10 node2_lost || fail "no host.delete host=node2 how=lost within 10 s of the kill"
lost_at=$(awk '$4 == "host.delete" && $5 == "host=node2" { print $1; exit }' kill.trace)
[[ -n $lost_at ]] && echo "host.delete $(awk -v a="$kill_time" -v b="${lost_at:-0}" 'BEGIN { printf "%.2f", b - a }') s after the kill"
node2=$(relay_host kill.trace node2)
sleep 1
# Every node2 task that has records has its task.exit how=host, after them.
awk -v n="$node2" "$AWK_HOST"' $4 ~ /^relay\./ { relay[$3] = 1 }
  $3 ~ /^t/ && !($3 in relay) && host($3) == n && $4 != "task.exit" { seen[$3] = 1; if ($3 in gone) late[$3] = 1 }
  $4 == "task.exit" && $5 == "how=host" && host($3) == n { gone[$3] = 1 }
  END { for (t in seen) { if (!(t in gone)) print "no task.exit how=host for " t; if (t in late) print "records of " t " after its task.exit" }
        if (length(seen) == 0) print "no records of node2 tasks" }' kill.trace >exits.err
[[ -s exits.err ]] && fail "node2's tasks: $(head -3 exits.err)"
sleep 2
alive "$abmon" || fail "abmon died after node2's pvmd was killed: $(cat abmon.err)"
after=$(awk -v k="$kill_time" '$1 > k && $3 ~ /^t[48]/' kill.trace | wc -l)
((after > 0)) || fail "no record of a task on node0 or node1 after the kill"

# node1 vanishes: no word from its relay or its pvmd, not even TCP's.  Its
# link fails one way first: what abmon sends node1 (its relay's clock
# pongs, a second apart) is dropped and never acknowledged, and a TCP
# connection with data unacknowledged sends no keepalive probes: it
# retransmits for minutes instead (the CI failure of 2026-11-24, where one
# pong was in flight when the link went).
h loss node1 100 to >/dev/null || fail "loss node1 100 to"
sleep 3
crash_time=$(date +%s.%N)
h loss node1 100 >/dev/null || fail "loss node1 100"
h crash node1 || fail "crash node1"
node1_lost() { grep -qs ' host.delete host=node1 .*how=lost' kill.trace; }
wait_for 15 node1_lost || fail "no host.delete host=node1 how=lost within 15 s of node1's crash"
lost_at=$(awk '$4 == "host.delete" && $5 == "host=node1" { print $1; exit }' kill.trace)
[[ -n $lost_at ]] && echo "node1: host.delete $(awk -v a="$crash_time" -v b="${lost_at:-0}" 'BEGIN { printf "%.2f", b - a }') s after the crash"
node1=$(relay_host kill.trace node1)
sleep 1
awk -v n="$node1" "$AWK_HOST"' $4 ~ /^relay\./ { relay[$3] = 1 }
  $3 ~ /^t/ && !($3 in relay) && host($3) == n && $4 != "task.exit" { seen[$3] = 1; if ($3 in gone) late[$3] = 1 }
  $4 == "task.exit" && $5 == "how=host" && host($3) == n { gone[$3] = 1 }
  END { for (t in seen) { if (!(t in gone)) print "no task.exit how=host for " t; if (t in late) print "records of " t " after its task.exit" }
        if (length(seen) == 0) print "no records of node1 tasks" }' kill.trace >exits1.err
[[ -s exits1.err ]] && fail "node1's tasks after its crash: $(head -3 exits1.err)"
alive "$abmon" || fail "abmon died after node1 crashed: $(cat abmon.err)"
# The demo's tasks wait for node2's results by now: a task of its own on
# node0 (no spawn: PVM still lists node1 and node2) says abmon still collects.
crash_after=0
if [[ -x $BIN/xabt_prog ]]; then
  h run node0 timeout 30 "$BIN/xabt_prog" first config >first.out 2>&1 || fail "a task on node0 after the crash: $(cat first.out)"
  node0_after() { crash_after=$(awk -v k="$crash_time" '$1 > k && $3 ~ /^t4/ && $4 == "config"' kill.trace | wc -l); ((crash_after > 0)); }
  wait_for 10 node0_after || fail "no record of a task on node0 after node1's crash"
fi
grep -q ' abmon.bad ' kill.trace && fail "abmon.bad in the trace: $(grep ' abmon.bad ' kill.trace | head -3)"

kill -INT "$abmon"
wait_for 10 eval "! alive $abmon" || fail "abmon did not stop on SIGINT"
wait "$abmon"; rc=$?
((rc == 0)) || fail "abmon's status $rc: $(cat abmon.err)"
[[ $(tail -1 kill.trace) == *' abmon.stop '* ]] || fail "the trace does not end with abmon.stop"
"$BIN/abstat" --json --hang kill.trace >kill.json; rc=$?
((rc == 2)) || fail "abstat --hang: status $rc, not 2"
json kill.json '"\n".join(b["explanation"] for b in d["hang"]["blocked"] if b["task"]["tid"].startswith("t4"))' | head -1
ok "node2 lost and its tasks ended within seconds; $after records of node0's and node1's tasks after the kill; node1 crashed whole: lost too, $crash_after records of node0's tasks after; abmon ran on and stopped cleanly"
finish
