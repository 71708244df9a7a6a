#!/usr/bin/env bash
# abrun_test.sh BUILD_DIR SOURCE_DIR -- unmodified PVM programs under abrun
# (abmon --pvm-tracer, issue 17), in one private virtual machine:
#   master1 (built plain): same output and status as without abrun; every
#     task in the trace (the spawned slave1 tasks too: PVM's trace settings
#     are inherited), every message matched by order (match=order);
#   gexample (Debian's prebuilt /usr/bin binary): groups and reductions seen;
#   timing (prebuilt): every message matched, direct routes and all;
#   abrun_talk: every line its spawned children print is an output record;
#   mixed: master1 with libab spawning plain slave1: one trace, each task's
#     records once, every message matched;
#   a task forging trace events and output of another: not written;
#   a second tracer already registered: abmon says so and the program runs.
# shellcheck disable=SC2317,SC1091  # cleanup runs from the trap; the VM's env file is made at run time
set -uo pipefail
build_dir=$(cd "$1" && pwd) src_dir=$(cd "$2" && pwd)
plain_bin=$build_dir/pvm-examples/plain xab_bin=$build_dir/pvm-examples/xab
abrun=$build_dir/bin/abrun abstat=$build_dir/bin/abstat
work=$(mktemp -d "${TMPDIR:-/tmp}/xab-abrun.XXXXXX")
cleanup() {
  [[ -n ${tracer_pid:-} ]] && kill "$tracer_pid" 2>/dev/null
  XAB_VM_QUIET=1 "$src_dir/scripts/pvm-vm.sh" stop "$work/vm" >/dev/null 2>&1
  if [[ -n ${XAB_EXAMPLES_KEEP:-} ]]; then echo "kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
mask() { sed -E 's/\b(t|0x)?[0-9a-fA-F]*4[0-9a-fA-F]{4}\b/TID/g' | sort; }
count() { grep -c -- "$1" "$2"; }

XAB_VM_QUIET=1 "$src_dir/scripts/pvm-vm.sh" start "$work/vm" "$plain_bin" >/dev/null || { echo "cannot start a VM"; exit 1; }
source "$work/vm/env"
cd "$plain_bin" || exit 1

# 1. master1, plain: the same with and without abrun; the trace complete.
timeout 60 ./master1 >"$work/m.plain" 2>&1; rc_plain=$?
timeout 60 "$abrun" -o "$work/m.trace" ./master1 >"$work/m.abrun" 2>"$work/m.err"; rc=$?
[[ $rc == "$rc_plain" ]] || fail "master1: status $rc under abrun, $rc_plain without"
diff <(mask <"$work/m.plain") <(mask <"$work/m.abrun") >/dev/null || fail "master1: output differs under abrun"
tasks=$(grep -v '^#' "$work/m.trace" | awk '$4 != "abmon.start" && $4 != "abmon.stop" {print $3}' | sort -u | wc -l)
[[ $tasks == 4 ]] || fail "master1: $tasks tasks in the trace, 4 ran"
(($(count ' name=slave1' "$work/m.trace") == 3)) || fail "master1: the 3 spawned slave1 tasks are not all named"
(($(count ' name=master1 ' "$work/m.trace") == 1)) || fail "master1: the program abrun started is not named"
(($(count ' recv .*match=order' "$work/m.trace") == 9)) || fail "master1: not 9 receives with match=order"
"$abstat" --messages "$work/m.trace" >"$work/m.stat" 2>&1
grep -q '9 received and matched, 0 never received; 0 receives without a send' "$work/m.stat" \
  || fail "master1: messages not all matched: $(grep -m1 sends "$work/m.stat")"
grep -q 'repeat a serial' "$work/m.stat" && fail "master1: serial-less sends taken for repeated serials"

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
"$abstat" --output "$work/t.trace" | grep -q '^Output (4 lines)' || fail "abstat --output: not 4 lines"

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
timeout 60 "$abrun" -o "$work/x.trace" "$xab_bin/master1" >"$work/x.abrun" 2>"$work/x.err"; rc=$?
[[ $rc == 0 ]] || fail "mixed: status $rc"
master=$(awk '$4 == "mytid" && / lang=/ {print $3; exit}' "$work/x.trace")
[[ -n $master ]] || fail "mixed: no libab identity for master1"
(($(awk -v t="$master" '$3 == t && $4 == "mcast"' "$work/x.trace" | wc -l) == 1)) || fail "mixed: master1's mcast not recorded exactly once"
(($(awk -v t="$master" '$3 == t && $4 == "mytid"' "$work/x.trace" | wc -l) == 1)) || fail "mixed: master1's mytid not recorded exactly once"
! awk -v t="$master" '$3 == t && / match=order/' "$work/x.trace" | grep -q . || fail "mixed: PVM's records of the libab task"
"$abstat" --messages "$work/x.trace" >"$work/x.stat" 2>&1
grep -q '9 received and matched, 0 never received; 0 receives without a send' "$work/x.stat" \
  || fail "mixed: messages not all matched: $(grep -m1 sends "$work/x.stat")"

# Forged: a task sends abmon a trace event and an output line naming
# another task; abmon writes neither and says so.
timeout 60 "$abrun" -o "$work/f.trace" "$plain_bin/abrun_forger" >"$work/f.out" 2>"$work/f.err"; rc=$?
[[ $rc == 0 && $(cat "$work/f.out") == forged ]] || fail "forger: status $rc, output $(head -2 "$work/f.out")"
! grep -q 't40099\|text=fake' "$work/f.trace" || fail "forger: a forged record is in the trace: $(grep -m1 't40099\|text=fake' "$work/f.trace")"
grep -q 'ignored 2 trace event(s) or output message(s) not sent by' "$work/f.err" || fail "forger: abmon did not say it ignored 2: $(cat "$work/f.err")"

# 5. Another tracer holds the VM: abmon says so, the program still runs.
"$plain_bin/abrun_tracer" 30 >"$work/tracer.out" 2>&1 &
tracer_pid=$!
for _ in $(seq 100); do grep -q registered "$work/tracer.out" && break; sleep 0.1; done
timeout 60 "$abrun" -o "$work/o.trace" ./master1 >"$work/o.abrun" 2>"$work/o.err"; rc=$?
[[ $rc == 0 ]] || fail "second tracer: status $rc"
grep -q 'another tracer is registered' "$work/o.err" || fail "second tracer: abmon did not say so: $(head -2 "$work/o.err")"
diff <(mask <"$work/m.plain") <(mask <"$work/o.abrun") >/dev/null || fail "second tracer: output differs"

# Every task ends once: one task.exit per tid in every trace.
for tr in "$work"/*.trace; do
  twice=$(awk '$4 == "task.exit" {n[$3]++} END {for (t in n) if (n[t] > 1) print t}' "$tr")
  [[ -z $twice ]] || fail "${tr##*/}: task.exit more than once for $twice"
done

((failed)) && echo "RESULT: abrun failed" || echo "RESULT: abrun ran every case as without it, with complete traces"
exit "$failed"
