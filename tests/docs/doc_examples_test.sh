#!/usr/bin/env bash
# doc_examples_test.sh BUILD_DIR SOURCE_DIR
#
# Runs every command the documentation shows (README.md, docs/*.md, the
# EXAMPLES of every man page: tests/docs/extract_examples.sh finds them) the
# way a user would type it, against xab installed from BUILD_DIR into a
# scratch prefix, in a private PVM virtual machine, in the order each
# document gives them, each document in a scratch directory of its own.  The TABLE below says
# what is done with each command; a command the documents show and the
# table does not know fails the test (so a new example is run, or its
# reason for not being run is written down), and so does a table row that
# no document shows any more (so the table cannot go stale).
#
# Files the examples name exist before they run: run.trace, evfile and
# demo.trace (a real run of xabdemo under abmon), damaged.trace (run.trace
# with a broken line), mpicl.trf (an MPICL trace of the translators'
# tests), run.trf (ab2picl's PICL of run.trace), prog.c (PVM's example hello.c, which spawns hello_other, with
# #include "xab.h" added as docs/libab.md says), prog.f (PVM's example
# spmd.f), ./master and ./prog (xabdemo, until an example compiles prog).
# XAB_DOC_EXAMPLES_KEEP=1 keeps the scratch directory.
# shellcheck disable=SC2317,SC1091  # cleanup runs from the trap; env files are made at run time
set -uo pipefail

build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)

