#!/usr/bin/env bash
# abmon stopped (SIGINT) while node2's TCP is dropped for 3.5 s
# (pvm-hosts.sh block-tcp: PVM's UDP still passes): node2's relay is told
# to stop at once (a PVM message) and exits, but its last frames, Stop
# among them, wait on its stream in TCP's retransmissions until the link is
# back -- as on a lossy link (multihost_loss), where they came seconds late
# and a task's last records with them.  abmon waits for a relay whose stream
# is still open (a host that has gone ends it, by the stream's keepalive):
# node2's relay.stop is in the trace, with every event node2's relay
# counted, and every task of node2's has exited.
# shellcheck disable=SC1091  # lib.sh: the tests' shared part, beside this file
source "$(dirname "$0")/lib.sh"
vm_up 3
rm -f ./*.trace  # a trace of an earlier run in this directory would satisfy the waits below

"$HOSTS" --dir "$VM" run node0 "$BIN/abmon" -v -o stop.trace 2>abmon.err &  # not h: SIGINT must reach it
abmon=$!
wait_for 20 relay_starts stop.trace 2 || fail "not 2 relays within 20 s: $(cat abmon.err)"
out=$(h run node0 timeout "$RUN_LIMIT" "$BIN/xabdemo" -n 6 --rounds 3 2>&1) || fail "the demo failed: $out"
h block-tcp node2 on >/dev/null || fail "block-tcp node2 on"
kill -INT "$abmon"
sleep 3.5
h block-tcp node2 off >/dev/null || fail "block-tcp node2 off"
wait_for 30 eval "! alive $abmon" || fail "abmon did not stop within 30 s of SIGINT"
wait "$abmon" || fail "abmon's status: $(tail -3 abmon.err)"

grep -q ' relay.stop host=node2 ' stop.trace || fail "no relay.stop for node2: abmon did not wait for its stream ($(grep -E 'relay|stop' abmon.err | tail -3))"
node2=$(relay_host stop.trace node2)
n=$(task_records stop.trace "$node2")
relay_all_came stop.trace node2 || fail "node2: $n task records, its relay counted $(relay_events stop.trace node2)"
grep -q ' host.delete ' stop.trace && fail "a host taken as gone: $(grep -m1 ' host.delete ' stop.trace)"
unended stop.trace "$node2" exit >stop.err
[[ -s stop.err ]] && fail "node2's tasks: $(head -3 stop.err)"
ok "node2's TCP dropped while abmon stopped: its relay's last frames came once it was back, $n records, none lost"
finish
