#!/usr/bin/env bash
# abrun_interrupt_test.sh BUILD_DIR SOURCE_DIR -- abrun_examples
# (abrun_test.sh) ended mid-run leaves no pvmd, and no process of its VM,
# behind:
#   SIGTERM (a user's kill): its EXIT trap stops the VM at once;
#   SIGKILL (what ctest's TIMEOUT sends, to the test's own process only: no
#     trap runs, its children live on): the watchdog of
#     `pvm-vm.sh start --owner $$` stops the VM once the script has gone.
# The run is ended once abrun's first trace exists: abmon and master1's
# tasks run in the VM.  Everything checked is the real thing: the pvmd's
# pid from the VM's pvmd.pid, pvmd's address file in its PVM_TMP, and
# every process whose environment names the VM's PVM_VMID.
# shellcheck disable=SC2317  # cleanup runs from the trap
set -uo pipefail
build_dir=$(cd "$1" && pwd) src_dir=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
base=$(mktemp -d "${TMPDIR:-/tmp}/xab-abrunint.XXXXXX")
victim=""
cleanup() {
  [[ -n $victim ]] && kill -KILL "$victim" 2>/dev/null
  local vm
  for vm in "$base"/*/xab-abrun.*/vm; do
    [[ -d $vm ]] && XAB_VM_QUIET=1 "$src_dir/scripts/pvm-vm.sh" stop "$vm" >/dev/null 2>&1
  done
  rm -rf "$base"
}
trap cleanup EXIT
# shellcheck source=SCRIPTDIR/vm_helpers.sh
source "$here/vm_helpers.sh"  # fail, wait_for, vm_processes
pvmd_alive() { [[ $(cat "/proc/$1/comm" 2>/dev/null) == pvmd* ]]; }
no_vm_processes() { [[ -z $(vm_processes "$1") ]]; }
mid_run() { compgen -G "$1/xab-abrun.*/m.trace" >/dev/null && compgen -G "$1/xab-abrun.*/vm/pvmd.pid" >/dev/null; }

for sig in TERM KILL; do
  tmp=$base/$sig
  mkdir -p "$tmp"
  TMPDIR=$tmp "$here/abrun_test.sh" "$build_dir" "$src_dir" >"$tmp/out" 2>&1 &
  victim=$!
  if ! wait_for 60 mid_run "$tmp"; then
    fail "SIG$sig: abrun_test.sh never got to its first abrun: $(cat "$tmp/out")"
    continue
  fi
  vm=$(compgen -G "$tmp/xab-abrun.*/vm")
  pvmd=$(cat "$vm/pvmd.pid")
  # shellcheck disable=SC1091  # written at run time
  vmid=$(source "$vm/env" && echo "$PVM_VMID")
  addr="$vm/tmp/pvmd.$(id -u).$vmid"
  pvmd_alive "$pvmd" || fail "SIG$sig: the VM's pvmd $pvmd is not running mid-run"
  kill -"$sig" "$victim"
  wait "$victim"
  victim=""
  if wait_for 20 eval "! pvmd_alive $pvmd"; then
    echo "ok: SIG$sig: pvmd $pvmd gone"
  else
    fail "SIG$sig: pvmd $pvmd of $vm still runs 20 s after the script was ended"
    kill -KILL "$pvmd" 2>/dev/null  # ours: started by the script we ran
  fi
  [[ ! -e $addr ]] || fail "SIG$sig: pvmd's address file $addr is still there"
  if ! wait_for 20 no_vm_processes "$vmid"; then
    left=$(vm_processes "$vmid")
    fail "SIG$sig: processes of the VM left: $(for p in $left; do tr '\0' ' ' <"/proc/$p/cmdline"; echo; done)"
    for p in $left; do kill -KILL "$p" 2>/dev/null; done  # ours: the script's children
  else
    echo "ok: SIG$sig: no process of the VM left"
  fi
done
exit "$failed"
