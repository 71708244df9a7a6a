#!/usr/bin/env bash
# vm_watchdog_test.sh SCRIPT -- pvm-vm.sh's --owner watchdog stops the VM it
# was started with, and only that one.
#
# A script that runs twice in a row in the same directory (a field driver,
# a test run again) stops its VM, ends, and the next run starts a new VM
# there.  The first run's watchdog, asleep between two looks, then wakes to
# find its owner gone: it must leave the new VM alone.  The watchdog is held
# (SIGSTOP) across the stop and the new start so that the order of events is
# the same on every run, not a matter of scheduling.
# shellcheck disable=SC2317  # cleanup runs from the trap
set -uo pipefail
script=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/xab-vmdog.XXXXXX")
vm=$work/vm
owners=()
cleanup() {
  local p
  for p in "${owners[@]}"; do kill "$p" 2>/dev/null; done
  XAB_VM_QUIET=1 "$script" stop "$vm" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
export XAB_VM_QUIET=1
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# wait_for SECONDS COMMAND...: until COMMAND succeeds, at most SECONDS.
wait_for() {
  local limit=$(($1 * 10)) i
  shift
  for ((i = 0; i < limit; i++)); do
    "$@" && return 0
    sleep 0.1
  done
  return 1
}
# The watchdog of owner PID for DIR (its command line names both).
watchdog_of() { pgrep -f -- "watch $vm $1 " | head -1; }
gone() { ! kill -0 "$1" 2>/dev/null; }
stopped() { ! "$script" status "$vm" >/dev/null 2>&1; }
running() { "$script" status "$vm" >/dev/null 2>&1; }

sleep 600 &
first=$!
owners+=("$first")
"$script" start --owner "$first" "$vm" || { echo "FAIL: first start"; exit 1; }
has_watchdog() { [[ -n $(watchdog_of "$1") ]]; }
wait_for 10 has_watchdog "$first" || { echo "FAIL: no watchdog for the first VM"; exit 1; }
dog=$(watchdog_of "$first")
first_pvmd=$(cat "$vm/pvmd.pid")

kill -STOP "$dog"
"$script" stop "$vm" || fail "stopping the first VM"
sleep 600 &
second=$!
owners+=("$second")
"$script" start --owner "$second" "$vm" || { kill -CONT "$dog"; echo "FAIL: second start"; exit 1; }
second_pvmd=$(cat "$vm/pvmd.pid")
[[ $second_pvmd != "$first_pvmd" ]] || fail "the second VM has the first one's pvmd pid"

# The first owner ends; its watchdog wakes.
kill "$first"
wait "$first" 2>/dev/null
kill -CONT "$dog"
wait_for 20 gone "$dog" || fail "the first watchdog is still there 20 s after its owner ended"
running || fail "the first owner's watchdog stopped the second VM (pvmd $second_pvmd)"
[[ $(cat "$vm/pvmd.pid" 2>/dev/null) == "$second_pvmd" ]] || fail "the second VM's pvmd changed"

# The second VM's own watchdog still stops it when its owner ends.
kill "$second"
wait "$second" 2>/dev/null
wait_for 20 stopped || fail "the second VM still runs 20 s after its owner ended"

((failed)) || echo "pvm-vm.sh: a watchdog stops its own VM, never a later one in the same directory"
exit "$failed"
