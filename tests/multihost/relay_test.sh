#!/usr/bin/env bash
# Relays as hosts come and go, on one VM:
#  1. a host added while abmon runs gets a relay, and its tasks are seen
#     through it;
#  2. a host deleted mid-run: abmon writes host.delete and task.exit
#     how=host for every task the host's relay had open, keeps what came
#     before, and goes on (node1's records continue, abmon.stop at the end);
#  3. abmon killed (SIGKILL) mid-run: the program on all hosts finishes with
#     the plain program's result, and the relays go away;
#  4. node1's TCP dropped (pvm-hosts.sh block-tcp: a firewall that lets
#     PVM's UDP through): its relay cannot open its stream to abmon, starts
#     within seconds all the same and sends its batches as PVM messages
#     (--relay-pvm's way): every event it counted is in the trace, no
#     abmon.lost, every task of node1 has its task.exit.
# shellcheck disable=SC1091  # lib.sh: the tests' shared part, beside this file
source "$(dirname "$0")/lib.sh"
vm_up 2
rm -f ./*.trace  # a trace of an earlier run in this directory would satisfy the waits below

# Relays of abmon tid $1 in this VM only: other tests' VMs run beside it,
# and their abmon has the same tid.
relays_of() {
  local pid n=0
  for pid in $("$HOSTS" --dir "$VM" pids); do
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "--relay $1," && n=$((n + 1))
  done
  echo "$n"
}
# The records of FILE's tasks on node2 all came through its relay.
node2_tasks() { task_records "$1" "$(relay_host "$1" node2)"; }
node2_via_relay() { local n; n=$(node2_tasks "$1"); ((n > 0)) && [[ $(relay_events "$1" node2) == "$n" ]]; }
node2_records() { [[ -f $1 ]] && (($(node2_tasks "$1") > 0)); }
no_relays_of() { (($(relays_of "$1") == 0)); }

# 0. The relays' mailbox entries are libab's, not the program's: a task on
# node1 lists the mailbox as it does with no abmon (tests/libab's program).
mailbox_check=0
[[ -x $BIN/xabt_prog && -x $BIN/xabt_prog_plain ]] && mailbox_check=1
((mailbox_check)) && plain_box=$(h run node1 "$BIN/xabt_prog_plain" mailbox 2>&1)

# 1. node2 added under a running abmon.
"$HOSTS" --dir "$VM" run node0 "$BIN/abmon" -o relay.trace 2>abmon.err &  # not h: SIGINT must reach it
abmon=$!
wait_for 20 grep -qs ' relay.start host=node1$' relay.trace || fail "no relay on node1: $(cat abmon.err)"
if ((mailbox_check)); then
  box=$(h run node1 "$BIN/xabt_prog" mailbox 2>&1)
  [[ $box == "$plain_box" ]] || fail "node1's task sees the mailbox otherwise with a relay: '$box', without abmon: '$plain_box'"
  ok "a task on node1 lists the mailbox as without abmon"
fi
h add node2 || fail "add node2"
wait_for 20 grep -qs ' relay.start host=node2$' relay.trace || fail "node2 added: no relay there: $(cat abmon.err)"
out=$(h run node0 timeout "$RUN_LIMIT" "$BIN/xabdemo" -n 6 --rounds 3 2>&1) || fail "the demo failed: $out"
wait_for 10 node2_via_relay relay.trace ||
  fail "node2's tasks: $(node2_tasks relay.trace) records, its relay counted $(relay_events relay.trace node2)"
grep -q ' tc[0-9a-f]* mytid rc=tc[0-9a-f]* name=xabdemo host=node2 ' relay.trace || fail "no task of node2 named host=node2"
ok "node2 added mid-run got a relay; $(node2_tasks relay.trace) records of its tasks came through it"

# 2. node2 deleted while the demo runs on all three hosts.
h run node0 "$BIN/xabdemo" -n 6 --rounds 100000 >long.out 2>&1 &
node2_results() { (($(count_lines ' tc[0-9a-f]* send dst=t[0-9a-f]* tag=16004 ' relay.trace) >= 10)); }
wait_for 60 node2_results || fail "node2's workers sent no 10 results in 60 s"
open_node2=$(awk '$3 ~ /^tc/ && $4 == "mytid" { open[$3] = 1 } $3 ~ /^tc/ && $4 == "task.exit" { delete open[$3] } END { print length(open) }' relay.trace)
before=$(wc -l <relay.trace)
t_delete=$(date +%s.%N)
h delete node2 || fail "delete node2"
wait_for 10 grep -qs ' host.delete host=node2 ' relay.trace || fail "no host.delete record for node2"
echo "note: host.delete in the trace $(awk -v a="$t_delete" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s after 'delete node2' began"
# The relay knows its tasks from their attach, before their first batch of
# records (a mytid still in a task's buffer): it may count more open tasks
# than the trace showed when the delete began, never fewer, and every task
# it ends is one that had not ended already.
deleted=$(awk '$4 == "host.delete" && $5 == "host=node2" { sub(/^tasks=/, "", $6); print $6; exit }' relay.trace)
exits=$(awk '$3 ~ /^tc/ && $4 == "task.exit" && $5 == "how=host"' relay.trace | wc -l)
grep -q " host.delete host=node2 tasks=[0-9]* how=delete\$" relay.trace || fail "host.delete: $(grep ' host.delete ' relay.trace)"
((deleted >= open_node2 && exits == deleted && exits > 0)) ||
  fail "host.delete tasks=$deleted, $exits task.exit how=host, $open_node2 tasks of node2 open in the trace before"
awk '$3 ~ /^tc/ && $4 == "mytid" { open[$3] = 1 }
  $3 ~ /^tc/ && $4 == "task.exit" && $5 == "how=host" { if ($3 in ended) print "task.exit how=host for " $3 ", which had ended"; delete open[$3]; next }
  $3 ~ /^tc/ && $4 == "task.exit" { delete open[$3]; ended[$3] = 1 }
  END { for (t in open) print "no task.exit for " t }' relay.trace >deleted.err
[[ -s deleted.err ]] && fail "node2's tasks at its delete: $(head -3 deleted.err)"
sleep 1
after=$(awk -v n="$before" 'NR > n && $3 ~ /^t8/ && $4 !~ /^relay/' relay.trace | wc -l)
((after > 0)) || fail "no record of node1's tasks after node2 was deleted"
master_pid=$(grep -o ' t4[0-9a-f]* mytid rc=t4[0-9a-f]* name=xabdemo host=node0 parent=none lang=c pid=[0-9]*' relay.trace | tail -1 | sed 's/.*pid=//')
[[ -n $master_pid ]] && kill -KILL "$master_pid"  # it waits for node2's results for ever
kill -INT "$abmon"
wait_for 20 eval "! alive $abmon" || fail "abmon did not stop on SIGINT"
wait "$abmon" || fail "abmon's status $?: $(cat abmon.err)"
[[ $(tail -1 relay.trace) == *' abmon.stop '* ]] || fail "the trace does not end with abmon.stop"
"$BIN/abstat" --json --tasks relay.trace >relay.json
[[ $(json relay.json '[h["deleted"] for h in d["hosts"] if h["host"] == "node2"]') == "[True]" ]] || fail "abstat: node2 not deleted: $(json relay.json 'd["hosts"]')"
ok "node2 deleted: host.delete and $exits task.exit how=host; $after records of node1's tasks after it"

# 3. abmon killed mid-run: the program finishes as it does unmonitored.
h add node2 || fail "add node2 again"
"$HOSTS" --dir "$VM" run node0 "$BIN/abmon" -o kill.trace 2>abmon2.err &
abmon=$!
wait_for 20 relay_starts kill.trace 2 || fail "abmon 2: not 2 relays: $(cat abmon2.err)"
abmon_tid=$(awk '$4 == "abmon.start" { print $3; exit }' kill.trace)
h run node0 timeout "$RUN_LIMIT" "$BIN/xabdemo" -n 6 --rounds 100 >monitored.out 2>&1 &
demo=$!
wait_for 30 node2_records kill.trace || fail "no record from node2 before the kill"
kill -KILL "$abmon"
wait "$demo" || fail "the demo failed after abmon was killed: $(cat monitored.out)"
result=$(grep '^xabdemo: result' monitored.out)
plain=$(h run node0 timeout "$RUN_LIMIT" "$BIN/xabdemo-plain" -n 6 --rounds 100 2>&1 | grep '^xabdemo: result')
[[ -n $result && $result == "$plain" ]] || fail "result '$result', the plain demo's '$plain'"
wait_for 20 no_relays_of $((16#${abmon_tid#t})) || fail "relays of the killed abmon still run"
ok "abmon killed mid-run: the demo on 3 hosts gave the plain result; its relays went away"

# 4. No TCP to or from node1.
h block-tcp node1 on || fail "block-tcp node1"
"$HOSTS" --dir "$VM" run node0 "$BIN/abmon" -o blocked.trace 2>abmon3.err &
abmon=$!
wait_for 20 relay_starts blocked.trace 2 || fail "node1's TCP blocked: not 2 relays within 20 s: $(cat abmon3.err)"
out=$(h run node0 timeout "$RUN_LIMIT" "$BIN/xabdemo" -n 6 --rounds 3 2>&1) || fail "the demo failed with node1's TCP blocked: $out"
kill -INT "$abmon"
wait_for 20 eval "! alive $abmon" || fail "abmon 3 did not stop on SIGINT"
wait "$abmon" || fail "abmon 3's status: $(cat abmon3.err)"
h block-tcp node1 off >/dev/null
node1=$(relay_host blocked.trace node1)
n=$(task_records blocked.trace "$node1")
relay_all_came blocked.trace node1 || fail "node1 by PVM messages: $n task records, its relay counted $(relay_events blocked.trace node1)"
grep -q ' abmon.lost ' blocked.trace && fail "abmon.lost with node1's TCP blocked: $(grep -m1 ' abmon.lost ' blocked.trace)"
unended blocked.trace "$node1" task.exit >blocked.err
[[ -s blocked.err ]] && fail "node1's tasks: $(head -3 blocked.err)"
ok "node1's TCP blocked: its relay came up and sent its $n records as PVM messages, none lost"
finish
