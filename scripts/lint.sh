#!/usr/bin/env bash
# lint.sh -- check the C++ of every part against the one naming style
# (.clang-tidy at the root) with clang-tidy.
#
#   scripts/lint.sh [BUILD_DIR] [FILE...]
#
# BUILD_DIR (default build-test) must have been configured with
# -DCMAKE_EXPORT_COMPILE_COMMANDS=ON (this script turns it on and
# reconfigures if it is not).  Without FILEs, every .cpp of abmon, model, replay,
# traceformat, translators, tools and xabview.  Exit 0 when clean, 1 with
# the warnings listed, each at its own file and line.  The sources of one
# target are checked XAB_LINT_BATCH (default 48) at a time as one unit
# (scripts/lint_batches.py): the headers they share are parsed once a
# batch.  CI (scripts/test.sh) runs it beside the plain build's ctest.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$ROOT/build-test}
[[ $# -gt 0 ]] && shift
case ${BUILD} in -h | --help) sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
command -v clang-tidy >/dev/null || { echo "lint.sh: clang-tidy is missing (apt-get install clang-tidy)" >&2; exit 1; }
[[ -f $BUILD/CMakeCache.txt ]] || { echo "lint.sh: $BUILD is not a configured build" >&2; exit 1; }
[[ -f $BUILD/compile_commands.json ]] || cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "$BUILD" >/dev/null
files=("$@")
if ((${#files[@]} == 0)); then
  mapfile -t files < <(cd "$ROOT" && git ls-files '*.cpp' | grep -E '^(abmon|model|replay|traceformat|translators|tools|xabview)/')
fi
db=$(mktemp -d "${TMPDIR:-/tmp}/xab-lint.XXXXXX")
trap 'rm -rf "$db"' EXIT
# A batch of a target's sources at a time (scripts/lint_batches.py).
out=$(python3 "$ROOT/scripts/lint_batches.py" "$BUILD/compile_commands.json" "$ROOT" "$db" \
  "${XAB_JOBS:-2}" "${XAB_LINT_BATCH:-48}" "${files[@]}")
if [[ -n $out ]]; then
  echo "$out"
  echo "lint.sh: $(wc -l <<<"$out") naming problems in ${#files[@]} files" >&2
  exit 1
fi
echo "lint.sh: ${#files[@]} files follow the naming style"
