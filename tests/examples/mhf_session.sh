#!/usr/bin/env bash
# mhf_session.sh -- a scripted session with PVM's message handler example
# (mhf_server, mhf_tickle: pvm_addmhf, pvm_delmhf, pvmdisplaymhfinfo), run
# by pvm_examples_test.sh in the current directory (its bin directory).
#
# mhf_server puts itself in the mailbox with a context of its own; mhf_tickle
# reads a menu from its standard input.  The session: load string_catcher1
# in the server for the tickler's tag 77 in the server's context, send it
# a string through that handler, show the handlers, tell the server to
# leave PVM and rejoin (a second tid, the handler table kept), show them
# again, and tell the server to end (the tickler ends with it).  Each step waits for the server's
# output to say the step before is done, not for a time.  Prints the
# tickler's output, then the server's; exits with the tickler's status.
set -uo pipefail
srv=$(mktemp "${TMPDIR:-/tmp}/xab-mhf.XXXXXX")
trap 'rm -f "$srv"' EXIT
./mhf_server >"$srv" 2>&1 &
server=$!
# wait_for PATTERN COUNT: until the server's output has COUNT lines with PATTERN (at most 20 s)
wait_for() {
  for _ in $(seq 200); do
    (($(grep -c -- "$1" "$srv") >= $2)) && return 0
    sleep 0.1
  done
  echo "mhf_session: the server never said '$1' ($2 times)" >&2
  return 1
}
wait_for 'inserted server' 1 || { kill "$server"; exit 1; }
ctx=$(sed -n 's/.*with context \([0-9]*\)\..*/\1/p' "$srv" | head -1)
{
  printf '1\n77\n%s\n1\n' "$ctx"  # LMH: tag 77, the server's context, string_catcher1
  wait_for 'AFTER load' 1
  printf '4\n77\n%s\n1\nhello there\n' "$ctx"  # HIT it
  wait_for 'HIT:  ping target' 1
  printf '0\n'  # PMH
  wait_for 'PMH:' 1
  printf '3\n'  # ERJ: the server leaves PVM and rejoins; Enter once it is back
  wait_for 'just registered server' 1
  printf '\n0\n'  # PMH again, to the rejoined server
  wait_for 'PMH:' 2
  printf '9\n'  # SEAT: the server ends, and the tickler with it
} | ./mhf_tickle
rc=$?
wait "$server"
echo "== mhf_server"
cat "$srv"
exit "$rc"
