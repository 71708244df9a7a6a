#!/usr/bin/env bash
# lint_test.sh ROOT -- scripts/lint.sh lints a target's sources a batch at
# a time and still reports every naming problem at its own file and line:
# in the first source of a batch, in a later one, in a header they include,
# in two sources that cannot be one unit (the same name in an anonymous
# namespace: the batch is split), and for one source named alone.
#
# A tree of its own under /tmp (lint.sh, its worker, the style, a part
# `model` of three sources and a header, a build directory with their
# compile commands), a git repository as lint.sh wants.
set -uo pipefail
root=$1
command -v clang-tidy >/dev/null || { echo "SKIP: no clang-tidy"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/xab-lint-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
tree=$work/tree
mkdir -p "$tree/scripts" "$tree/model/src" "$tree/model/include" "$tree/build"
cp "$root/scripts/lint.sh" "$root/scripts/lint_batches.py" "$tree/scripts/"
cp "$root/.clang-tidy" "$tree/"
failed=0
fail() { echo "FAIL: $*"; failed=1; }

cat >"$tree/model/include/shapes.h" <<'EOF'
#pragma once
namespace xab::model {
struct Shape {
  int sides = 0;
};
int countSides(const Shape& shape);
}  // namespace xab::model
EOF
for name in area border corner; do
  cat >"$tree/model/src/$name.cpp" <<EOF
#include "shapes.h"
namespace xab::model {
namespace {
int twice(int value) { return 2 * value; }
}  // namespace
int ${name}Sides(const Shape& shape) {
  int result = twice(shape.sides);
  return result;
}
}  // namespace xab::model
EOF
done
{
  echo '['
  sep=""
  for name in area border corner; do
    printf '%s{"directory": "%s", "file": "%s", "command": "/usr/bin/c++ -I%s -std=c++20 -o %s.o -c %s"}\n' \
      "$sep" "$tree/build" "$tree/model/src/$name.cpp" "$tree/model/include" "$name" "$tree/model/src/$name.cpp"
    sep=","
  done
  echo ']'
} >"$tree/build/compile_commands.json"
touch "$tree/build/CMakeCache.txt"
git -C "$tree" init -q && git -C "$tree" add -A
lint() { (cd "$tree" && scripts/lint.sh "$tree/build" "$@" 2>&1); }

# Two sources define twice() in an anonymous namespace: one unit would not
# compile, so the batch is split; clean, the tree passes.
out=$(lint) || fail "a clean tree: $out"
[[ $out == *"3 files follow the naming style"* ]] || fail "a clean tree says: $out"

# A problem in the second and third sources of the batch and in the header.
sed -i 's/int result = /int Bad_Result = /; s/return result;/return Bad_Result;/' "$tree/model/src/border.cpp"
sed -i 's/^int twice(int value)/int Twice_It(int value)/; s/twice(shape.sides)/Twice_It(shape.sides)/' "$tree/model/src/corner.cpp"
sed -i 's/int countSides(/int Count_Sides(/' "$tree/model/include/shapes.h"
out=$(lint) && fail "problems not found: $out"
want=("model/src/border.cpp:7:7: error: invalid case style for local variable 'Bad_Result'"
      "model/src/corner.cpp:4:5: error: invalid case style for function 'Twice_It'"
      "model/include/shapes.h:6:5: error: invalid case style for function 'Count_Sides'")
for w in "${want[@]}"; do
  [[ $out == *"$tree/$w"* ]] || fail "not reported: $w; got: $out"
done
[[ $out == *"redefinition"* ]] && fail "the batch's own error reported: $out"
[[ $out == *"3 naming problems in 3 files"* ]] || fail "count: $out"

# A problem in the first source; one source named alone.
sed -i 's/^int areaSides/int Area_Sides/' "$tree/model/src/area.cpp"
out=$(lint) && fail "problems not found: $out"
[[ $out == *"$tree/model/src/area.cpp:6:5: error: invalid case style for function 'Area_Sides'"* ]] ||
  fail "not reported: area.cpp's Area_Sides; got: $out"
out=$(lint model/src/border.cpp) && fail "border.cpp alone: not found: $out"
[[ $out == *"$tree/model/src/border.cpp:7:7:"* && $out == *"$tree/model/include/shapes.h:6:5:"* &&
   $out != *"area.cpp"* && $out == *"2 naming problems in 1 files"* ]] || fail "border.cpp alone: $out"

((failed)) || echo "lint_test: all passed"
exit "$failed"
