#!/usr/bin/env bash
# Stepping through relays (issue 16 §3): abmon --control on node0, a client
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
finish
