#!/usr/bin/env bash
# test.sh -- set everything up and run the whole test suite:
#   1. build-test: a normal build with warnings as errors, then ctest -j2;
#      beside ctest, scripts/lint.sh (clang-tidy's naming check)
#   2. build-asan: AddressSanitizer + UndefinedBehaviorSanitizer (clang),
#      then ctest
#   3. build-tsan: ThreadSanitizer (clang), the tests labelled `tsan` (abmon, the
#      model, the viewer's loader and snapshots: the code with threads or
#      with signals and sockets in one loop)
#   4. build-fuzz: every libFuzzer target for a bounded time (scripts/fuzz.sh)
# Each build's tests run while the next build compiles, the last (TSan)
# while the fuzzers run (see main).
# Prints a summary and exits non-zero if any step failed.  CI runs this
# (through .ci/run) as root on a fresh clone with no stdin.
# shellcheck disable=SC2317  # functions run indirectly through step()
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TEST_DIR=${XAB_TEST_BUILD_DIR:-$ROOT/build-test}
ASAN_DIR=${XAB_ASAN_BUILD_DIR:-$ROOT/build-asan}
TSAN_DIR=${XAB_TSAN_BUILD_DIR:-$ROOT/build-tsan}
FUZZ_SECONDS=${XAB_FUZZ_SECONDS:-30}
# What the ThreadSanitizer build compiles: the executables of the tests
# labelled `tsan` and what they run.
TSAN_TARGETS=(model_tests test_abmon_format test_abmon_pvm abmon abmon_fake_task xabview_tests)
JOBS=${XAB_JOBS:-2}
# Tests at once: twice the build jobs.  Most tests wait (for pvmds, for
# tasks, for abmon) far more than they compute: ctest -j2 kept the two
# cores 20 % busy (187 s wall, 76 s CPU); -j4 ran the same suite in 109 s
# (ASan+UBSan: 251 s -> 164 s) with every test passing.
CTEST_JOBS=${XAB_CTEST_JOBS:-$((2 * JOBS))}
TEST_TIMEOUT=${XAB_TEST_TIMEOUT:-600}
RUN_PLAIN=1 RUN_ASAN=1 RUN_TSAN=1 RUN_FUZZ=1 RUN_LINT=1
CTEST_ARGS=()
ONLY=0
# --cpu: every step alone, one after the other, its CPU time (its processes'
# and their children's, pvmd's and the tasks' included) read from a cgroup
# of its own (cgroup v1 cpuacct): where CI's time goes, whatever the load.
CPU_REPORT=0
CPUACCT=/sys/fs/cgroup/cpuacct
# Debug information: line tables only (-g1).  Sanitizer reports and
# backtraces keep their file:line; full -g costs a third more compile time
# at -O2 (6.5 s against 4.6 s for main_window.cpp) in builds that are only
# ever tested.
opt_flags() {  # build-type optimisation...
  local lang
  for lang in C CXX Fortran; do
    printf '%s\n' "-DCMAKE_${lang}_FLAGS_$1=$2 -g1${3:+ $3}"
  done
}
mapfile -t RELEASE_FLAGS < <(opt_flags RELWITHDEBINFO -O2 -DNDEBUG)
mapfile -t DEBUG_FLAGS < <(opt_flags DEBUG -O0)
# The sanitizer builds with clang, the sanitizers' own compiler (Fortran
# stays gfortran); the plain build stays on GCC, so both compilers'
# warnings are errors.  Cold, without a compiler cache, the ASan+UBSan
# build takes 247 CPU s with clang against 418 with GCC, the
# ThreadSanitizer targets 116 at -O0 against GCC's 187 at -O1
# (docs/performance.md, "Test suite time"; -O0 finds the same races, its
# tests take seconds).  clang's -fsanitize=undefined also checks
# float-to-integer conversions, which GCC's leaves out.
SAN_COMPILERS=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
mapfile -t TSAN_FLAGS < <(opt_flags RELWITHDEBINFO -O0 -DNDEBUG)
# Every build compiles each target's sources a batch at a time
# (cmake/XabUnity.cmake): the headers and templates the sources share are
# compiled once a batch, not once a source (the plain build: parts 550 ->
# 282 CPU s, test drivers 291 -> 184).  lint.sh reads each source's command
# from its batch's.
UNITY=(-DCMAKE_UNITY_BUILD=ON)

