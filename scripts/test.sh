#!/usr/bin/env bash
# test.sh -- set everything up and run the whole test suite, twice:
#   1. build-test: a normal build with warnings as errors, then ctest -j2
#   2. build-asan: AddressSanitizer + UndefinedBehaviorSanitizer, then ctest
# Prints a summary and exits non-zero if any step failed.  CI runs this
# (through .ci/run) as root on a fresh clone with no stdin.
# shellcheck disable=SC2317  # functions run indirectly through step()
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TEST_DIR=${XAB_TEST_BUILD_DIR:-$ROOT/build-test}
ASAN_DIR=${XAB_ASAN_BUILD_DIR:-$ROOT/build-asan}
JOBS=${XAB_JOBS:-2}
TEST_TIMEOUT=${XAB_TEST_TIMEOUT:-600}
RUN_PLAIN=1 RUN_ASAN=1
CTEST_ARGS=()

usage() {
  cat <<EOF
Usage: scripts/test.sh [--no-asan | --asan-only] [-- CTEST_ARGS...]
Install what is missing (scripts/setup.sh --no-build), build xab with
-DXAB_WERROR=ON in build-test/ and run ctest -j$JOBS; then build it with
-DXAB_SANITIZE=address,undefined in build-asan/ and run ctest again.

  --no-asan     skip the sanitizer build
  --asan-only   only the sanitizer build
  -h, --help    this text
Environment: XAB_TEST_BUILD_DIR, XAB_ASAN_BUILD_DIR (build directories),
XAB_JOBS (default 2), XAB_TEST_TIMEOUT (seconds per test, default 600).

Examples:
  1. scripts/test.sh
  2. scripts/test.sh --no-asan -- -L demo
  3. scripts/test.sh -- -R PrivateVm --repeat until-fail:3
EOF
}

parse_args() {
  while (($#)); do
    case $1 in
      --no-asan) RUN_ASAN=0 ;;
      --asan-only) RUN_PLAIN=0 ;;
      -h | --help) usage; exit 0 ;;
      --) shift; CTEST_ARGS=("$@"); break ;;
      *) usage >&2; exit 2 ;;
    esac
    shift
  done
}

# ---- steps and the summary ----
STEP_NAMES=() STEP_RESULTS=() FAILED=0

step() {  # name command...
  local name=$1; shift
  echo
  echo "==== test.sh: $name"
  local start=$SECONDS rc=0
  "$@" || rc=$?
  local took=$((SECONDS - start))
  STEP_NAMES+=("$name")
  if ((rc == 0)); then
    STEP_RESULTS+=("ok      ${took}s")
  else
    STEP_RESULTS+=("FAILED  ${took}s (exit $rc)")
    FAILED=1
  fi
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
  local gen=()
  [[ -f $dir/CMakeCache.txt ]] || gen=(-G Ninja)
  cmake -S "$ROOT" -B "$dir" "${gen[@]}" "$@"
}

run_ctest() {  # dir
  (cd "$1" && ctest --output-on-failure -j "$JOBS" --timeout "$TEST_TIMEOUT" \
    --no-tests=error "${CTEST_ARGS[@]}")
}

build_and_test() {  # label dir cmake-args...
  local label=$1 dir=$2; shift 2
  step "$label: configure" configure "$dir" "$@" || return
  step "$label: build" cmake --build "$dir" -j "$JOBS" || return
  step "$label: ctest" run_ctest "$dir"
}

main() {
  parse_args "$@"
  step "setup (packages)" "$ROOT/scripts/setup.sh" --no-build || { summary; exit 1; }
  if ((RUN_PLAIN)); then
    build_and_test "plain" "$TEST_DIR" -DXAB_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
  fi
  if ((RUN_ASAN)); then
    # Sanitizer reports must fail the test that triggered them, including
    # in PVM tasks spawned by pvmd (they inherit this environment).
    export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
    export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$ROOT/scripts/lsan-pvm.supp:print_suppressions=0}
    build_and_test "asan+ubsan" "$ASAN_DIR" -DXAB_WERROR=ON -DCMAKE_BUILD_TYPE=Debug \
      "-DXAB_SANITIZE=address,undefined"
  fi
  summary
  exit "$FAILED"
}

main "$@"