# KIND<TAB>COMMAND, COMMAND exactly as the documents show it.
#   run           run it; exit status 0
#   exit=N        run it; exit status N
#   installed     run it with xab's include and library directories on the
#                 compiler's default paths (CPATH, LIBRARY_PATH), as when
#                 xab is installed under /usr/local; exit status 0
#   live          a pipeline led by abmon that waits for a program: it is
#                 started in the background; once abmon has registered,
#                 xabdemo runs; then abmon gets SIGINT; the pipeline must
#                 end (a viewer at its end is closed) and every trace file
#                 it names must end with abmon.stop
#   gui           xabview opening its window until the user closes it:
#                 runs 5 s (offscreen) and must still be running then
#   until:TEXT    a run that only ends when the user stops it (a program
#                 that hangs): it must print TEXT; then it gets SIGINT, as
#                 Ctrl-C sends it, and the VM is reset
#   skip:REASON   not run, for the reason given
TABLE=$(cat <<'EOF'
skip:the README's command for a fresh machine (installs packages, builds into build/); tests/demo runs the demo	scripts/demo.sh
skip:the test suite itself	scripts/test.sh
run	xabrace -n 5 --delay 50
skip:xabrace --hang hangs in most orders, not all: tests/replay records until one hangs, then replays it	abreplay --record rec -- xabrace --hang
skip:needs the record of the step before (skipped): tests/replay dumps its records	abreplay --dump rec
skip:abmon in the background for the replay of a hang: tests/replay traces a replay with abmon	abmon -o replay.trace &
skip:replays a hung run, which never ends: tests/replay does, with a timeout	abreplay rec -- xabrace --hang
run	abmon -o wrong.trace -- xabrace -n 5 --delay 50
run	abreplay --from-trace wrong.trace
run	abreplay --from-trace wrong.trace -- xabrace -n 5 --delay 50
run	abreplay --from-trace wrong.trace --write-record wrong.rec
run	abreplay --dump wrong.rec
skip:abmon in the background for a run that hangs: tests/replay (test_from_trace) traces xabrace --hang until it hangs	abmon -o hung.trace &
skip:xabrace --hang hangs in most orders, not all: tests/replay (test_from_trace) traces it until it hangs	xabrace --hang
skip:replays a hung run from its trace, which never ends: tests/replay (test_from_trace) does, with a timeout	abreplay --from-trace hung.trace -- xabrace --hang
skip:needs the trace of a hung run (bad.trace): docs/replay.md's wrong.trace example runs, tests/replay (test_from_trace) replays a hang	abreplay --from-trace bad.trace -- xabrace --hang
skip:needs the trace of a hung run (bad.trace): docs/replay.md's wrong.trace example writes a record from a trace	abreplay --from-trace bad.trace --write-record rec
skip:an interactive stepping session in the Control dock: tests/demo (test_step) and tests/xabview (control) drive it	abmon --control auto | tee replay.trace | xabview --control auto &
skip:an interactive stepping session in the Control dock: tests/demo (test_step) and tests/xabview (control) drive it	abmon --control auto | tee evfile | xabview --control auto
skip:the trace of the skipped replay of a hang: tests/replay reads such a trace	abstat replay.trace
skip:corrects the skipped replay's trace with the skipped record: tests/replay corrects a traced replay of xabrace	abstat --compensate --replay-of rec replay.trace
skip:corrects the skipped replay's trace with the skipped record: tests/replay corrects a traced replay of xabrace	ab2picl --replay-of rec replay.trace > replay.picl
skip:corrects the skipped replay's trace with the skipped record: tests/replay corrects a traced replay of xabrace	abstat --replay-of rec --replay-check 3 replay.trace
skip:installs packages and builds into build/: the README's fresh-machine commands run it	scripts/setup.sh
skip:starts a VM shared with other users; this test uses a private one (scripts/pvm-vm.sh)	pvmd hostfile &
run	abmon -o run.trace -- ./master
run	mkfifo ready; abmon -o run.trace --ready-fd 3 3>ready &  read -r line < ready && ./master;  kill -INT $!; wait $!
run	timeout 60 abmon -o run.trace -- ./master
skip:an SPMD program spawned from the console: tests/examples/abrun_safety_test.sh runs the recipe with a program of its own (spawn -2)	abmon -o spmd.trace -- sh -c 'echo "spawn -4 prog" | pvm; while echo ps | pvm | grep -q prog; do sleep 1; done'
skip:builds and tests: CI runs them (scripts/test.sh)	cmake -S . -B build -G Ninja && ninja -C build abmon abmon_fake_task test_abmon_format test_abmon_pvm
skip:builds and tests: CI runs them (scripts/test.sh)	ctest --test-dir build-test -L abmon
skip:builds and tests: CI runs them (scripts/test.sh, scripts/fuzz.sh)	CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DXAB_FUZZ=ON
skip:builds and tests: CI runs them (scripts/fuzz.sh)	ninja -C build-fuzz fuzz_abmon_message
skip:fuzzing for 5 minutes: scripts/fuzz.sh runs every target in CI	build-fuzz/fuzz/fuzz_abmon_message -max_total_time=300 build-fuzz/fuzz/corpus-fuzz_abmon_message/
run	gfortran -fallow-argument-mismatch -I/usr/include prog.f -o prog -lfpvm3 -lgpvm3 -lpvm3
run	gfortran -fallow-argument-mismatch -I/usr/include prog.f -o prog  -LBUILD/lib -lf2x -lab -lgpvm3 -lpvm3
run	gfortran $(pkg-config --variable=fflags f2x) -c prog.f
installed	gfortran -fallow-argument-mismatch -I/usr/include prog.f -o prog  -lf2x -lab -lgpvm3 -lpvm3
run	gfortran prog.o -o prog $(pkg-config --libs f2x)
run	abmon -o prog.trace -- ./prog
run	grep lang= prog.trace
skip:builds and tests: CI runs them (scripts/test.sh)	cmake -S . -B build -G Ninja && cmake --build build -j2
skip:builds and tests: CI runs them (scripts/test.sh)	ctest --test-dir build-test -L f2x --output-on-failure
run	cc -c prog.c $(pkg-config --cflags xab)
run	cc prog.o -o prog $(pkg-config --libs xab)
live	abmon | tee evfile
run	./prog
skip:fuzzing: CI runs scripts/fuzz.sh	scripts/fuzz.sh
skip:fuzzing for 10 minutes, by hand	scripts/fuzz.sh --seconds 600 --only fuzz_trace_reader
skip:a benchmark (minutes; docs/performance.md gives its figures)	cmake -S . -B build -G Ninja && cmake --build build --target bench abmon
skip:a benchmark (minutes; docs/performance.md gives its figures)	bench/run-libab-bench.sh -b build -o /tmp/libab-bench
skip:a benchmark (minutes; docs/performance.md gives its figures)	build/bench/model_read_bench --events 2000000 --file /tmp/synthetic.trace --keep
skip:a benchmark (minutes; docs/performance.md gives its figures)	build/bench/trace_compress_bench /tmp/synthetic.trace
skip:a benchmark (minutes; docs/performance.md gives its figures)	build/bench/trace_compress_bench run.trace
skip:a benchmark (minutes; docs/performance.md gives its figures)	bench/run-libab-bench.sh -b build --nice -10 -R 5
skip:a benchmark (minutes; docs/performance.md gives its figures)	bench/run-libab-bench.sh -b build --quick
skip:a benchmark (minutes; docs/performance.md gives its figures)	bench/run-libab-bench.sh -b build --checks-only
skip:a benchmark (minutes; docs/performance.md gives its figures)	bench/run-libab-bench.sh -b build --pairs 15 --nice -10
skip:a benchmark (minutes; docs/performance.md gives its figures)	bench/sample-bench.sh build-test 20 3
skip:a benchmark (minutes; docs/performance.md gives its figures)	bench/run-libab-bench.sh -b build --pairs 15 --nice -10 --abmon-args --pvm-only
run	scripts/pvm-vm.sh start /tmp/vm build/bin && source /tmp/vm/env
skip:a benchmark (minutes; docs/performance.md gives its figures)	XAB_BATCH=4096 XAB_FLUSH_MS=1000000 build/bin/abmon -o /tmp/f2x.trace -- build/bench/f2x_call_bench -w 1000 -r 300
run	scripts/pvm-vm.sh stop /tmp/vm
skip:a benchmark (minutes; docs/performance.md gives its figures)	build/bench/abmon_format_bench --events 10000000
skip:a benchmark (minutes; docs/performance.md gives its figures)	build/bench/model_read_bench
skip:a benchmark (minutes; docs/performance.md gives its figures)	build/bench/model_read_bench --events 2000000
skip:a benchmark (minutes; docs/performance.md gives its figures)	cmake -S . -B build -G Ninja && ninja -C build translators_gentrace ab2picl picl2ab ab2json ab2otf2 ab2au
skip:a benchmark (minutes; docs/performance.md gives its figures)	REPEAT=3 bench/translators_bench.sh 200 build
skip:a benchmark (minutes; docs/performance.md gives its figures)	REPEAT=3 BEFORE=/path/to/old/build/bin MEMORY_SIZES="50 200 400" bench/translators_bench.sh 200 build
skip:a benchmark (minutes; docs/performance.md gives its figures)	build/bench/xabview_bench --events 6900000 --keep /tmp/6m9.trace
skip:a benchmark (minutes; docs/performance.md gives its figures)	for i in 1 2 3; do OLD/bench/xabview_bench --trace /tmp/6m9.trace; build/bench/xabview_bench --trace /tmp/6m9.trace; done
skip:a benchmark (minutes; docs/performance.md gives its figures)	bench/readers_memory.sh -b build
skip:a benchmark (minutes; docs/performance.md gives its figures)	WORKLOAD=packloop bench/xabview_live.sh build-test 8 100000 both
skip:a benchmark (minutes; docs/performance.md gives its figures)	bench/xabview_live.sh build-test 8 40000 both
skip:a benchmark (ten minutes; docs/performance.md gives its figures)	WORKLOAD=packloop TEE=0 bench/xabview_live.sh build-test 8 6000000 pipe
run	ab2picl --nodes run.nodes run.trace > run.trf
live	abmon | tee run.trace | ab2picl --quiet > run.trf
run	picl2ab mpicl.trf | abstat
run	ab2picl --quiet run.trace | picl2ab --quiet | abstat --messages --barriers
run	ab2otf2 -o run.otf2 run.trace
run	otf2-print run.otf2/traces.otf2 | less
run	otf2-print run.otf2/traces.otf2 | grep -c '^MPI_SEND'
run	ab2json run.trace > run.json
run	ab2json run.trace | python3 -m json.tool > /dev/null && ab2json --quiet run.trace | gzip > run.json.gz
run	ab2au send 8 400 10000 < evfile > out.au
run	ab2au sendmix 4 400 10000 < evfile | aplay
run	ab2au sendnum 16 200 5000 -o inflight.wav run.trace
skip:builds and tests: CI runs them (scripts/test.sh)	cmake -S . -B build -G Ninja && ninja -C build translators_tests
skip:builds and tests: CI runs them (scripts/test.sh)	ctest --test-dir build-test -R translators
skip:rewrites the translators' golden files	XAB_REGEN_GOLDEN=1 ctest --test-dir build-test -R translators
skip:builds and tests: CI runs them (scripts/fuzz.sh)	CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DXAB_FUZZ=ON -DXAB_BUILD_VIEWER=OFF
skip:builds and tests: CI runs them (scripts/fuzz.sh)	ninja -C build-fuzz fuzz_picl_reader
skip:fuzzing for 5 minutes: scripts/fuzz.sh runs every target in CI	build-fuzz/fuzz/fuzz_picl_reader -max_total_time=300 -dict=fuzz/picl_reader.dict build-fuzz/fuzz/corpus-fuzz_picl_reader
skip:installs xab under /usr/local: this test installs it into a scratch prefix and runs every example against that	cmake --install build
run	xab-vm start /tmp/myvm .
run	source /tmp/myvm/env
run	xab-vm stop /tmp/myvm
run	xab-vm start /tmp/vm .
run	source /tmp/vm/env && echo conf | pvm
run	xab-vm status /tmp/vm
run	xab-vm stop /tmp/vm
run	abmon -o demo.trace -- xabdemo -n 3 --rounds 5
run	picl2ab mpicl.trf | abstat
run	ab2au send 8 400 10000 < run.trace > run.au
run	cc -c prog.c -Ilibab/include
run	cc prog.o -o prog build/lib/libab.a -lgpvm3 -lpvm3
run	cc prog.c -o prog $(pkg-config --cflags --libs xab)
run	abmon -o evfile -- ./prog
run	abstat demo.trace
run	ab2au send 8 160 100000 run.trace > run.au
run	ab2json run.trace | python3 -m json.tool > /dev/null
run	ab2json --quiet run.trace | gzip > run.json.gz
skip:needs Vampir, which Debian does not package	vampir run.otf2/traces.otf2
run	ab2picl run.trace 2>&1 >/dev/null | tail -1
run	ab2picl --lenient damaged.trace > run.trf
live	abmon | grep --line-buffered ' recv'
live	abmon --batch 4096 --flush-ms 1000 -o big.trace
live	abmon -v --tag 4242 -o run.trace
run	xab-vm start /tmp/vm . && source /tmp/vm/env
run	abmon -o run.trace -- xabdemo
run	abstat run.trace
run	abstat --hang --mismatch run.trace; echo $?
run	abstat --json run.trace > run.json
live	abmon | tee run.trace | abstat --follow --stall 3 --hang
run	abmon -- ./prog | tee run.trace | abstat --follow --stall 10
run	abstat --barriers run.trace
run	abstat --why run.trace
run	abstat --why --json run.trace > why.json
skip:needs two runs of one program, even and slow: tests/tools (abstat --why on a real run) compares them	abstat --compare even.trace slow.trace
skip:a line of a CMakeLists.txt, not a command	find_package(xab REQUIRED)
skip:a line of a CMakeLists.txt, not a command	target_link_libraries(prog PRIVATE xab::f2x)
skip:a line of a CMakeLists.txt, not a command	target_link_libraries(prog PRIVATE xab::ab)
run	picl2ab -o run.trace run.trf
run	ab2picl --quiet run.trace | picl2ab --quiet | abstat --messages
gui	abmon -- ./prog | tee -i evfile | xabview
installed	cc -DXAB_DISABLE prog.c -o prog -lgpvm3 -lpvm3
skip:a line of C, not a command	xab_mark("factorization done");
run	abmon -o demo.trace -- build/bin/xabdemo -n 4 --rounds 10
run	scripts/pvm-vm.sh stop /tmp/vm
until:no progress for	abmon -- build/bin/xabdemo --hang | abstat --follow --stall 3 --hang
gui	abmon | tee -i evfile | xabview
gui	xabview evfile
run	xabview --step 40 --screenshot step40.png evfile
run	xabview --play-to-end --dump-state state.json --save-diagram d.svg evfile
run	xabview --play-to-end --export evfile.trf evfile
run	xabview --goto 0.1 --find tag=16004 --dump-state s.json evfile
live	abmon | tee evfile | xabview --dump-on-hang hang.json
run	QT_QPA_PLATFORM=offscreen xabview --play-to-end --screenshot s.png evfile
run	scripts/pvm-hosts.sh --help
skip:needs root and network namespaces; tests/multihost runs the same steps (multihost_demo, _loss, _delay, _skew, _pvmd_kill)	scripts/pvm-hosts.sh --dir /tmp/h3 up 3 --bin build/bin
skip:needs root and network namespaces; tests/multihost runs the same steps (multihost_demo, _loss, _delay, _skew, _pvmd_kill)	scripts/pvm-hosts.sh --dir /tmp/h3 run node0 build/bin/abmon -o /tmp/h3/demo.trace -- build/bin/xabdemo -n 6
skip:needs root and network namespaces; tests/multihost runs the same steps (multihost_demo, _loss, _delay, _skew, _pvmd_kill)	build/bin/abstat /tmp/h3/demo.trace
skip:needs root and network namespaces; tests/multihost runs the same steps (multihost_demo, _loss, _delay, _skew, _pvmd_kill)	scripts/pvm-hosts.sh --dir /tmp/h3 down
skip:needs root and network namespaces; tests/multihost runs the same steps (multihost_demo, _loss, _delay, _skew, _pvmd_kill)	scripts/pvm-hosts.sh --dir /tmp/h3 up 3 --bin build/bin --skew node2=+2h
skip:needs root and network namespaces; tests/multihost runs the same steps (multihost_demo, _loss, _delay, _skew, _pvmd_kill)	scripts/pvm-hosts.sh --dir /tmp/h3 loss node2 10
skip:needs root and network namespaces; tests/multihost runs the same steps (multihost_demo, _loss, _delay, _skew, _pvmd_kill)	scripts/pvm-hosts.sh --dir /tmp/h3 delay node1 20
skip:needs root and network namespaces; tests/multihost runs the same steps (multihost_demo, _loss, _delay, _skew, _pvmd_kill)	scripts/pvm-hosts.sh --dir /tmp/h3 kill-pvmd node2
skip:a benchmark (minutes; docs/performance.md gives its figures)	bench/run-multihost-bench.sh -b build-test
run	abrun -o run.trace ./master
run	abstat --output run.trace
run	abstat --output --task master run.trace
skip:a live viewer on a pipe from abrun: tests/examples/abrun_test.sh runs it (case 7) with abrun_talk offscreen	abrun -o - ./master | xabview
skip:a benchmark (minutes; docs/performance.md gives its figures)	bench/run-abrun-bench.sh build 3
skip:a benchmark (minutes; docs/performance.md gives its figures)	taskset -c 1 build/bin/abrun -o /tmp/t.pvm taskset -c 0 build/bench/pingpong-plain roundtrip -n 5000 -r 7
skip:a benchmark (minutes; docs/performance.md gives its figures)	bench/run-multihost-bench.sh -b build-test --repeat 1 --pairs 5
skip:a benchmark (minutes; docs/performance.md gives its figures)	bench/run-load-bench.sh -b build-test
skip:a benchmark (minutes; docs/performance.md gives its figures)	bench/run-ingest-bench.sh -b build-test
EOF
)