usage() {
  cat <<EOF
Usage: scripts/test.sh [--no-asan] [--no-tsan] [--no-fuzz] [--no-lint] [--cpu]
                       [--asan-only | --tsan-only | --fuzz-only] [-- CTEST_ARGS...]
Install what is missing (scripts/setup.sh --no-build), build xab with
-DXAB_WERROR=ON in build-test/ (a unity build: cmake/XabUnity.cmake) and run
ctest -j$CTEST_JOBS, with scripts/lint.sh beside it; then build it with clang
and -DXAB_SANITIZE=address,undefined (a unity build too) in build-asan/ and
run ctest again; then build the tests labelled tsan with -DXAB_SANITIZE=thread
(clang, a unity build too) in build-tsan/ and run them; then run every fuzz target for $FUZZ_SECONDS s (scripts/fuzz.sh).
With CTEST_ARGS (a chosen subset of tests) the ThreadSanitizer, fuzz and
lint steps are left out unless asked for with --tsan-only or --fuzz-only.

  --no-asan     skip the AddressSanitizer build
  --no-tsan     skip the ThreadSanitizer build
  --no-fuzz     skip fuzzing
  --no-lint     skip scripts/lint.sh
  --asan-only   only the AddressSanitizer build
  --tsan-only   only the ThreadSanitizer build
  --fuzz-only   only fuzzing
  --cpu         every step alone, one after the other, and the CPU seconds
                each took (a cpuacct cgroup a step; needs root)
  -h, --help    this text
Environment: XAB_TEST_BUILD_DIR, XAB_ASAN_BUILD_DIR, XAB_TSAN_BUILD_DIR
(build directories), XAB_JOBS (build jobs, default 2), XAB_CTEST_JOBS (tests
at once, default twice XAB_JOBS), XAB_TEST_TIMEOUT (seconds per test,
default 600), XAB_FUZZ_SECONDS (per fuzz target, default 30).

Examples:
  1. scripts/test.sh
  2. scripts/test.sh --no-asan -- -L demo
  3. scripts/test.sh -- -R PrivateVm --repeat until-fail:3
  4. scripts/test.sh --tsan-only
EOF
}

