#!/usr/bin/env bash
# test_names_check.sh SOURCE_DIR
# A Catch test whose name CTest or Catch cannot pass back whole never runs,
# and its CTest entry passes: a ';' splits the name in CTest's list (Catch
# then matches nothing), and a leading '-' makes Catch read an option.
# Fails, naming them, when any test name has one.
set -uo pipefail
bad=$(grep -rnE --include='*.cpp' 'TEST_CASE\("(-|[^"]*;)' "$1/tests")
if [[ -n $bad ]]; then
  echo "test names that would never run (';' inside, or '-' first):"
  echo "$bad"
  exit 1
fi
echo "every TEST_CASE name reaches Catch whole"
