#!/usr/bin/env bash
# Packets node1 receives held for 30 ms (iptables NFQUEUE and nfqdelay in
# node1's namespace): a round trip node0 -> node1 through the pvmds takes
# at least 30 ms, and is fast again once the delay is off.
# shellcheck disable=SC1091  # lib.sh: the tests' shared part, beside this file
source "$(dirname "$0")/lib.sh"
[[ -x $XAB_NFQDELAY ]] || { echo "SKIP: nfqdelay is not built (libnetfilter-queue-dev)"; exit 77; }
PP=$BUILD/bench/pingpong-plain
[[ -x $PP ]] || { echo "FAIL: $PP is not built"; exit 1; }
vm_up 2 --bin "$BUILD/bench"

median() { h run node0 "$PP" roundtrip -n 20 -r 3 -w 2 -d 0 -H node1 | sed -n 's/.* median_us=\([0-9]*\).*partner=\(t[0-9a-f]*\).*/\1 \2/p'; }
h delay node1 30 || fail "delay node1 30"
read -r slow partner < <(median)
[[ $(host_of_tid "${partner:-t0}") == node1 ]] || fail "the partner $partner is not on node1"
((${slow:-0} >= 30000)) || fail "round trip with 30 ms delay: ${slow:-?} us"
h delay node1 0 || fail "delay node1 0"
read -r fast _ < <(median)
((${fast:-99999} < 20000)) || fail "round trip without delay: ${fast:-?} us"
grep -q 'stopped after [1-9]' "$VM/node1/delay.log" || fail "nfqdelay held no packet: $(cat "$VM/node1/delay.log")"
ok "round trip node0-node1: ${slow} us with 30 ms delay, ${fast} us without"
finish
