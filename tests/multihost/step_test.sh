#!/usr/bin/env bash
# Stepping through relays: abmon --control on node0, a client
# of its control socket (step_client.py: steps every call of every task)
# and the demo with workers on node0 and node1.  The stepped demo prints
# what the plain one does; tasks on node1 were stepped (their asks went
# through node1's relay to abmon, the go came back the same way), and each
# stepped task has exactly as many step.wait records as the client steps.
# shellcheck disable=SC1091  # lib.sh: the tests' shared part, beside this file
source "$(dirname "$0")/lib.sh"
vm_up 2
rm -f step.trace step.sock client.out

result() { grep '^xabdemo: result ' <<<"$1"; }
ref=$(h run node0 timeout "$RUN_LIMIT" "$BIN/xabdemo-plain" -n 4 --rounds 2 2>&1) || fail "the plain demo failed: $ref"
[[ -n $(result "$ref") ]] || fail "no result line from the plain demo: $ref"

"$HOSTS" --dir "$VM" run node0 "$BIN/abmon" --control "$VM/step.sock" -o step.trace 2>abmon.err &  # not h: SIGINT must reach it
abmon=$!
wait_for 20 grep -qs ' relay.start host=node1$' step.trace || fail "no relay on node1: $(cat abmon.err)"
h run node0 python3 "$SRC/tests/multihost/step_client.py" "$VM/step.sock" >client.out 2>&1 &
client=$!
wait_for 20 grep -qs '^connected$' client.out || fail "the client did not connect: $(cat client.out)"

out=$(h run node0 timeout "$RUN_LIMIT" "$BIN/xabdemo" -n 4 --rounds 2 2>&1) || fail "the stepped demo failed: $out"
[[ $(result "$out") == "$(result "$ref")" ]] || fail "stepped: '$(result "$out")', plain: '$(result "$ref")'"

kill -INT "$abmon"
wait_for 20 eval "! alive $abmon" || fail "abmon did not stop on SIGINT"
wait "$abmon" || fail "abmon's status $?: $(cat abmon.err)"
wait "$client" || fail "the client: $(cat client.out)"

# Per stepped task: the client's steps = its step.wait records; some on node1.
node1=0
while read -r tid n; do
  [[ $tid == t* ]] || continue
  w=$(awk -v t="$tid" '$3 == t && $4 == "step.wait"' step.trace | wc -l)
  ((w == n)) || fail "$tid: stepped $n times, $w step.wait records"
  [[ $(host_of_tid "$tid") == node1 ]] && node1=$((node1 + 1))
done <client.out
((node1 > 0)) || fail "no task on node1 was stepped: $(tr '\n' ' ' <client.out)"
workers1=$(awk '$4 == "mytid" && / host=node1 /' step.trace | wc -l)
((node1 == workers1)) || fail "$node1 tasks of node1 stepped, $workers1 ran there"
ok "the stepped demo gave the plain result; $(($(wc -l <client.out) - 1)) tasks stepped, $node1 of them on node1 through its relay"

# A host that goes while its tasks are held: the client
# (--hold-host: node1's number) steps xabrace's master, holds its workers, and once
# node1's workers are held node1 goes (ACTION: `delete`, or `kill-pvmd`,
# as if it crashed).  abmon must tell the client each held task of node1
# has gone, with its host ("event gone TID host node1 HOW": delete, or
# lost for a killed pvmd, which PVM notices only after minutes), and go on
# stepping the others: the client lets node0's workers go only then, and
# the master prints their results.  The master then waits for ever for
# node1's workers' results: it is killed.
count_is() { (($(grep -c "$2" "$3") == $1)); }  # count_is N PATTERN FILE
held_host_goes() {
  local action=$1 how=$2 race tid
  rm -f hold.trace hold.sock hold.out race.out
  "$HOSTS" --dir "$VM" run node0 "$BIN/abmon" --control "$VM/hold.sock" -o hold.trace 2>abmon2.err &
  abmon=$!
  wait_for 20 grep -qs ' relay.start host=node1$' hold.trace || fail "$action: no relay on node1: $(cat abmon2.err)"
  h run node0 python3 "$SRC/tests/multihost/step_client.py" "$VM/hold.sock" --hold-host "$(relay_host hold.trace node1)" >hold.out 2>&1 &
  client=$!
  wait_for 20 grep -qs '^connected$' hold.out || fail "$action: the client did not connect: $(cat hold.out)"
  "$HOSTS" --dir "$VM" run node0 timeout "$RUN_LIMIT" "$BIN/xabrace" -n 4 >race.out 2>&1 &
  race=$!
  # xabrace's 4 workers go round the 2 hosts: 2 on node1.
  wait_for 30 count_is 2 '^held ' hold.out || fail "$action: node1's workers were not held: $(tr '\n' ' ' <hold.out)"
  h "$action" node1 || fail "cannot $action node1"
  wait_for 30 count_is 2 '^gone ' hold.out ||
    fail "$action: the client was not told that node1's held tasks went: $(tr '\n' ' ' <hold.out)"
  while read -r _ tid; do
    grep -q "^gone $tid host node1 $how\$" hold.out || fail "$action: no 'event gone $tid host node1 $how': $(grep '^gone' hold.out | tr '\n' ' ')"
  done < <(grep '^held ' hold.out)
  # node0's workers were stepped after node1 went only: their results show
  # that stepping went on.
  wait_for 30 count_is 2 'got RESULT' race.out || fail "$action: stepping did not go on after node1 went: $(tr '\n' ' ' <race.out)"
  grep -q '^after ' hold.out || fail "$action: no task stepped after node1 went"
  kill "$race" 2>/dev/null
  wait "$race"
  kill -INT "$abmon"
  wait_for 20 eval "! alive $abmon" || fail "$action: abmon did not stop on SIGINT"
  wait "$abmon" || fail "$action: abmon's status $?: $(cat abmon2.err)"
  wait "$client" || fail "$action: the client: $(cat hold.out)"
  ok "$action node1 while 2 of its tasks were held: the client was told ($(grep '^gone' hold.out | head -1)), node0's tasks stepped on"
}
held_host_goes delete delete
h add node1 || fail "cannot add node1 again"
held_host_goes kill-pvmd lost
finish
