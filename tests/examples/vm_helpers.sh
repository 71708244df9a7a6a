# vm_helpers.sh -- sourced by the example tests that watch a private
# virtual machine's processes (abrun_test.sh, abrun_interrupt_test.sh,
# abrun_safety_test.sh).
# shellcheck shell=bash

# A check that failed: said, and remembered in $failed (the script's status).
# shellcheck disable=SC2034  # $failed is read by the script that sources this
failed=0
# shellcheck disable=SC2034
fail() { echo "FAIL: $*"; failed=1; }

# Lines with their tids (t40003, 0x40003) masked, sorted: what two runs
# of one program share.
mask() { sed -E 's/\b(t|0x)?[0-9a-fA-F]*4[0-9a-fA-F]{4}\b/TID/g' | sort; }

# Waits up to $1 seconds for the command after it to succeed.
wait_for() {
  local i limit=$(($1 * 10)); shift
  for ((i = 0; i < limit; i++)); do "$@" && return 0; sleep 0.1; done
  return 1
}

# Processes (pids) whose environment holds PVM_VMID=$1: the VM's.
vm_processes() {
  local f pid
  for f in /proc/[0-9]*/environ; do
    pid=${f#/proc/}; pid=${pid%/environ}
    [[ $pid == "$$" || $pid == "$BASHPID" ]] && continue
    tr '\0' '\n' 2>/dev/null <"$f" | grep -qxF "PVM_VMID=$1" && echo "$pid"
  done
}