parse_args() {
  while (($#)); do
    case $1 in
      --no-asan) RUN_ASAN=0 ;;
      --no-tsan) RUN_TSAN=0 ;;
      --no-fuzz) RUN_FUZZ=0 ;;
      --no-lint) RUN_LINT=0 ;;
      --cpu) CPU_REPORT=1 ;;
      --asan-only) RUN_PLAIN=0 RUN_TSAN=0 RUN_FUZZ=0 ONLY=1 ;;
      --tsan-only) RUN_PLAIN=0 RUN_ASAN=0 RUN_FUZZ=0 ONLY=1 ;;
      --fuzz-only) RUN_PLAIN=0 RUN_ASAN=0 RUN_TSAN=0 ONLY=1 ;;
      -h | --help) usage; exit 0 ;;
      --) shift; CTEST_ARGS=("$@"); break ;;
      *) usage >&2; exit 2 ;;
    esac
    shift
  done
  if ((${#CTEST_ARGS[@]} && !ONLY)); then RUN_TSAN=0 RUN_FUZZ=0; fi
  if ((${#CTEST_ARGS[@]} || !RUN_PLAIN)); then RUN_LINT=0; fi
  if ((CPU_REPORT)) && ! [[ -w $CPUACCT ]]; then
    echo "test.sh: --cpu needs a writable cgroup v1 cpuacct at $CPUACCT (root)" >&2
    exit 2
  fi
  if ((CPU_REPORT)); then
    trap cgroup_remove EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
  fi
}

# ---- steps and the summary ----
STEP_NAMES=() STEP_RESULTS=() FAILED=0

record() {  # name rc seconds [cpu-seconds]
  STEP_NAMES+=("$1")
  local cpu=${4:+, ${4}s CPU}
  if (($2 == 0)); then
    STEP_RESULTS+=("ok      ${3}s$cpu")
  else
    STEP_RESULTS+=("FAILED  ${3}s$cpu (exit $2)")
    FAILED=1
  fi
}

# With --cpu: run the command in a cpuacct cgroup of its own; its CPU
# seconds in CPU_SECONDS.
CPU_SECONDS=""
in_cgroup() {  # command...
  local group=$CPUACCT/xab-test.$$ rc=0
  mkdir "$group" || return 1
  (echo "$BASHPID" >"$group/tasks" && "$@") || rc=$?
  # What the step left running (a pvmd it did not stop) counts until here.
  CPU_SECONDS=$(($(cat "$group/cpuacct.usage") / 1000000000))
  cgroup_remove
  return "$rc"
}
# The step's cgroup goes, what it left running back to the root's (also on
# an interrupted run: main's trap).
cgroup_remove() {
  local group=$CPUACCT/xab-test.$$ pid try
  for ((try = 0; try < 50; try++)); do  # an interrupted step's processes may still be ending
    [[ -d $group ]] || return 0
    while read -r pid; do echo "$pid" >"$CPUACCT/tasks"; done <"$group/tasks" 2>/dev/null
    rmdir "$group" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "test.sh: could not remove $group" >&2
}

step() {  # name command...
  local name=$1; shift
  echo
  echo "==== test.sh: $name"
  local start=$SECONDS rc=0
  CPU_SECONDS=""
  if ((CPU_REPORT)); then in_cgroup "$@" || rc=$?; else "$@" || rc=$?; fi
  record "$name" "$rc" $((SECONDS - start)) "$CPU_SECONDS"
  return "$rc"
}

# One step at a time runs in the background, its output kept in a file and
# printed whole when it ends, so the log reads as if the steps had run one
# after the other.
BG_PID="" BG_NAME="" BG_LOG="" BG_START=0

bg_step() {  # name command...
  if ((CPU_REPORT)); then step "$@"; return; fi
  BG_NAME=$1; shift
  BG_LOG=$(mktemp "${TMPDIR:-/tmp}/xab-test-step.XXXXXX")
  BG_START=$SECONDS
  echo
  echo "==== test.sh: $BG_NAME (runs beside the next build; its output follows when it ends)"
  # Its time is its own, up to its end, not up to the end of the build
  # beside it.
  { "$@"; local rc=$?; echo "$SECONDS" >"$BG_LOG.end"; exit "$rc"; } >"$BG_LOG" 2>&1 &
  BG_PID=$!
}

bg_wait() {
  [[ -n $BG_PID ]] || return 0
  local rc=0
  wait "$BG_PID" || rc=$?
  echo
  echo "==== test.sh: $BG_NAME (output)"
  cat "$BG_LOG"
  local end=$SECONDS
  [[ -s $BG_LOG.end ]] && end=$(<"$BG_LOG.end")
  rm -f "$BG_LOG" "$BG_LOG.end"
  record "$BG_NAME" "$rc" $((end - BG_START))
  BG_PID=""
  return "$rc"
}

summary() {
  echo
  echo "==== test.sh summary"
  local i
  for i in "${!STEP_NAMES[@]}"; do
    printf '  %-34s %s\n' "${STEP_NAMES[$i]}" "${STEP_RESULTS[$i]}"
  done
  if ((FAILED)); then
    echo "  RESULT: FAILED"
  else
    echo "  RESULT: all passed (${SECONDS}s)"
  fi
}

configure() {  # dir cmake-args...
  local dir=$1; shift
  local gen=() arg want="" have
  # A directory configured with another compiler starts over: CMake itself
  # would drop the cache and re-run without the -D options given here.
  compiler() { [[ -n $1 ]] && readlink -f "$(command -v "$1")"; }  # its real path
  for arg in "$@"; do [[ $arg == -DCMAKE_CXX_COMPILER=* ]] && want=$(compiler "${arg#*=}"); done
  if [[ -n $want && -f $dir/CMakeCache.txt ]]; then
    have=$(compiler "$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$dir/CMakeCache.txt")")
    if [[ $have != "$want" ]]; then
      echo "test.sh: $dir was configured with ${have:-another compiler}: configuring it afresh with $want"
      rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
    fi
  fi
  [[ -f $dir/CMakeCache.txt ]] || gen=(-G Ninja)
  # CI starts from an empty compiler cache, where ccache only adds its own
  # work to every compile (about a tenth).
  [[ -n ${CI:-} ]] && gen+=(-DXAB_CCACHE=OFF)
  cmake -S "$ROOT" -B "$dir" "${gen[@]}" "$@"
}

# A build that runs beside a test step yields the CPU to the tests.
build() {  # dir [cmake --build args...]
  local dir=$1; shift
  nice -n 10 cmake --build "$dir" -j "$JOBS" "$@"
}

run_ctest() {  # dir [more ctest args...]
  local dir=$1; shift
  (cd "$dir" && ctest --output-on-failure -j "$CTEST_JOBS" --timeout "$TEST_TIMEOUT" \
    --no-tests=error "$@" "${CTEST_ARGS[@]}")
}

# Sanitizer reports must fail the test that triggered them, including in
# PVM tasks spawned by pvmd (they inherit this environment), and in the
# sanitized tools the build runs.
asan_env() {
  export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$ROOT/scripts/lsan-pvm.supp:print_suppressions=0}
}
asan_build() { (asan_env && build "$ASAN_DIR"); }
asan_ctest() { (asan_env && run_ctest "$ASAN_DIR"); }
# ignore_noninstrumented_modules: memory that Qt (not instrumented) allocates,
# frees or copies through the sanitizer's interceptors is not checked.  Qt
# fills and converts big images on its own thread pool, handing the work over
# under locks ThreadSanitizer cannot see, and every such hand-over would be
# reported as a race inside Qt; xab's own accesses are all still checked.
tsan_env() {
  export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1:suppressions=$ROOT/scripts/tsan.supp}
}
# Only the executables of the tests labelled tsan, and only those tests:
# ThreadSanitizer is for the code with threads, and a whole third build
# would double CI's time for parts that have none.
tsan_build() { (tsan_env && build "$TSAN_DIR" --target "${TSAN_TARGETS[@]}"); }
tsan_ctest() { (tsan_env && run_ctest "$TSAN_DIR" -L tsan); }
fuzz_build() { nice -n 10 "$ROOT/scripts/fuzz.sh" --build-only; }
fuzz_run() { nice -n 10 "$ROOT/scripts/fuzz.sh" --run-only --seconds "$FUZZ_SECONDS"; }

# The naming check (clang-tidy, a batch of a target's sources at a time)
# starts once the plain build is done, at a low priority, beside the
# builds and tests after it; its step says how long it was still to be
# waited for at the end of the ASan tests.
LINT_PID="" LINT_LOG=""
start_lint() {
  if ((CPU_REPORT)); then return; fi  # a step of its own after the builds
  LINT_LOG=$TEST_DIR/lint.log
  nice -n 15 "$ROOT/scripts/lint.sh" "$TEST_DIR" >"$LINT_LOG" 2>&1 &
  LINT_PID=$!
}
wait_lint() {
  local rc=0
  wait "$LINT_PID" || rc=$?
  cat "$LINT_LOG"
  return "$rc"
}

# The steps overlap where one computes and the other mostly waits: the
# tests of one build (PVM tasks, pvmds, abmon, timeouts: the two cores stay
# a fifth busy) run while the next build compiles.  Each step's result is
# its own, whatever the others'.
main() {
  parse_args "$@"
  step "setup (packages)" "$ROOT/scripts/setup.sh" --no-build || { summary; exit 1; }
  if ((RUN_PLAIN)); then
    step "plain: configure" configure "$TEST_DIR" -DXAB_WERROR=ON -DXAB_TEST_KNOBS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      "${RELEASE_FLAGS[@]}" "${UNITY[@]}" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON &&
      step "plain: build" build "$TEST_DIR" &&
      { ((RUN_LINT)) && start_lint; bg_step "plain: ctest" run_ctest "$TEST_DIR"; }
  fi
  local asan_built=0
  if ((RUN_ASAN)); then
    step "asan+ubsan: configure" configure "$ASAN_DIR" -DXAB_WERROR=ON -DXAB_TEST_KNOBS=ON -DCMAKE_BUILD_TYPE=Debug \
      "${SAN_COMPILERS[@]}" "${DEBUG_FLAGS[@]}" "${UNITY[@]}" "-DXAB_SANITIZE=address,undefined" &&
      step "asan+ubsan: build" asan_build && asan_built=1
  fi
  bg_wait
  ((asan_built)) && bg_step "asan+ubsan: ctest" asan_ctest
  local tsan_built=0
  if ((RUN_TSAN)); then
    step "tsan: configure" configure "$TSAN_DIR" -DXAB_WERROR=ON -DXAB_TEST_KNOBS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      "${SAN_COMPILERS[@]}" "${TSAN_FLAGS[@]}" "${UNITY[@]}" -DXAB_SANITIZE=thread -DXAB_BUILD_FORTRAN=OFF &&
      step "tsan: build" tsan_build && tsan_built=1
  fi
  local fuzz_built=0
  if ((RUN_FUZZ)); then
    step "fuzz: build" fuzz_build && fuzz_built=1
  fi
  bg_wait
  [[ -n $LINT_PID ]] && step "lint (beside the builds and tests)" wait_lint
  ((CPU_REPORT && RUN_LINT && RUN_PLAIN)) && step "lint" "$ROOT/scripts/lint.sh" "$TEST_DIR"
  # The ThreadSanitizer tests mostly wait, the fuzzers compute for a fixed
  # time: side by side, the tests first in the CPU.
  ((tsan_built)) && bg_step "tsan: ctest" tsan_ctest
  ((fuzz_built)) && step "fuzz: run (${FUZZ_SECONDS}s a target)" fuzz_run
  bg_wait
  summary
  exit "$FAILED"
}

main "$@"
