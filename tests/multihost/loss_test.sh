#!/usr/bin/env bash
# 10 % of the packets to and from node2 dropped on the bridge: PVM
# retransmits, the demo finishes with the same result as the plain demo,
# and the trace has lost nothing.
# shellcheck disable=SC1091  # lib.sh: the tests' shared part, beside this file
source "$(dirname "$0")/lib.sh"
vm_up 3
h loss node2 10 || fail "loss node2 10"

out=$(h run node0 timeout "$RUN_LIMIT" "$BIN/abmon" -o loss.trace -- "$BIN/xabdemo" -n 6 --rounds 10 2>&1) || fail "the demo failed: $out"
result=$(grep '^xabdemo: result' <<<"$out")
plain=$(h run node0 timeout "$RUN_LIMIT" "$BIN/xabdemo-plain" -n 6 --rounds 10 2>&1 | grep '^xabdemo: result')
[[ -n $result && $result == "$plain" ]] || fail "result '$result', the plain demo's '$plain'"
dropped=$(h status | awk '/numgen random/ { for (i = 1; i < NF; i++) if ($i == "packets") n += $(i + 1) } END { print n + 0 }')
((dropped > 0)) || fail "no packet was dropped: $(h status)"

"$BIN/abstat" --json loss.trace >loss.json || fail "abstat --json: status $?"
grep -q ' abmon.lost ' loss.trace && fail "abmon.lost in the trace: $(grep ' abmon.lost ' loss.trace)"
[[ $(json loss.json 'd["messages"]["messages"]') == 126 ]] || fail "messages: $(json loss.json 'd["messages"]')"
[[ $(json loss.json 'd["messages"]["matched"]') == 126 ]] || fail "not every message matched: $(json loss.json 'd["messages"]')"
[[ $(json loss.json 'sum(t["lost"] + t["lost_messages"] for t in d["tasks"])') == 0 ]] || fail "tasks lost events"
[[ $(json loss.json 'sorted(set(t["exit"] for t in d["tasks"]))') == "['exit']" ]] || fail "not every task exited"
[[ $(json loss.json 'sum(1 for t in d["tasks"] if t["host"] == "node2")') -ge 1 ]] || fail "no task on node2"
ok "$dropped packets dropped; result as plain; 126 messages matched, nothing lost"
finish
