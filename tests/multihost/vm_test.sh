#!/usr/bin/env bash
# The pseudo-hosts themselves: each has its own hostname, address and
# /etc/hosts; the machine's own namespace and /etc/hosts stay untouched;
# add and delete go through PVM; down (and a failed up) leave nothing.
# shellcheck disable=SC1091  # lib.sh: the tests' shared part, beside this file
source "$(dirname "$0")/lib.sh"

# The machine's own namespace (other tests' VMs may come and go meanwhile:
# their namespaces are not in it).
root_ns() { ip -o link show; ip -o addr show; ip route show; }
before=$(root_ns) hosts_before=$(cksum </etc/hosts)

vm_up 3
for k in 0 1 2; do
  [[ $(h run "node$k" hostname) == "node$k" ]] || fail "node$k: hostname is $(h run "node$k" hostname)"
  has " 10.77.0.1$k/24 " h run "node$k" ip -o addr show eth0 || fail "node$k: no address 10.77.0.1$k"
  h run "node$k" grep -q '^10.77.0.12 node2$' /etc/hosts || fail "node$k: its /etc/hosts does not name node2"
done
[[ $(h run node1 printenv PVM_TMP) == "$VM/node1/tmp" ]] || fail "node1's PVM_TMP is not its own"
has '^3 hosts' h status || fail "status does not show 3 hosts: $(h status)"
[[ $(cksum </etc/hosts) == "$hosts_before" ]] || fail "the real /etc/hosts changed"
after=$(root_ns)
[[ $after == "$before" ]] || fail "the machine's own namespace changed: $(diff <(echo "$before") <(echo "$after"))"
ok "3 hosts with their own names, addresses and /etc/hosts; nothing in the machine's namespace"

h add node3 || fail "add node3"
[[ $(h run node3 hostname) == node3 ]] || fail "node3's hostname"
has '^4 hosts' h status || fail "the VM does not have 4 hosts after add"
has ' node3 ' h run node0 sh -c 'echo conf | pvm' || fail "node0's console does not see node3"
h delete node3 || fail "delete node3"
has '^3 hosts' h status || fail "the VM does not have 3 hosts after delete"
ok "add and delete a host"

holders=$(for k in 0 1 2 3; do cat "$VM/node$k/holder.pid"; done)
pvmds=$(h status | awk '/^node/ { print $4 }' | tr ',' ' ')
prefix=$(h status | sed -n 's/^namespaces: \([^ -]*\)-.*/\1/p')
h down || fail "down"
has "^$prefix-" ip netns list && fail "namespaces left after down: $(ip netns list | grep "^$prefix-")"
for p in $holders $pvmds; do wait_for 5 eval "! alive $p" || fail "process $p still runs after down"; done
[[ $(root_ns) == "$before" ]] || fail "the machine's own namespace differs after down"
ok "down removes every namespace and process"

# A failing up (after it made the bridge and the hosts) removes them too.
h up 2 --bin "$BIN" --skew node5=+1h 2>/dev/null && fail "up with a skew for a host it does not make succeeded"
has "^$prefix-" ip netns list && fail "namespaces left after a failed up: $(ip netns list | grep "^$prefix-")"
[[ $(root_ns) == "$before" ]] || fail "a failed up changed the machine's own namespace"
ok "a failed up leaves nothing"
finish
