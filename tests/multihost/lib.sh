# shellcheck shell=bash
# What the multihost tests share: a VM of pseudo-hosts (scripts/pvm-hosts.sh)
# of the test's own, always taken down when the test ends (however it ends:
# the EXIT trap, and the fixture multihost_cleanup for a test CTest killed).
#
# A test is run as: TEST.sh SOURCE_DIR BUILD_DIR VM_DIR
set -uo pipefail
SRC=$1 BUILD=$2 VM=$3
HOSTS=$SRC/scripts/pvm-hosts.sh
BIN=$BUILD/bin
export XAB_HOSTS_QUIET=1 XAB_NFQDELAY=${XAB_NFQDELAY:-$BUILD/tools/nfqdelay/nfqdelay}
FAILED=0
# A program run on the VM that takes longer has hung (a task that died at
# start leaves its master waiting): the test fails instead of waiting for
# CTest's timeout.
export RUN_LIMIT=60

fail() { echo "FAIL: $*"; FAILED=1; }
ok() { ((FAILED)) || echo "ok: $*"; }
h() { "$HOSTS" --dir "$VM" "$@"; }

# vm_up N [up options]: skips the test (77) where namespaces cannot be made.
vm_up() {
  local rc=0
  "$HOSTS" check || rc=$?
  if ((rc == 77)); then echo "SKIP: this machine cannot make pseudo-hosts (see above)"; exit 77; fi
  ((rc == 0)) || { echo "FAIL: pvm-hosts.sh check: status $rc"; exit 1; }
  h down >/dev/null 2>&1
  trap 'h down' EXIT
  trap 'exit 1' INT TERM
  h up "$@" --bin "$BIN" || { echo "FAIL: pvm-hosts.sh up $*"; exit 1; }
  cd "$VM" || exit 1
}

finish() {
  ((FAILED)) && echo "FAILED" || echo "PASSED"
  exit "$FAILED"
}

# json FILE PYTHON-EXPRESSION: the expression over d, abstat's JSON document.
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# wait_for SECONDS COMMAND...: until COMMAND succeeds; status 1 if it never did.
wait_for() {
  local s=$1 i; shift
  for ((i = 0; i < s * 10; i++)); do "$@" && return 0; sleep 0.1; done
  return 1
}

# alive PID: a process that runs (a zombie has ended).
alive() { [[ -r /proc/$1/stat ]] && [[ $(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) != [ZX] ]]; }

# has TEXT-PATTERN COMMAND...: COMMAND's output has a line matching the
# pattern (the output is read to its end: no SIGPIPE under pipefail).
has() { local re=$1; shift; grep -q -- "$re" <<<"$("$@" 2>&1)"; }

# The host a tid belongs to, from the tid alone: PVM puts the host's
# number (1 for the master's host) in bits 18..29.
host_of_tid() { echo "node$((((16#${1#t}) >> 18 & 0xfff) - 1))"; }
# The lines of FILE that match PATTERN (grep's), 0 while FILE is not there
# yet (grep -c prints nothing then, and (( )) would see a syntax error).
count_lines() { if [[ -f $2 ]]; then grep -c -- "$1" "$2" || :; else echo 0; fi; }

# The events a host's relay counted in its relay.batch and relay.stop
# records of FILE; the task records of the tasks on a host (HOSTNUM: PVM's
# number of the host, bits 18..29 of a tid; the host of the last relay.start
# for nodeK by relay_host FILE nodeK).
relay_events() { awk -v h="host=$2" '$4 ~ /^relay\.(batch|stop)$/ && $5 == h { for (i = 6; i <= NF; i++) if ($i ~ /^events=/) n += substr($i, 8) } END { print n + 0 }' "$1"; }
AWK_HOST='function host(t,  i, v) { v = 0; for (i = 2; i <= length(t); i++) v = v * 16 + index("0123456789abcdef", substr(t, i, 1)) - 1; return int(v / 262144) % 4096 }'
relay_host() { awk -v h="host=$2" "$AWK_HOST"' $4 == "relay.start" && $5 == h { n = host($3) } END { print n + 0 }' "$1"; }
# (a relay's own records -- relay.*, its clock exchanges with abmon -- are no task's)
task_records() { awk -v n="$2" "$AWK_HOST"' $4 ~ /^relay\./ { relay[$3] = 1 } $3 ~ /^t/ && !($3 in relay) && $4 !~ /^(relay|host|abmon)\.|^(task\.exit|sample)$/ && host($3) == n' "$1" | wc -l; }

# FILE has N relay.start records or more (FILE N).
relay_starts() { (($(count_lines ' relay.start ' "$1") >= $2)); }
# Every event the relay of nodeK counted is a record of FILE's (FILE nodeK),
# and there are some.
relay_all_came() {
  local n; n=$(task_records "$1" "$(relay_host "$1" "$2")")
  ((n > 0)) && [[ $(relay_events "$1" "$2") == "$n" ]]
}
# The tasks of host HOSTNUM that have records in FILE and no END record
# (task.exit, exit), a line each (FILE HOSTNUM END).
unended() {
  awk -v n="$2" -v end="$3" "$AWK_HOST"' $4 ~ /^relay\./ { relay[$3] = 1 }
    $3 ~ /^t/ && !($3 in relay) && host($3) == n { if ($4 == end) ended[$3] = 1; else if ($4 != "task.exit") seen[$3] = 1 }
    END { for (t in seen) if (!(t in ended)) print "no " end " for " t }' "$1"
}

# demo.trace of a 3-host run: a relay per other host, its events all came.
relay_checks() {
  local k n
  for k in 1 2; do
    grep -q " relay.start host=node$k\$" demo.trace || fail "no relay.start on node$k"
    grep -q " relay.stop host=node$k " demo.trace || fail "no relay.stop on node$k"
    n=$(task_records demo.trace "$(relay_host demo.trace "node$k")")
    if ((n == 0)) || [[ $(relay_events demo.trace "node$k") != "$n" ]]; then
      fail "node$k: $n task records, its relay counted $(relay_events demo.trace "node$k")"
    fi
  done
  # abstat's per-host figures say the same.
  [[ $(json demo.json '" ".join("%s:%s:%s" % (h["host"], h["collectedBy"], int(h["relayed"] == h["events"] - h["tasks"])) for h in sorted(d["hosts"], key=lambda h: h["host"]))') == \
     "node0:abmon:0 node1:relay:1 node2:relay:1" ]] || fail "abstat's hosts: $(json demo.json 'd["hosts"]')"
  ok "a relay on node1 and node2; every record of their tasks came through it"
}