work=$(mktemp -d "${TMPDIR:-/tmp}/xab-doc-examples.XXXXXX")
vm=$work/vm
cleanup() {
  local v
  for v in "$vm" "$work/user-vm"; do
    [[ -d $v ]] && XAB_VM_QUIET=1 "$src/scripts/pvm-vm.sh" stop "$v" >/dev/null 2>&1
  done
  if [[ -n ${XAB_DOC_EXAMPLES_KEEP:-} ]]; then echo "kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

failed=0
fail() { echo "FAIL: $*"; failed=1; }

# --- the installed product and the files the examples name ---------------
prefix=$work/prefix fixtures=$work/fixtures ep=$work/ep
mkdir -p "$fixtures" "$ep"
cmake --install "$build" --prefix "$prefix" >/dev/null || { echo "FAIL: cmake --install"; exit 1; }
export PATH=$prefix/bin:$PATH
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig:$prefix/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export QT_QPA_PLATFORM=offscreen PVM_ALLOW_ROOT=yes

# A sanitizer build installs sanitized libraries, which a program links
# only when it is compiled with the same -fsanitize: `cc` and `gfortran`
# here add it, so the documented commands stay as a user types them.
sanitize=$(sed -n 's/^XAB_SANITIZE:STRING=//p' "$build/CMakeCache.txt")
if [[ -n $sanitize ]]; then
  mkdir -p "$work/compilers"
  for c in cc gfortran; do
    printf '#!/bin/sh\nexec %s "$@" -fsanitize=%s\n' "$(command -v "$c")" "$sanitize" >"$work/compilers/$c"
    chmod +x "$work/compilers/$c"
  done
  export PATH=$work/compilers:$PATH
fi

tar xzf /usr/share/doc/pvm-examples/examples.tar.gz -C "$work" examples/hello.c examples/spmd.f ||
  { echo "FAIL: PVM's examples (package pvm-examples) are missing"; exit 1; }
{ echo '#include "xab.h"'; cat "$work/examples/hello.c"; } >"$fixtures/prog.c"
cp "$work/examples/spmd.f" "$fixtures/prog.f"
# xabdemo spawns its workers by its own name: pvm_spawn finds them in $ep.
for name in master prog; do cp "$prefix/bin/xabdemo" "$ep/$name"; cp "$ep/$name" "$fixtures/$name"; done
cp "$src/tests/translators/data/mpicl.picl" "$fixtures/mpicl.trf"

XAB_VM_QUIET=1 "$src/scripts/pvm-vm.sh" start --owner $$ "$vm" "$ep" "$prefix/bin" >/dev/null || { echo "FAIL: no VM"; exit 1; }
source "$vm/env"

(cd "$fixtures" && abmon -o run.trace -- ./master -n 3 --rounds 2 >/dev/null 2>&1) ||
  { echo "FAIL: the fixture run (abmon -o run.trace -- xabdemo) failed"; exit 1; }
cp "$fixtures/run.trace" "$fixtures/evfile"
cp "$fixtures/run.trace" "$fixtures/demo.trace"
sed '5s/ t/ x/' "$fixtures/run.trace" >"$fixtures/damaged.trace"
(cd "$fixtures" && ab2picl --quiet run.trace >run.trf) || { echo "FAIL: ab2picl made no run.trf"; exit 1; }
grep -q ' x' "$fixtures/damaged.trace" || { echo "FAIL: damaged.trace is not damaged"; exit 1; }

# --- how a documented command is typed here -------------------------------
# Paths into the source tree and build tree become absolute; /tmp/vm and
# /tmp/myvm (a user's own VM) become one of this test's; players and pagers
# that need a person become cat.
localise() {
  local c=$1
  c=${c//build\/bin/$prefix/bin}
  c=${c//build\/lib\/libab.a/$prefix/lib/libab.a}
  c=${c//-LBUILD\/lib/-L$prefix/lib}
  c=${c//-Ilibab\/include/-I$prefix/include}
  c=${c//scripts\//$src/scripts/}
  c=${c//\/tmp\/myvm/$work/user-vm}
  c=${c//\/tmp\/vm/$work/user-vm}
  c=${c//\/tmp\/run.trace/$sb/tmp-run.trace}
  c=${c//| aplay/| cat >/dev/null}
  c=${c//| less/| cat}
  printf '%s' "$c"
}

vm_tasks() { echo "ps -a" | pvm 2>/dev/null | grep -c ' 4/c' || true; }

# Every trace file a command names ends with abmon.stop.
check_stopped() {
  local f
  for f in $(files_written "$2"); do
    [[ $(tail -1 "$sb/$f" 2>/dev/null) == *" abmon.stop "* ]] || fail "$1: $f does not end with abmon.stop"
  done
}

run_cmd() {  # expected-status command [VAR=value...]
  local want=$1 cmd out rc
  cmd=$(localise "$2")
  out=$(cd "$sb" && env "${@:3}" timeout 120 bash -c "$cmd" 2>&1 </dev/null)
  rc=$?
  [[ $rc == "$want" ]] || fail "$2: exit $rc, wanted $want: ${out:0:400}"
}

# A trace file a live command writes into (abmon -o F, tee F).
files_written() {
  local w prev=
  for w in $1; do
    [[ $prev == -o || $prev == tee || $prev == -i ]] && [[ $w != -i ]] && echo "$w"
    prev=$w
  done
}

run_live() {
  local cmd pgid k n0
  cmd=$(localise "$1")
  rm -f "$sb/live.out"
  n0=$(vm_tasks)
  (cd "$sb" && exec setsid bash -c "$cmd" >"$sb/live.out" 2>&1 </dev/null) &
  pgid=$!
  for ((k = 0; k < 100; k++)); do ((k > 0)) && sleep 0.1; (($(vm_tasks) > n0)) && break; done
  (($(vm_tasks) > n0)) || { fail "$1: abmon never registered: $(head -c 400 "$sb/live.out")"; kill -KILL -- "-$pgid" 2>/dev/null; return; }
  (cd "$sb" && timeout 120 "$prefix/bin/xabdemo" -n 2 --rounds 2 >/dev/null 2>&1) || fail "$1: the program failed under it"
  pkill -INT -g "$pgid" -x abmon
  for ((k = 0; k < 100; k++)); do kill -0 "$pgid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pgid" 2>/dev/null; then
    [[ $cmd == *xabview* ]] || fail "$1: still running 10 s after abmon was told to stop"
    kill -TERM -- "-$pgid" 2>/dev/null
  fi
  wait "$pgid" 2>/dev/null
  check_stopped "$1" "$cmd"
  [[ -s $sb/live.out || -n $(files_written "$cmd") ]] || fail "$1: wrote nothing"
}

run_gui() {
  local cmd pid
  cmd=$(localise "$1")
  (cd "$sb" && exec setsid bash -c "$cmd" >"$sb/gui.out" 2>&1 </dev/null) &
  pid=$!
  sleep 5
  if kill -0 "$pid" 2>/dev/null; then
    [[ $cmd == abmon* ]] && pkill -INT -g "$pid" -x abmon
    sleep 1
    kill -TERM -- "-$pid" 2>/dev/null
  else
    fail "$1: ended within 5 s: $(head -c 400 "$sb/gui.out")"
  fi
  wait "$pid" 2>/dev/null
  check_stopped "$1" "$cmd"
}

run_until() {  # text command
  local cmd pid k
  cmd=$(localise "$2")
  (cd "$sb" && exec setsid bash -c "$cmd" >"$sb/until.out" 2>&1 </dev/null) &
  pid=$!
  for ((k = 0; k < 600; k++)); do grep -qsF -- "$1" "$sb/until.out" && break; sleep 0.1; done
  grep -qF -- "$1" "$sb/until.out" || fail "$2: no '$1' within 60 s: $(head -c 400 "$sb/until.out")"
  kill -INT -- "-$pid" 2>/dev/null
  for ((k = 0; k < 100; k++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && { fail "$2: did not stop on SIGINT"; kill -KILL -- "-$pid"; }
  wait "$pid" 2>/dev/null
  echo reset | pvm >/dev/null 2>&1  # the hung program's tasks
}

# --- every documented command, in the documents' order ---------------------
declare -A kind_of
while IFS=$'\t' read -r kind cmd; do kind_of[$cmd]=$kind; done <<<"$TABLE"
declare -A shown
ran=0 skipped=0 doc=
while IFS=$'\t' read -r file cmd; do
  if [[ $file != "$doc" ]]; then  # a new document: a fresh directory, no user VM left over
    doc=$file sb=$work/docs/${file//\//_}
    mkdir -p "$sb" && cp -a "$fixtures/." "$sb/"
    [[ -d $work/user-vm ]] && XAB_VM_QUIET=1 "$src/scripts/pvm-vm.sh" stop "$work/user-vm" >/dev/null 2>&1
  fi
  shown[$cmd]=1
  kind=${kind_of[$cmd]-}
  case $kind in
    run) run_cmd 0 "$cmd"; ran=$((ran + 1)) ;;
    installed) run_cmd 0 "$cmd" CPATH="$prefix/include" LIBRARY_PATH="$prefix/lib"; ran=$((ran + 1)) ;;
    exit=*) run_cmd "${kind#exit=}" "$cmd"; ran=$((ran + 1)) ;;
    live) run_live "$cmd"; ran=$((ran + 1)) ;;
    gui) run_gui "$cmd"; ran=$((ran + 1)) ;;
    until:*) run_until "${kind#until:}" "$cmd"; ran=$((ran + 1)) ;;
    skip:*) skipped=$((skipped + 1)) ;;
    *) fail "$file: an example this test does not know: '$cmd' (add it to TABLE in ${BASH_SOURCE[0]##*/})" ;;
  esac
done < <("$src/tests/docs/extract_examples.sh" "$src")

for cmd in "${!kind_of[@]}"; do
  [[ -n ${shown[$cmd]-} ]] || fail "TABLE names a command no document shows any more: '$cmd'"
done
((ran >= 40)) || fail "only $ran examples ran"
((failed)) || echo "$ran documented examples ran as documented, $skipped skipped for the reasons in TABLE"
exit "$failed"
