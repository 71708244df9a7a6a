#!/usr/bin/env bash
# abmon as PVM's tracer on three pseudo-hosts, one VM:
#  1. a program on node0 spawns its tasks on node1: they are traced (their
#     records, matched by order), their output collected as output records;
#  2. node1 deleted and added again: the tasks of its new pvmd are traced
#     too, and the relay abmon starts there (which pvmd now traces like any
#     task) leaves no records of its own PVM calls;
#  3. abrun on three hosts, several runs: the relays abmon tells to stop at
#     the program's end exit, and no warning says they have.
# shellcheck disable=SC1091  # lib.sh: the tests' shared part, beside this file
source "$(dirname "$0")/lib.sh"
vm_up 3
rm -f ./*.trace
talk=$BUILD/pvm-examples/plain/abrun_talk
[[ -x $talk ]] || { echo "SKIP: no $talk in this build"; exit 77; }

"$HOSTS" --dir "$VM" run node0 "$BIN/abmon" --pvm-tracer -o tracer.trace 2>abmon.err &  # not h: SIGINT must reach it
abmon=$!
wait_for 20 grep -qs ' relay.start host=node1$' tracer.trace || fail "no relay on node1: $(cat abmon.err)"

# children: the tids of node1's abrun_talk tasks in FILE, in order.
children() { awk '$4 == "output" && $3 ~ /^t8/ {print $3}' "$1" | awk '!seen[$0]++'; }
run_talk() {
  local out
  out=$(h run node0 timeout "$RUN_LIMIT" "$talk" host node1 2>&1)
  [[ $out == "parent done 2" ]] || fail "abrun_talk on node1: $out"
}

# 1. Tasks on node1: traced and their output collected.
run_talk
two_children() { (($(children tracer.trace | wc -l) == 2)); }
two_relays() { (($(grep -c " relay.start host=node1$" tracer.trace) == 2)); }
wait_for 10 two_children || fail "node1's 2 tasks: no output records of them"
first=$(children tracer.trace | sort | tr '\n' ' ')
for t in $first; do
  [[ $(host_of_tid "$t") == node1 ]] || fail "$t is not a task of node1"
  grep -q " $t recv .*match=order" tracer.trace || fail "$t: its receive is not traced"
  (($(grep -c " $t output stream=- text=" tracer.trace) == 2)) || fail "$t: not its 2 output lines"
done
ok "node1's tasks ($first) traced, their output collected"

# 2. node1 deleted and added again while abmon traces: the new pvmd's
# tasks are traced too, and abmon's relay there, which pvmd now starts
# traced like any task, leaves only its own records (not its PVM calls).
h delete node1 || fail "delete node1"
h add node1 || fail "add node1"
wait_for 20 two_relays || fail "node1 added again: no relay"
relay=$(awk '$4 == "relay.start" && / host=node1$/ {t = $3} END {print t}' tracer.trace)
before=$(wc -l <tracer.trace)
run_talk
kill -INT "$abmon"
wait_for 20 eval "! alive $abmon" || fail "abmon did not stop on SIGINT"
wait "$abmon" || fail "abmon's status $?: $(cat abmon.err)"
second=$(tail -n +"$((before + 1))" tracer.trace | awk '$4 == "output" && $3 != "t40000" {print $3}' | sort -u | grep -v '^t4' | tr '\n' ' ')
(($(wc -w <<<"$second") == 2)) || fail "node1's second tasks: output records of '$second', not 2 tasks"
for t in $second; do
  [[ $(host_of_tid "$t") != node0 ]] || fail "$t is not a task of node1"
  grep -q " $t recv .*match=order" tracer.trace || fail "$t: its receive is not traced"
done
pvm_calls=$(awk -v r="$relay" '$3 == r && $4 !~ /^(relay\.|clock|host\.|sample)/' tracer.trace | wc -l)
((pvm_calls == 0)) || fail "the relay $relay's own PVM calls are in the trace ($pvm_calls records): $(awk -v r="$relay" '$3 == r {print $4}' tracer.trace | sort | uniq -c | head -5 | tr '\n' ' ')"
"$BIN/abstat" tracer.trace >tracer.stat 2>&1 || fail "abstat: status $? on the trace: $(head -5 tracer.stat)"
ok "node1 added again: its tasks ($second) traced, its relay's PVM calls not"

# 3. Three hosts, a program run under abrun to its end, 6 times: abmon
# tells its 2 relays to stop, and their exits (pvmd's notice may come
# before a relay's last batch is read) are no warning.
for i in $(seq 6); do
  out=$(h run node0 timeout "$RUN_LIMIT" "$BIN/abrun" -o stop.trace "$talk" host node1 2>&1)
  [[ $out == "parent done 2" ]] || fail "abrun on 3 hosts, run $i: $out"
  (($(grep -c ' relay.stop host=node[12] ' stop.trace) == 2)) || fail "run $i: not 2 relay.stop records: $(grep ' relay\.' stop.trace | cut -d' ' -f4- | tr '\n' ' ')"
done
ok "abrun on 3 hosts, 6 runs: the relays stopped without a warning"
finish
