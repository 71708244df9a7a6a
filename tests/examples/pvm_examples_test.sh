#!/usr/bin/env bash
# pvm_examples_test.sh BUILD_DIR SOURCE_DIR [CASE...]
#
# PVM's own example programs (Debian's pvm-examples: C sources no one here
# wrote), as tests/examples/CMakeLists.txt builds them twice (plain, and
# with only `-include xab.h` added and libab linked; the Fortran ones with
# libf2x in place of libfpvm3), run in two private
# virtual machines, the instrumented one under abmon.  Each case must give the same exit status and the same output
# (task ids and timings masked, lines sorted where the order is up to the
# scheduler), and its trace must read clean: every task that ran appears,
# no malformed record, no message left unreceived that the program received,
# and a cost record for every task (intrusion compensation).
# XAB_EXAMPLES_KEEP=1 keeps the work directory (sources, binaries, traces).
# shellcheck disable=SC2317,SC1091  # cleanup runs from the trap; the VMs' env files are made at run time
set -uo pipefail

build_dir=$(cd "$1" && pwd) src_dir=$(cd "$2" && pwd)
shift 2
# Built by tests/examples/CMakeLists.txt, each under its own name.
plain_bin=$build_dir/pvm-examples/plain xab_bin=$build_dir/pvm-examples/xab

