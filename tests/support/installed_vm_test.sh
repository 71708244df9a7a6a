#!/usr/bin/env bash
# installed_vm_test.sh BUILD_DIR -- a user of an installed xab, with only
# its bin/ on PATH, starts a private virtual machine with xab-vm, records
# the demo (whose workers pvm_spawn must find in xab's own directory) and
# stops the VM: the user guide's path (docs/user-guide.md, sections 2 and 5).
# shellcheck disable=SC2317  # cleanup runs from the trap
set -uo pipefail
build_dir=$(cd "$1" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/xab-vm-test.XXXXXX")
vm=$work/vm
cleanup() {
  [[ -x $work/prefix/bin/xab-vm ]] && XAB_VM_QUIET=1 "$work/prefix/bin/xab-vm" stop "$vm" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null || { echo "FAIL: cmake --install"; exit 1; }
export PATH=$work/prefix/bin:/usr/bin:/bin
command -v xab-vm >/dev/null || { echo "FAIL: no xab-vm installed"; exit 1; }
[[ $(xab-vm --version) == "xab-vm (xab) "[0-9]* ]] || fail "xab-vm --version: $(xab-vm --version)"

mkdir "$work/run" && cd "$work/run" || exit 1
xab-vm start --owner $$ "$vm" . || { echo "FAIL: xab-vm start"; exit 1; }
grep -q "ep=$work/run:$work/prefix/bin:/usr/bin\$" "$vm/hostfile" || fail "hostfile: $(cat "$vm/hostfile")"
xab-vm status "$vm" >/dev/null || fail "xab-vm status: not running after start"
# shellcheck disable=SC1091
source "$vm/env"
timeout 120 abmon -q -o demo.trace -- xabdemo -n 2 --rounds 1 >demo.out 2>&1 || fail "the demo under abmon: $(cat demo.out)"
grep -q "xabdemo: result workers=2" demo.out || fail "the demo's result: $(cat demo.out)"
(($(grep -c ' task.exit ' demo.trace) == 3)) || fail "demo.trace: not 3 task.exit records"
xab-vm stop "$vm" >/dev/null 2>&1 || fail "xab-vm stop"
xab-vm status "$vm" >/dev/null && fail "xab-vm status: running after stop"
((failed)) || echo "xab-vm: a private VM for an installed xab, the demo recorded in it"
exit "$failed"
