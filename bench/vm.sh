# vm.sh -- sourced by the bench scripts that run in a private PVM virtual
# machine of their own:
#
#   source "$HERE/vm.sh"
#   bench_vm NAME EP_DIR...
#
# makes `work` (a fresh ${TMPDIR:-/tmp}/xab-NAME.XXXXXX), starts a quiet
# private VM in work/vm whose tasks are found in the EP_DIRs
# (scripts/pvm-vm.sh start) and exports its environment (PVM_ROOT,
# PVM_VMID, ...).  On exit the VM stops and `work` goes.
# shellcheck shell=bash disable=SC2034  # work: the caller's

bench_vm() {
  local name=$1
  shift
  work=$(mktemp -d "${TMPDIR:-/tmp}/xab-$name.XXXXXX")
  trap bench_vm_stop EXIT
  XAB_VM_QUIET=1 "$(dirname "${BASH_SOURCE[0]}")/../scripts/pvm-vm.sh" start "$work/vm" "$@" >/dev/null
  # shellcheck disable=SC1091  # written by pvm-vm.sh at run time
  source "$work/vm/env"
}

bench_vm_stop() {
  XAB_VM_QUIET=1 "$(dirname "${BASH_SOURCE[0]}")/../scripts/pvm-vm.sh" stop "$work/vm" >/dev/null 2>&1
  rm -rf "$work"
}
