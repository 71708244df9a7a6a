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

# The same while the window stays open: a trace xabview refuses (a newer
# format version) is read on to its end, keeping nothing, so the writer is
# never blocked on a full pipe (30 MB: far more than a pipe holds).
refused() {
  printf '#xab-trace 99 abmon=t40001\n'
  head -c 30000000 /dev/zero | tr '\0' 'x'
  echo "${PIPESTATUS[*]}" >"$work/refused.status"  # "0 0", or 141: SIGPIPE
  echo >"$work/refused.done"
}
refused | QT_QPA_PLATFORM=offscreen timeout 60 "$xabview" - >/dev/null 2>&1 &  # a window, open until killed
viewer=$!
for ((k = 0; k < 150; k++)); do [[ -f $work/refused.done ]] && break; sleep 0.1; done
[[ -f $work/refused.done ]] || { echo "FAIL: a refused trace blocked its writer while the window was open"; failed=1; }
[[ $(cat "$work/refused.status" 2>/dev/null) == "0 0" ]] ||
  { echo "FAIL: the writer of a refused trace ended with '$(cat "$work/refused.status" 2>/dev/null)' (141: SIGPIPE)"; failed=1; }
kill "$viewer" 2>/dev/null
wait "$viewer" 2>/dev/null

((failed)) || echo "the trace kept every line after the viewer quit; a refused input never blocked its writer"
exit "$failed"
