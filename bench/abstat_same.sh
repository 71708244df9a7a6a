#!/bin/bash
# abstat_same.sh -- the same answers from two abstat builds: a change to the
# model's memory or speed must not change what any analysis says.
#
#   bench/abstat_same.sh OLD_ABSTAT NEW_ABSTAT [TRACE...]
#
# Runs both on each trace (default: every *.trace under tests/; name
# others, e.g. real runs' traces, after the two builds) as `--json`,
# `--why --json` and `--raw-time --json`, and compares their standard
# output and exit status.  Prints one line per difference and a count;
# exits 1 if any.
set -uo pipefail
[ $# -ge 2 ] || { sed -n '2,11p' "$0"; exit 2; }
OLD=$1 NEW=$2
shift 2
ROOT=$(dirname "$0")/..
TRACES=("$@")
if [ ${#TRACES[@]} -eq 0 ]; then
  mapfile -t TRACES < <(find "$ROOT/tests" -name '*.trace' | sort)
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/abstat-same.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
runs=0 differ=0
for f in "${TRACES[@]}"; do
  for opts in "--json" "--why --json" "--raw-time --json"; do
    # shellcheck disable=SC2086  # opts are words
    "$OLD" $opts "$f" > "$WORK/old" 2> /dev/null; a=$?
    # shellcheck disable=SC2086
    "$NEW" $opts "$f" > "$WORK/new" 2> /dev/null; b=$?
    runs=$((runs + 1))
    if [ $a -ne $b ] || ! cmp -s "$WORK/old" "$WORK/new"; then
      differ=$((differ + 1))
      echo "differs: abstat $opts $f (exit $a, $b)"
    fi
  done
done
echo "$runs runs on ${#TRACES[@]} traces, $differ differ"
[ $differ -eq 0 ]
