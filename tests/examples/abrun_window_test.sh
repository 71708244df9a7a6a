#!/usr/bin/env bash
# abrun_window_test.sh BUILD_DIR SOURCE_DIR -- the hang verdict of a
# window is the whole file's, in one private VM: abrun_montecarlo (a master
# spawning rounds of workers that end without pvm_exit, so PVM's tracer
# loses their last records) under abrun, long enough that `abstat --follow
# --budget 1M` cuts it several times; abstat on the whole file and abstat
# through the window agree on the hang (none), on its exit status, and on
# which workers have records missing (the master's message each waited for
# is before the window).
# shellcheck disable=SC2317,SC1091  # cleanup runs from the trap; the VM's env file is made at run time
set -uo pipefail
build_dir=$(cd "$1" && pwd) src_dir=$(cd "$2" && pwd)
plain_bin=$build_dir/pvm-examples/plain
abrun=$build_dir/bin/abrun abstat=$build_dir/bin/abstat
work=$(mktemp -d "${TMPDIR:-/tmp}/xab-abrunwin.XXXXXX")
cleanup() {
  XAB_VM_QUIET=1 "$src_dir/scripts/pvm-vm.sh" stop "$work/vm" >/dev/null 2>&1
  if [[ -n ${XAB_EXAMPLES_KEEP:-} ]]; then echo "kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
# shellcheck source=SCRIPTDIR/vm_helpers.sh
source "$src_dir/tests/examples/vm_helpers.sh"  # fail

XAB_VM_QUIET=1 "$src_dir/scripts/pvm-vm.sh" start --owner $$ "$work/vm" "$plain_bin" >/dev/null || { echo "cannot start a VM"; exit 1; }
source "$work/vm/env"
cd "$plain_bin" || exit 1

# The tasks abstat says have records missing, by tid.
missing() { grep -o '^  ([a-z_]*, [0-9]*) ended without pvm_exit in recv while a message for it' "$1" | sort; }

# A run in which no worker lost its last receive proves nothing: up to 3.
lost=0
for run in 1 2 3; do
  timeout 120 "$abrun" -o "$work/mc.trace" ./abrun_montecarlo 6 8 40 >"$work/mc.out" 2>&1; rc=$?
  [[ $rc == 0 ]] || { fail "run $run: abrun status $rc: $(head -3 "$work/mc.out")"; break; }
  "$abstat" --no-progress "$work/mc.trace" >"$work/whole.txt" 2>&1; rc_whole=$?
  timeout 120 "$abstat" --no-progress --follow --budget 1M "$work/mc.trace" >"$work/window.txt" 2>&1; rc_window=$?
  lost=$(missing "$work/whole.txt" | wc -l)
  ((lost > 0)) && break
done
((lost > 0)) || fail "no worker of 3 runs has records missing: $(grep -A2 '^Hang' "$work/whole.txt")"
grep -q '^window: the newest [0-9]* of the run.s [0-9]* records' "$work/window.txt" || fail "--budget 1M did not cut the run: $(sed -n 2p "$work/window.txt")"
[[ $rc_whole == 0 ]] || fail "abstat on the whole file: exit $rc_whole: $(grep -A2 '^Hang' "$work/whole.txt")"
[[ $rc_window == "$rc_whole" ]] || fail "abstat --follow --budget 1M: exit $rc_window, the whole file's $rc_whole: $(grep -A2 '^Hang' "$work/window.txt")"
grep -qx '  no task is blocked' "$work/window.txt" || fail "the window reports a hang: $(grep -A1 '^Hang' "$work/window.txt")"
diff <(missing "$work/whole.txt") <(missing "$work/window.txt") >"$work/missing.diff" ||
  fail "records missing: the window and the whole file differ: $(head -5 "$work/missing.diff")"
echo "workers with records missing: $lost, in the whole file and through the window"

((failed)) && echo "RESULT: a window's hang verdict differs from the whole file's" || echo "RESULT: the window's hang verdict is the whole file's"
exit "$failed"
