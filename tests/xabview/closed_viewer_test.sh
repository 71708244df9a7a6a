#!/usr/bin/env bash
# closed_viewer_test.sh XABVIEW TRACE
# `abmon | tee evfile | xabview`: a viewer that goes away while the program
# still runs must not cost the trace.  The writer stands in for abmon: a
# trace, then, after the viewer has quit (--timeout 1), its last line.
# Before xabview read its input to the end, tee died of SIGPIPE at that
# line and evfile ended without it.
set -uo pipefail
xabview=$1 trace=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
writer() {
  cat "$trace"
  sleep 3
  echo "# the last line, written after the viewer quit"
}
writer | tee "$work/evfile" | QT_QPA_PLATFORM=offscreen "$xabview" --timeout 1 --play-to-end - 2>"$work/err"
status=("${PIPESTATUS[@]}")
failed=0
[[ ${status[0]} == 0 ]] || { echo "FAIL: the writer exited ${status[0]} (141: SIGPIPE)"; failed=1; }
[[ ${status[1]} == 0 ]] || { echo "FAIL: tee exited ${status[1]} (141: SIGPIPE)"; failed=1; }
[[ $(tail -n 1 "$work/evfile") == "# the last line, written after the viewer quit" ]] ||
  { echo "FAIL: evfile lost its last line"; failed=1; }
grep -q 'reading standard input to its end' "$work/err" || { echo "FAIL: xabview did not say it reads on"; failed=1; }
((failed)) || echo "the trace kept every line after the viewer quit"
exit "$failed"
