#!/usr/bin/env bash
# abrun_test.sh BUILD_DIR SOURCE_DIR -- unmodified PVM programs under abrun
# (abmon --pvm-tracer), in one private virtual machine:
#   master1 (built plain): same output and status as without abrun; every
#     task in the trace (the spawned slave1 tasks too: PVM's trace settings
#     are inherited), every message matched by order (match=order); with
#     abmon's options and their values;
#   gexample (Debian's prebuilt /usr/bin binary): groups and reductions seen;
#   timing (prebuilt): every message matched, direct routes and all;
#   xep (prebuilt X program, under an Xvfb of its own) and its mtile worker:
#     its first picture's tiles and replies, every message matched;
#   abrun_talk: every line its spawned children print is an output record;
#     its name, not found by the first lookups, is looked up again;
#   mixed: master1 with libab spawning plain slave1: one trace, each task's
#     records once, every message matched;
#   a task forging trace events and output of another: not written;
#   PVM's events dated as PVM dates calls: one-record calls at their entry,
#     receives at their exit;
#   a reused tid (test knob XAB_TEST_PVMD_TASK): the new task's exit watched;
#   the program read after it left PVM (abmon stopped meanwhile): named;
#   a second tracer already registered: abmon says so and the program runs;
#   the program abrun starts itself: its stdout and stderr passed on byte for
#     byte (binary bytes, a 100000-byte line, a last line without newline,
#     stdout closed early, a terminal for an interactive program) and each
#     of its lines an output record with its stream;
#   live: `abrun -o - PROG | xabview`: every task and the Output tab's lines;
#   PVM's Fortran examples built plain (fmaster1/fslave1, fgexample).
# shellcheck disable=SC2317,SC1091  # cleanup runs from the trap; the VM's env file is made at run time
set -uo pipefail
build_dir=$(cd "$1" && pwd) src_dir=$(cd "$2" && pwd)
plain_bin=$build_dir/pvm-examples/plain xab_bin=$build_dir/pvm-examples/xab
abrun=$build_dir/bin/abrun abstat=$build_dir/bin/abstat
work=$(mktemp -d "${TMPDIR:-/tmp}/xab-abrun.XXXXXX")
cleanup() {
  [[ -n ${tracer_pid:-} ]] && kill "$tracer_pid" 2>/dev/null
  [[ -n ${xvfb_pid:-} ]] && kill "$xvfb_pid" 2>/dev/null
  [[ -n ${abmon_pid:-} ]] && kill -CONT "$abmon_pid" 2>/dev/null  # stopped by the late-program case
  XAB_VM_QUIET=1 "$src_dir/scripts/pvm-vm.sh" stop "$work/vm" >/dev/null 2>&1
  if [[ -n ${XAB_EXAMPLES_KEEP:-} ]]; then echo "kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
# SIGTERM ends bash at once, through the EXIT trap; SIGINT sent to this
# script alone would only end the command it waits for.  SIGKILL (ctest's
# TIMEOUT) runs no trap: pvm-vm.sh's --owner watchdog stops the VM then.
trap 'exit 130' INT
count() { grep -c -- "$1" "$2"; }
# shellcheck source=SCRIPTDIR/vm_helpers.sh
source "$src_dir/tests/examples/vm_helpers.sh"  # fail, mask, wait_for, vm_processes
# Whether a tracer may register (abrun_tracer registers and leaves at once).
pvm_tracer_free() { "$plain_bin/abrun_tracer" 0 2>&1 | grep -q 'registered rc=0'; }

XAB_VM_QUIET=1 "$src_dir/scripts/pvm-vm.sh" start --owner $$ "$work/vm" "$plain_bin" >/dev/null || { echo "cannot start a VM"; exit 1; }
source "$work/vm/env"
cd "$plain_bin" || exit 1

# 1. master1, plain: the same with and without abrun; the trace complete.
timeout 60 ./master1 >"$work/m.plain" 2>&1; rc_plain=$?
timeout 60 "$abrun" -o "$work/m.trace" ./master1 >"$work/m.abrun" 2>"$work/m.err"; rc=$?
[[ $rc == "$rc_plain" ]] || fail "master1: status $rc under abrun, $rc_plain without"
diff <(mask <"$work/m.plain") <(mask <"$work/m.abrun") >/dev/null || fail "master1: output differs under abrun"
tasks=$(grep -v '^#' "$work/m.trace" | awk '$4 !~ /^(abmon\.(start|stop)|program\.exit|sample|host\.load)$/ {print $3}' | sort -u | wc -l)
[[ $tasks == 4 ]] || fail "master1: $tasks tasks in the trace, 4 ran"
(($(count ' name=slave1' "$work/m.trace") == 3)) || fail "master1: the 3 spawned slave1 tasks are not all named"
(($(count ' name=master1 ' "$work/m.trace") == 1)) || fail "master1: the program abrun started is not named"
(($(count ' recv .*match=order' "$work/m.trace") == 9)) || fail "master1: not 9 receives with match=order"
"$abstat" --messages "$work/m.trace" >"$work/m.stat" 2>&1
grep -q '9 received and matched, 0 never received; 0 receives without a send' "$work/m.stat" \
  || fail "master1: messages not all matched: $(grep -m1 sends "$work/m.stat")"
grep -q 'repeat a serial' "$work/m.stat" && fail "master1: serial-less sends taken for repeated serials"
# Its own lines (it writes to the terminal, not through pvmd): records of
# its task, stream known.
master1_tid=$(awk '/ name=master1 / {print $3; exit}' "$work/m.trace")
(($(grep -c " $master1_tid output stream=stdout text=" "$work/m.trace") == $(wc -l <"$work/m.plain"))) \
  || fail "master1: its $(wc -l <"$work/m.plain") lines are not all output records of $master1_tid"

# abmon's options with their values, as abmon takes them: the value is no
# program (no samples, the flush interval given).
timeout 60 "$abrun" -o "$work/o.trace" --sample-ms 0 --flush-ms 50 ./master1 >/dev/null 2>&1; rc=$?
[[ $rc == "$rc_plain" ]] || fail "options: status $rc under abrun --sample-ms 0 --flush-ms 50, $rc_plain without"
grep -q ' abmon.start .*flush_ms=50' "$work/o.trace" || fail "options: --flush-ms 50 not abmon's: $(grep -m1 abmon.start "$work/o.trace")"
(($(count ' sample ' "$work/o.trace") == 0)) || fail "options: samples taken with --sample-ms 0"

# 2. gexample as Debian built it: groups, reductions, barriers.
if [[ -x /usr/bin/gexample ]]; then
  printf '10\n4\n' | timeout 60 /usr/bin/gexample >"$work/g.plain" 2>&1; rc_plain=$?
  printf '10\n4\n' | timeout 60 "$abrun" -o "$work/g.trace" /usr/bin/gexample >"$work/g.abrun" 2>"$work/g.err"; rc=$?
  [[ $rc == "$rc_plain" && $rc == 0 ]] || fail "gexample: status $rc under abrun, $rc_plain without"
  diff <(mask <"$work/g.plain") <(mask <"$work/g.abrun") >/dev/null || fail "gexample: output differs under abrun"
  (($(count ' joingroup group=' "$work/g.trace") >= 4)) || fail "gexample: joingroup records missing"
  (($(count ' reduce group=' "$work/g.trace") >= 4)) || fail "gexample: reduce records missing"
  (($(count ' barrier ' "$work/g.trace") >= 1)) || fail "gexample: barrier records missing"
  # PVM's group server's own protocol is not recorded: no task blocked at the end.
  ! grep -q ' name=[^ ]*pvmgs' "$work/g.trace" || fail "gexample: pvmgs recorded"
  "$abstat" "$work/g.trace" >"$work/g.stat" 2>&1 || fail "gexample: abstat exit $? (hang or mismatch): $(grep -A3 -i hang "$work/g.stat" | head -5)"
fi

# timing as Debian built it: a send that sets up a direct route makes
# PVM's own control message inside it; neither may break the matching.
if [[ -x /usr/bin/timing ]]; then
  timeout 60 /usr/bin/timing >/dev/null 2>&1; rc_plain=$?
  timeout 60 "$abrun" -o "$work/tm.trace" /usr/bin/timing >/dev/null 2>"$work/tm.err"; rc=$?
  [[ $rc == "$rc_plain" ]] || fail "timing: status $rc under abrun, $rc_plain without"
  "$abstat" --messages "$work/tm.trace" >"$work/tm.stat" 2>&1
  # timing's master kills its slave the moment the slave's last reply
  # arrives: the slave's record of that send may be lost with it (libpvm
  # sends a call's exit event after the call's work), never another one.
  grep -qE '(241 received and matched, 0 never received; 0|240 received and matched, 0 never received; 1) receives without a send' "$work/tm.stat" \
    || fail "timing: messages not all matched: $(grep -m1 sends "$work/tm.stat")"
fi

# xep as Debian built it: an X program (Athena widgets) whose mtile worker
# computes its first picture at start (pvm_packf/pvm_unpackf, a direct
# route), under an Xvfb of its own.  It runs until a user quits: once its
# trace holds the picture's messages and no new one for 3 s, xep and mtile
# (found by the VM's PVM_VMID in their environment) are ended with SIGTERM.
if [[ -x /usr/bin/xep && -x /usr/bin/mtile ]] && command -v Xvfb >/dev/null; then
  Xvfb -displayfd 5 -screen 0 640x480x24 -nolisten tcp 5>"$work/xep.display" 2>/dev/null &
  xvfb_pid=$!
  wait_for 10 test -s "$work/xep.display"
  DISPLAY=:$(cat "$work/xep.display") "$abrun" -o "$work/xep.trace" /usr/bin/xep >"$work/xep.out" 2>&1 &
  xep_runner=$!
  # Done: at least 20 sends (its 21 tiles and their replies on this
  # screen), and none for 3 s; at most 90 s.
  last=-1 still=0
  for _ in $(seq 180); do
    sleep 0.5
    n=$(grep -c ' send ' "$work/xep.trace" 2>/dev/null)
    if ((n >= 20 && n == last)); then
      ((++still >= 6)) && break
    else
      still=0
    fi
    last=$n
  done
  for p in $(vm_processes "$PVM_VMID"); do
    [[ $(cat "/proc/$p/comm" 2>/dev/null) == @(xep|mtile) ]] && kill -TERM "$p"
  done
  if ! wait_for 10 eval "! kill -0 $xep_runner 2>/dev/null"; then
    fail "xep: abrun still running after xep and mtile ended"
    kill "$xep_runner"
  fi
  wait "$xep_runner"; rc=$?
  kill "$xvfb_pid"; wait "$xvfb_pid" 2>/dev/null; xvfb_pid=''
  [[ $rc == 143 ]] || fail "xep: status $rc under abrun, not SIGTERM's 143: $(head -3 "$work/xep.out")"
  (($(count ' name=xep ' "$work/xep.trace") == 1)) || fail "xep: the program abrun started is not named"
  grep -q ' spawn file=mtile count=1 tids=t[0-9a-f]* rc=1' "$work/xep.trace" || fail "xep: no spawn of mtile"
  (($(count ' packf ' "$work/xep.trace") >= 20 && $(count ' unpackf ' "$work/xep.trace") >= 20)) \
    || fail "xep: packf/unpackf records missing"
  "$abstat" --messages "$work/xep.trace" >"$work/xep.stat" 2>&1
  grep -qE ' ([2-9][0-9]|[1-9][0-9]{2,}) received and matched, 0 never received' "$work/xep.stat" \
    || fail "xep: messages not all matched: $(grep -m1 sends "$work/xep.stat")"
  (($(awk '$1 == "(xep," && $3 == "(mtile," {print $5}' "$work/xep.stat") == $(awk '$1 == "(mtile," && $3 == "(xep," {print $5}' "$work/xep.stat"))) \
    || fail "xep: not a reply for every tile: $(grep -A3 FROM "$work/xep.stat")"
fi

# 3. Output records: each child's two lines, once, escaped.
timeout 60 "$abrun" -o "$work/t.trace" "$plain_bin/abrun_talk" >"$work/t.out" 2>"$work/t.err"; rc=$?
[[ $rc == 0 && $(cat "$work/t.out") == "parent done 2" ]] || fail "abrun_talk: status $rc, output $(head -2 "$work/t.out")"
for i in 0 1; do
  (($(count " output stream=- text=child%20$i%20says%20hello\$" "$work/t.trace") == 1)) || fail "abrun_talk: child $i's first line"
  (($(count " output stream=- text=second%20line%20of%20$i\$" "$work/t.trace") == 1)) || fail "abrun_talk: child $i's second line"
done

# abstat --output: the lines of one task, by its tid.
child=$(awk '$4 == "output" {print $3; exit}' "$work/t.trace")
"$abstat" --output --task "$child" "$work/t.trace" >"$work/t.stat" 2>&1 || fail "abstat --output --task $child failed"
(($(grep -c 'says hello\|second line of' "$work/t.stat") == 2)) || fail "abstat --output --task: not the child's 2 lines: $(cat "$work/t.stat")"
"$abstat" --output "$work/t.trace" | grep -q '^Output (5 lines)' || fail "abstat --output: not 5 lines (the children's 4, the parent's 1)"

# The program's name not found by its first two lookups (test knob
# XAB_TEST_NAME_MISSES: as when its process cannot be told at that
# moment): looked up again until known, and written on a later record.
XAB_TEST_NAME_MISSES=2 timeout 60 "$abrun" -o "$work/n.trace" "$plain_bin/abrun_talk" >/dev/null 2>&1
parent=$(awk '$4 == "spawn" {print $3; exit}' "$work/n.trace")
[[ -n $parent ]] || fail "name looked up again: no spawn record"
awk -v t="$parent" '$3 == t' "$work/n.trace" | grep -q ' name=abrun_talk\( \|$\)' || fail "name looked up again: $parent unnamed: $(awk -v t="$parent" '$3 == t {print $4}' "$work/n.trace" | tr '\n' ' ')"

# A task killed mid-run (blocked in a receive): its events up to the kill
# (PVM's tracing is unbuffered here), its output, then task.exit.
timeout 60 "$abrun" -o "$work/k.trace" "$plain_bin/abrun_talk" kill >"$work/k.out" 2>"$work/k.err"; rc=$?
[[ $rc == 0 && $(cat "$work/k.out") == "parent done 2" ]] || fail "killed task: status $rc, output $(head -2 "$work/k.out")"
killed=$(grep -m1 ' kill tid=' "$work/k.trace" | grep -o 'tid=t[0-9a-f]*' | cut -d= -f2)
[[ -n $killed ]] || fail "killed task: no kill record with its tid"
last=$(awk -v t="$killed" '$3 == t && $4 != "output"' "$work/k.trace" | tail -2 | awk '{print $4, $NF}' | tr '\n' ' ')
[[ $last == "recv.begin tag=99 task.exit how=notify " ]] || fail "killed task: its last records are: $last"
(($(awk -v t="$killed" '$3 == t && $4 == "output"' "$work/k.trace" | wc -l) == 2)) || fail "killed task: its 2 output lines"

# 4. Mixed: master1 with libab spawns plain slave1 (ep= has the plain ones).
timeout 60 "$abrun" -v -o "$work/x.trace" "$xab_bin/master1" >"$work/x.abrun" 2>"$work/x.err"; rc=$?
[[ $rc == 0 ]] || fail "mixed: status $rc"
master=$(awk '$4 == "mytid" && / lang=/ {print $3; exit}' "$work/x.trace")
[[ -n $master ]] || fail "mixed: no libab identity for master1"
(($(awk -v t="$master" '$3 == t && $4 == "mcast"' "$work/x.trace" | wc -l) == 1)) || fail "mixed: master1's mcast not recorded exactly once"
(($(awk -v t="$master" '$3 == t && $4 == "mytid"' "$work/x.trace" | wc -l) == 1)) || fail "mixed: master1's mytid not recorded exactly once"
(($(grep -c " $master output stream=stdout text=I%20got" "$work/x.trace") == 3)) || fail "mixed: libab master1's 3 result lines not output records of it"
! awk -v t="$master" '$3 == t && / match=order/' "$work/x.trace" | grep -q . || fail "mixed: PVM's records of the libab task"
"$abstat" --messages "$work/x.trace" >"$work/x.stat" 2>&1
grep -q '9 received and matched, 0 never received; 0 receives without a send' "$work/x.stat" \
  || fail "mixed: messages not all matched: $(grep -m1 sends "$work/x.stat")"
# The libab task turns its own PVM tracing off once it has found abmon:
# PVM sends abmon far fewer of its events (that abmon would drop) than
# with XAB_PVM_TRACE=keep, which leaves it on.
XAB_PVM_TRACE=keep timeout 60 "$abrun" -v -o "$work/xk.trace" "$xab_bin/master1" >/dev/null 2>"$work/xk.err"
dropped() { sed -n "s/.*PVM's tracer: [0-9]* records, \([0-9]*\) events of libab tasks.*/\1/p" "$1"; }
d_off=$(dropped "$work/x.err") d_keep=$(dropped "$work/xk.err")
if [[ -z $d_off || -z $d_keep ]] || ((d_keep - d_off < 30)); then
  fail "mixed: libab's task still traced by PVM: abmon dropped ${d_off:-?} of its events, ${d_keep:-?} with XAB_PVM_TRACE=keep"
fi

# Forged: a task sends abmon a trace event and an output line naming
# another task; abmon writes neither and says so.
timeout 60 "$abrun" -o "$work/f.trace" "$plain_bin/abrun_forger" >"$work/f.out" 2>"$work/f.err"; rc=$?
[[ $rc == 0 && $(cat "$work/f.out") == forged ]] || fail "forger: status $rc, output $(head -2 "$work/f.out")"
! grep -q 't40099\|text=fake' "$work/f.trace" || fail "forger: a forged record is in the trace: $(grep -m1 't40099\|text=fake' "$work/f.trace")"
grep -q 'ignored 2 trace event(s) or output message(s) not sent by' "$work/f.err" || fail "forger: abmon did not say it ignored 2: $(cat "$work/f.err")"

# Dates: a call written as one record is dated when it began (a send's
# message left after its entry event; its exit can come after the
# receiver had it), a receive when it got its message (its exit).
timeout 60 "$abrun" -o "$work/d.trace" "$plain_bin/abrun_dates" >"$work/d.out" 2>&1 || fail "abrun_dates: $(head -3 "$work/d.out")"
dates=$(awk '$4 ~ /^(mcast|nrecv|recv|recv\.begin)$/ {printf "%s=%s ", $4, $2}' "$work/d.trace")
[[ $dates == "mcast=1000.000001000 nrecv=2000.005001000 recv.begin=3000.000001000 recv=3000.005001000 " ]] ||
  fail "PVM's events dated wrong: $dates"

# A reused tid: pvmd tells of a task starting under the tid of one whose
# task.exit is written (PVM reuses a tid after 262143 others: minutes).
# abrun_reuse's child C ends; once C's task.exit is in the trace, another
# abrun_reuse sends abmon pvmd's event of a task C starting, taken as
# pvmd's only under the test knob XAB_TEST_PVMD_TASK (docs/abmon.md).
# abmon watches the new C's exit (task.exit again); without the knob the
# event is refused like any forged one.  (The trace is *.reuse: every
# *.trace has one task.exit per tid, below.)
reuse() {  # reuse NAME [ENV...]: runs abrun_reuse; C's tid in $reused
  rm -f "$work/$1.go"
  env "${@:2}" timeout 60 "$abrun" -o "$work/$1.reuse" "$plain_bin/abrun_reuse" "$work/$1.go" >"$work/$1.out" 2>"$work/$1.err" &
  local pid=$! c=""
  for _ in $(seq 300); do c=$(sed -n 's/^ended //p' "$work/$1.out") && [[ -n $c ]] && break; sleep 0.1; done
  for _ in $(seq 300); do grep -q " t$c task.exit" "$work/$1.reuse" 2>/dev/null && break; sleep 0.1; done
  touch "$work/$1.go"
  wait "$pid" || fail "reused tid ($1): status $?"
  reused=$c
}
reuse knob XAB_TEST_PVMD_TASK=abrun_reuse
c=$reused
(($(grep -c " t$c task.exit" "$work/knob.reuse") == 2)) \
  || fail "reused tid: t$c started again after its task.exit; its exit is not watched again ($(grep -c " t$c task.exit" "$work/knob.reuse") task.exit)"
reuse noknob
c=$reused
(($(grep -c " t$c task.exit" "$work/noknob.reuse") == 1)) || fail "reused tid without the knob: t$c's exit not once"
grep -q 'ignored 1 trace event(s) or output message(s) not sent by' "$work/noknob.err" \
  || fail "reused tid without the knob: pvmd's event sent by a task is not refused: $(cat "$work/noknob.err")"

# Under load, abmon may read the first events of the program it started
# after the program has left PVM (pvmd no longer lists it, so no name):
# abmon is stopped (SIGSTOP, our own child) while abrun_reuse -late enrolls
# and leaves, then resumed; the parentless task gone while the program's
# task is unknown is the program's, named.
mkdir -p "$work/late"
timeout 60 "$abrun" -o "$work/late.reuse" "$plain_bin/abrun_reuse" -late "$work/late" >/dev/null 2>"$work/late.err" &
late_pid=$!
for _ in $(seq 300); do [[ -e $work/late/ready ]] && break; sleep 0.1; done
abmon_pid=$(pgrep -P "$late_pid")  # timeout's child: abrun, which execs abmon
kill -STOP "$abmon_pid"
touch "$work/late/go"
for _ in $(seq 300); do [[ -e $work/late/left ]] && break; sleep 0.1; done
kill -CONT "$abmon_pid"
abmon_pid=""
for _ in $(seq 100); do grep -q ' mytid rc=' "$work/late.reuse" 2>/dev/null && break; sleep 0.1; done
touch "$work/late/done"
wait "$late_pid" || fail "late program: status $?"
grep -q ' mytid rc=[^ ]* name=abrun_reuse' "$work/late.reuse" \
  || fail "late program: its task, read after it left PVM, is not named: $(grep -m1 ' mytid ' "$work/late.reuse")"

# 5. Another tracer holds the VM: abmon says so, the program still runs.
"$plain_bin/abrun_tracer" 30 >"$work/tracer.out" 2>&1 &
tracer_pid=$!
for _ in $(seq 100); do grep -q registered "$work/tracer.out" && break; sleep 0.1; done
timeout 60 "$abrun" -o "$work/o.trace" ./master1 >"$work/o.abrun" 2>"$work/o.err"; rc=$?
[[ $rc == 0 ]] || fail "second tracer: status $rc"
grep -q 'another tracer is registered' "$work/o.err" || fail "second tracer: abmon did not say so: $(head -2 "$work/o.err")"
diff <(mask <"$work/m.plain") <(mask <"$work/o.abrun") >/dev/null || fail "second tracer: output differs"
kill "$tracer_pid" 2>/dev/null
wait "$tracer_pid" 2>/dev/null
tracer_pid=""
# pvmd lets the next tracer register once it has seen that one go.
for _ in $(seq 50); do
  pvm_tracer_free && break
  sleep 0.1
done

# 6. The program abrun starts: what it writes is passed on unchanged (each
# stream to its own file, so byte for byte), with its status, and each line
# is an output record of its task with its stream.
for mode in out close; do
  timeout 60 "$plain_bin/abrun_talk" $mode >"$work/$mode.p1" 2>"$work/$mode.p2"; rc_plain=$?
  timeout 60 "$abrun" -o "$work/$mode.trace" "$plain_bin/abrun_talk" $mode >"$work/$mode.a1" 2>"$work/$mode.a2"; rc=$?
  [[ $rc == "$rc_plain" ]] || fail "$mode: status $rc under abrun, $rc_plain without"
  cmp -s "$work/$mode.p1" "$work/$mode.a1" || fail "$mode: stdout differs under abrun: $(cmp "$work/$mode.p1" "$work/$mode.a1" 2>&1)"
  grep -v '^abmon: ' "$work/$mode.a2" | cmp -s "$work/$mode.p2" - || fail "$mode: stderr differs under abrun"
done
[[ $rc_plain == 3 ]] || fail "close: status $rc_plain without abrun, 3 expected"
rec() { grep -c " output stream=$2 text=$3\$" "$work/$1.trace"; }
(($(rec out stdout 'before%20enrolling') == 1)) || fail "out: the line written before enrolling"
(($(rec out stderr 'to%20stderr') == 1)) || fail "out: the stderr line, stream=stderr"
(($(rec out stdout 'bytes:%00%25%FF%0D.') == 1)) || fail "out: the binary bytes, escaped: $(grep -m1 'text=bytes' "$work/out.trace")"
(($(awk '$4 == "output" && $6 ~ /^text=x+$/ && length($6) == 100005' "$work/out.trace" | wc -l) == 1)) \
  || fail "out: the 100000-byte line is not one record"
(($(rec out stdout 'no%20newline%20at%20the%20end') == 1)) || fail "out: the last line without its newline"
(($(rec close stdout 'last%20line%20to%20stdout') == 1 && $(rec close stderr 'stderr%20after%20stdout%20closed') == 1)) \
  || fail "close: the lines before and after stdout closed"
(($(awk '$4 == "output" {print $3}' "$work/out.trace" | sort -u | wc -l) == 1)) || fail "out: output records of more than one task"

# An interactive program on a terminal (script(1) gives one): it still sees
# a terminal, its prompt comes before it reads, and the screen is the same.
if command -v script >/dev/null; then
  ask() { (sleep 1; printf 'bob\n') | timeout 30 script -qec "$*" /dev/null; }
  ask "$plain_bin/abrun_talk ask" >"$work/ask.p"
  ask "$abrun -o $work/ask.trace $plain_bin/abrun_talk ask" >"$work/ask.a"
  grep -q 'stdout is a terminal; your name? bob' "$work/ask.p" || fail "ask: the plain run is not interactive: $(cat -A "$work/ask.p")"
  cmp -s "$work/ask.p" "$work/ask.a" || fail "ask: the terminal shows otherwise under abrun: $(cat -A "$work/ask.a")"
  (($(rec ask stdout 'stdout%20is%20a%20terminal;%20your%20name?%20hello%20bob') == 1)) || fail "ask: the answered prompt is not one record"
fi

# 7. Live: `abrun -o - PROGRAM | xabview`, the documented one extra word:
# every task in the viewer, and the Output tab has every line.
if [[ -x $build_dir/bin/xabview ]]; then
  timeout 60 "$abrun" -o - "$plain_bin/abrun_talk" 2>"$work/live.err" |
    QT_QPA_PLATFORM=offscreen timeout 60 "$build_dir/bin/xabview" --play-to-end --dump-state "$work/live.json" - 2>/dev/null
  [[ "${PIPESTATUS[*]}" == "0 0" ]] || fail "live: statuses ${PIPESTATUS[*]}"
  [[ $(cat "$work/live.err") == "parent done 2" ]] || fail "live: the program's stdout did not go to stderr: $(head -3 "$work/live.err")"
  python3 - "$work/live.json" <<'PY' || fail "live: the viewer's state: $(head -c 600 "$work/live.json")"
import json, sys
d = json.load(open(sys.argv[1]))
tasks = sorted(t["task"] for t in d["tasks"])
lines = d["output_panel"]
assert tasks == ["(abrun_talk, 0)", "(abrun_talk, 1)", "(abrun_talk, 2)"], tasks
want = ["child 0 says hello", "second line of 0", "child 1 says hello", "second line of 1", "parent done 2"]
assert sorted(l.split("  ", 1)[1] for l in lines) == sorted(want), lines
assert d["messages"]["matched"] == 4, d["messages"]
PY
else
  echo "note: no xabview in this build: the live case is not run"
fi

# 8. PVM's Fortran examples built plain with gfortran (libfpvm3): every
# task, every message matched, every line an output record, unchanged.
# pvmgs runs already (gexample above started it): a group server abmon did
# not see start is still known as one.
if [[ -x $plain_bin/fmaster1 && -x $plain_bin/fgexample ]]; then
  for f in fmaster1 fgexample; do
    timeout 60 "./$f" >"$work/$f.plain" 2>&1; rc_plain=$?
    timeout 60 "$abrun" -o "$work/$f.trace" "./$f" >"$work/$f.abrun" 2>"$work/$f.err"; rc=$?
    [[ $rc == "$rc_plain" && $rc == 0 ]] || fail "$f: status $rc under abrun, $rc_plain without"
    diff <(sort "$work/$f.plain") <(sort "$work/$f.abrun") >/dev/null || fail "$f: output differs under abrun"
    (($(grep -c ' output stream=stdout ' "$work/$f.trace") == $(wc -l <"$work/$f.plain"))) || fail "$f: its lines are not all output records"
    "$abstat" --messages "$work/$f.trace" >"$work/$f.stat" 2>&1 || fail "$f: abstat exit $?"
    grep -q ' 0 never received; 0 receives without a send' "$work/$f.stat" || fail "$f: messages not all matched: $(grep -m1 sends "$work/$f.stat")"
  done
  (($(grep -c ' name=fslave1 ' "$work/fmaster1.trace") == 3)) || fail "fmaster1: its 3 fslave1 tasks are not all in the trace"
  (($(grep -c ' recv .*match=order' "$work/fmaster1.trace") == 9)) || fail "fmaster1: not 9 receives matched by order"
  (($(grep -c ' joingroup group=matrix' "$work/fgexample.trace") == 2)) || fail "fgexample: not 2 joingroup records"
  (($(grep -c ' barrier ' "$work/fgexample.trace") >= 2)) || fail "fgexample: barrier records missing"
else
  echo "note: no Fortran examples in this build (PVM's libfpvm3 missing): not run"
fi

# Every task ends once: one task.exit per tid in every trace.
for tr in "$work"/*.trace; do
  twice=$(awk '$4 == "task.exit" {n[$3]++} END {for (t in n) if (n[t] > 1) print t}' "$tr")
  [[ -z $twice ]] || fail "${tr##*/}: task.exit more than once for $twice"
done

((failed)) && echo "RESULT: abrun failed" || echo "RESULT: abrun ran every case as without it, with complete traces"
exit "$failed"
