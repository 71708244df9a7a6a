#!/usr/bin/env bash
# The demo over 3 hosts, workers on every host, under one abmon on node0:
# every receive matched to its send, every task's name and host right, and
# the records of node1's and node2's tasks came through their hosts' relays.
# shellcheck disable=SC1091  # lib.sh: the tests' shared part, beside this file
source "$(dirname "$0")/lib.sh"
vm_up 3
rm -f worker-hosts  # appended to below; an earlier run's would count twice

out=$(h run node0 timeout "$RUN_LIMIT" "$BIN/abmon" -o demo.trace -- "$BIN/xabdemo" -n 6 --rounds 3 2>&1) || fail "the demo failed: $out"
grep -q '^xabdemo: result workers=6 rounds=3 ' <<<"$out" || fail "no result line: $out"
[[ $(tail -1 demo.trace) == *' abmon.stop '* ]] || fail "the trace does not end with abmon.stop"
"$BIN/abstat" --json demo.trace >demo.json; rc=$?
((rc == 0)) || fail "abstat --json: status $rc"

# Messages: 6 workers x (3 blocks + 3 results) + the mcast to 6 = 42.
[[ $(json demo.json 'd["messages"]["messages"]') == 42 ]] || fail "messages: $(json demo.json 'd["messages"]')"
[[ $(json demo.json 'd["messages"]["matched"]') == 42 ]] || fail "not every message matched: $(json demo.json 'd["messages"]')"
[[ $(json demo.json 'd["messages"]["unmatchedReceives"] + d["messages"]["unreceivedMessages"]') == 0 ]] ||
  fail "receives without sends or sends never received: $(json demo.json 'd["messages"]')"
[[ $(json demo.json 'd["messages"]["consistent"]') == True ]] || fail "inconsistent messages"

# Tasks: the master and 6 workers, all exited; each task's host (abmon's
# host= of its first record, as abstat read it) is the host its tid says;
# workers on every host.
[[ $(json demo.json 'len(d["tasks"])') == 7 ]] || fail "tasks: $(json demo.json 'len(d["tasks"])'), not 7"
while read -r tid name host parent exit lost; do
  [[ $name == xabdemo ]] || fail "$tid: name $name"
  [[ $host == "$(host_of_tid "$tid")" ]] || fail "$tid: host $host, its tid says $(host_of_tid "$tid")"
  [[ $exit == exit && $lost == 0 ]] || fail "$tid: exit=$exit lost=$lost"
  grep -q " $tid mytid rc=$tid name=xabdemo host=$host " demo.trace || fail "$tid: its first record does not say host=$host"
  [[ $parent != None ]] && echo "$host" >>worker-hosts
done < <(json demo.json '"\n".join("%s %s %s %s %s %s" % (t["tid"], t["name"], t["host"], t["parent"], t["exit"], t["lost"] + t["lost_messages"]) for t in d["tasks"])')
[[ $(sort -u worker-hosts | tr '\n' ' ') == "node0 node1 node2 " ]] || fail "workers ran on: $(sort worker-hosts | uniq -c | tr '\n' ' ')"
ok "42 messages matched; 7 tasks, workers on $(sort worker-hosts | uniq -c | tr -s ' \n' ' ')"

# Relays: one on node1 and one on node2, started before the
# program, stopped at the end; each host's task records are exactly the
# events its relay's batches counted (they came through it, not to abmon).
relay_checks
finish