# case @ shell command run in the VM's bin directory @ output mask @ tasks [@ language]
#   mask: tids  mask task ids;  nums  mask every number;  sort  also sort lines
#   tasks: how many tasks the trace must hold (every process that enrolled)
#   language: what every task's lang= must say (default c; fortran: libf2x)
CASES=(
  "hello@./hello@tids@2"
  "master1@./master1@tids sort@4"
  "spmd@./spmd@tids@1"
  "gexample@printf '10\\n4\\n' | ./gexample@tids@4"
  "timing@./timing@nums@2"
  "dbwtest@./dbwtest & ./dbwtest; wait@nums sort@2"
  "pbwtest@./pbwtest & ./pbwtest; wait@nums sort@2"
  "rbwtest@./rbwtest & ./rbwtest; wait@nums sort@2"
  "mbox@./mbox@tids@1"
  "inherit1@./inherit1@tids@2"
  "inherit2@./inherit2@tids@1"
  "inherit3@./inherit3@tids@2"
  "inherita@./inherita inherit1@tids@3"
  "inheritb@./inheritb@tids@3"
  "gmbi@./gmbi@tids@1"
  "lmbi@./lmbi 4 d e@tids@1"
  # persistent: the entries outlive lmbi, and gmbi lists them (but not
  # abmon's own entry, which libab keeps from the program)
  "lmbip@./lmbi 3 p e && ./gmbi@tids@2"
  # A service in a context of its own (pvm_newcontext), found through the
  # mailbox by a client and stopped by a third task; the plain gmbi waits
  # until the service is listed, unseen by abmon.
  "service@./task0 svc & for i in \$(seq 100); do $plain_bin/gmbi | grep -q svc && break; sleep 0.1; done; ./task1 svc; ./task_end svc 0; wait@tids sort@3"
  # Message handlers: a handler loaded, hit, listed (PVM's own table,
  # libab's entries hidden), kept across the server's leaving PVM and
  # rejoining as a second task (tests/examples/mhf_session.sh).
  "mhf@$src_dir/tests/examples/mhf_session.sh@tids@3"
  # ge races with itself: members leave the group while others still check
  # it, so "gid N doesn't match up!" comes and goes in plain runs too.
  "ge@(exec -a ge ./ge 4) 2>&1 | grep -v 'match up'; exit \${PIPESTATUS[0]}@tids sort@4"
  "gexamp@./gexamp 4@tids sort@4"
  # gs spins on pvm_gsize until its children have joined (a record a call,
  # hundreds of them), printing as it waits: how often is up to the
  # scheduler, so those lines go.
  "gs@(exec -a gs ./gs 4) 2>&1 | grep -v 'waiting on kids'; exit \${PIPESTATUS[0]}@tids sort@4"
  # Four ptest started by hand: a frozen group, 80 kB messages by
  # pvm_psend/pvm_precv and pvm_recv, found through pvm_gettid.
  "ptest@for i in 1 2 3; do ./ptest 4 & done; ./ptest 4; wait@tids sort@4"
  "joinleave@./joinleave@tids sort@1"
  "tst@./tst@tids@1"
  "thb@./thb 4@tids sort@5"
  "trsg@printf '4\\n5\\n' | ./trsg@tids@4"
  "tjf@./tjf@tids sort@1"
  "tjl@./tjl@tids sort@1"
)
# The Fortran examples, plain (libfpvm3) and relinked with libf2x
# (tests/examples/CMakeLists.txt builds them where gfortran is).
if [[ -x $plain_bin/fmaster1 && -x $xab_bin/fmaster1 ]]; then
  CASES+=(
    "fmaster1@./fmaster1@tids sort@4@fortran"
    "fgexample@./fgexample@tids@2@fortran"
    "fspmd@./fspmd@tids@1@fortran"
    "hitc@./hitc@tids sort@2@fortran"
    # Reduce (with a user function), scatter, gather and bcast from Fortran.
    "frsg@printf '4\\n5\\n' | ./frsg@tids@4@fortran"
  )
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/xab-examples.XXXXXX")
vms=()
cleanup() {
  local vm
  for vm in "${vms[@]}"; do XAB_VM_QUIET=1 "$src_dir/scripts/pvm-vm.sh" stop "$vm" >/dev/null 2>&1; done
  if [[ -n ${XAB_EXAMPLES_KEEP:-} ]]; then echo "kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

failed=0 failures=0
fail() { echo "FAIL: $*"; failed=1; failures=$((failures + 1)); }

start_vm() {  # dir bindir
  XAB_VM_QUIET=1 "$src_dir/scripts/pvm-vm.sh" start --owner $$ "$1" "$2" >/dev/null || { echo "cannot start a VM"; exit 1; }
  vms+=("$1")
}

mask() {  # mask words < output
  local sed_args
  if [[ " $1 " == *" nums "* ]]; then
    # Timings: every number, decimal or hex (tids: t4000a, 4000a), and the
    # spaces that align the columns.  A word of hex letters alone ("a")
    # is masked too, alike on both sides.
    sed_args=(-e 's/\b(t|0x)?[0-9a-fA-F]+(\.[0-9]+)?\b/N/g' -e 's/[[:space:]]+/ /g')
  else
    # Task ids as PVM prints them: t40002, 0x40002, 40002, 262146.
    # A tid that starts a word (lmbi's mailbox names: t40002lmbi0) too.
    sed_args=(-e 's/\b(t|0x)?[0-9a-fA-F]*4[0-9a-fA-F]{4}\b/TID/g' -e 's/\b26[0-9]{4}\b/TID/g'
              -e 's/\bt4[0-9a-f]{4}([g-z])/TID\1/g')
  fi
  if [[ " $1 " == *" sort "* ]]; then sed -E "${sed_args[@]}" | sort; else sed -E "${sed_args[@]}"; fi
}

run_case() {  # name command mask tasks language
  local name=$1 cmd=$2 masks=$3 tasks=$4 lang=$5 rc_plain rc_xab before=$failures
  (source "$work/vm-plain/env" && cd "$plain_bin" && timeout 60 bash -c "$cmd" </dev/null >"$work/$name.plain" 2>&1)
  rc_plain=$?
  local trace=$work/$name.trace
  (
    source "$work/vm-xab/env"
    "$build_dir/bin/abmon" -q -o "$trace" &
    mon=$!
    for _ in $(seq 100); do grep -q abmon.start "$trace" 2>/dev/null && break; sleep 0.1; done
    cd "$xab_bin" && timeout 60 bash -c "$cmd" </dev/null >"$work/$name.xab" 2>&1
    echo $? >"$work/$name.rc"
    sleep 1  # let spawned tasks' last records and exit notices arrive
    kill -INT "$mon"
    wait "$mon"
  )
  rc_xab=$(cat "$work/$name.rc")
  [[ $rc_plain == "$rc_xab" ]] || fail "$name: exit status $rc_plain plain, $rc_xab instrumented"
  if ! diff <(mask "$masks" <"$work/$name.plain") <(mask "$masks" <"$work/$name.xab") >"$work/$name.diff"; then
    fail "$name: the output differs (plain <, instrumented >):"
    head -20 "$work/$name.diff"
  fi
  [[ $rc_plain != 124 ]] || fail "$name: timed out (60 s)"
  check_trace "$name" "$trace" "$tasks" "$lang"
  ((failures > before)) || echo "ok: $name ($(grep -vc '^#' "$trace") records, $tasks tasks)"
}

check_trace() {  # name trace tasks language
  local name=$1 trace=$2 tasks=$3 lang=$4 json=$work/$1.json
  grep -q '^#xab-trace' "$trace" || { fail "$name: no trace"; return; }
  ! grep -q ' abmon\.bad ' "$trace" || fail "$name: abmon.bad in the trace: $(grep -m1 ' abmon\.bad ' "$trace")"
  "$build_dir/bin/abstat" --json "$trace" >"$json" 2>"$work/$name.abstat.err"
  local rc=$?
  ((rc == 0)) || fail "$name: abstat exit $rc: $(head -3 "$work/$name.abstat.err")"
  local lost
  lost=$(grep -c ' abmon\.lost ' "$trace")
  ((lost == 0)) || fail "$name: $lost abmon.lost records"
  # abstat's JSON: the trace's task count, and sends no destination received.
  local seen never
  seen=$(grep -m1 -o '"tasks": *[0-9]*' "$json" | grep -o '[0-9]*$')
  [[ $seen == "$tasks" ]] || fail "$name: $seen tasks in the trace, $tasks ran"
  never=$(grep -m1 -o '"neverReceived": *[0-9]*' "$json" | grep -o '[0-9]*$')
  [[ $never == 0 ]] || fail "$name: $never messages never received (abstat)"
  # Every task measured its own cost (a short one at pvm_exit), so that
  # abstat --compensate can take it out (docs/compensation.md).
  local costed
  costed=$(awk '$4 == "cost" { print $3 }' "$trace" | sort -u | wc -l)
  [[ $costed == "$tasks" ]] || fail "$name: $costed of $tasks tasks have a cost record"
  # Each task says once which library traced it: lang=fortran through
  # libf2x, lang=c through libab alone.
  local langs
  langs=$(grep -o ' lang=[a-z]*' "$trace" | sort | uniq -c | awk '{ print $2 "x" $1 }' | tr '\n' ' ')
  [[ $langs == "lang=${lang}x$tasks " ]] || fail "$name: languages in the trace: ${langs:-none}; want lang=$lang for $tasks tasks"
}

[[ -x $plain_bin/hello && -x $xab_bin/hello ]] || { echo "no examples in $build_dir/pvm-examples"; exit 1; }
start_vm "$work/vm-plain" "$plain_bin"
start_vm "$work/vm-xab" "$xab_bin"
for row in "${CASES[@]}"; do
  IFS='@' read -r name cmd masks tasks lang <<<"$row"
  if (($#)) && [[ " $* " != *" $name "* ]]; then continue; fi
  run_case "$name" "$cmd" "$masks" "$tasks" "${lang:-c}"
done
((failed)) && echo "RESULT: some examples failed" || echo "RESULT: every example ran the same, with a clean trace"
exit "$failed"
