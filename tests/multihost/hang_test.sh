#!/usr/bin/env bash
# The demo's --hang over 3 hosts: abstat says why it hangs (the master
# waits for tag 16040, the workers on the three hosts sent 16004).
# shellcheck disable=SC1091  # lib.sh: the tests' shared part, beside this file
source "$(dirname "$0")/lib.sh"
vm_up 3
rm -f hang.trace  # an earlier run's trace would satisfy the wait below

# `run` execs: $! is abmon itself (not through the function h: that
# would be a subshell).
"$HOSTS" --dir "$VM" run node0 "$BIN/abmon" -o hang.trace -- "$BIN/xabdemo" -n 3 --rounds 1 --hang >hang.out 2>&1 &
abmon=$!
three_results() { [[ $(grep -c ' send dst=t[0-9a-f]* tag=16004 ' hang.trace 2>/dev/null) == 3 ]] &&
                    grep -q ' recv.begin src=any tag=16040' hang.trace; }
wait_for 60 three_results || fail "no 3 results sent and a master waiting for 16040 after 60 s: $(tail -3 hang.trace)"
sleep 1 # the workers' records after their send (they block too)
"$BIN/abstat" --json --hang hang.trace >hang.json; rc=$?
((rc == 2)) || fail "abstat --hang: status $rc, not 2 (hang)"
blocked=$(json hang.json '" ".join(b["task"]["tid"] + ":" + b["tag"] for b in d["hang"]["blocked"] if b["state"] == "receiving" and b.get("tag") == "16040")')
master=${blocked%%:*}
[[ -n $blocked && $master == t4* ]] || fail "the master (on node0) is not blocked receiving tag 16040: $(json hang.json 'd["hang"]')"
pending=$(json hang.json '" ".join(p["from"]["tid"] for b in d["hang"]["blocked"] if b.get("tag") == "16040" for p in b["pending"] if p["tag"] == 16004 and not p["matches"])')
where=$(for t in $pending; do host_of_tid "$t"; done | sort -u | tr '\n' ' ')
[[ $where == "node0 node1 node2 " ]] || fail "pending 16004 results from $pending (hosts $where), not from a worker on each host"
has 'waits for tag 16040 from any task' "$BIN/abstat" --hang hang.trace || fail "abstat's text does not explain the hang"
ok "abstat: master $master waits for 16040; results with 16004 pending from $where"

kill -INT "$abmon"
wait_for 10 eval "! kill -0 $abmon 2>/dev/null" || fail "abmon did not stop on SIGINT"
[[ $(tail -1 hang.trace) == *' abmon.stop '* ]] || fail "the trace does not end with abmon.stop"
finish
