#!/usr/bin/env bash
# pvm-vm.sh -- start and stop a private PVM virtual machine.  Installed
# as xab-vm (scripts/CMakeLists.txt, xab-vm(1)).
#
# Every test and the demo run in a VM of their own, so they never touch
# anyone else's pvmd: the VM's state lives in one directory, and its
# PVM_VMID is derived from that directory and the starting pid.
#
#   pvm-vm.sh start [--owner PID] DIR [BINDIR...]
#                                     start a pvmd, write DIR/env; with
#                                     --owner, the VM is stopped when
#                                     process PID ends (the caller's $$)
#   pvm-vm.sh stop DIR                halt it, wait until pvmd is gone
#   pvm-vm.sh status DIR              exit 0 when it runs
#
# --owner: pvmd runs in a session of its own, so nothing that ends its
# starter ends it -- a test's trap does, but ctest's timeout SIGKILLs the
# test (no trap runs) and leaves its children alone.  A watchdog in a
# session of its own, holding none of the caller's descriptors, looks every
# second whether PID (the process that had that pid and start time) is
# still there; once it has gone, it stops the VM.  It leaves by itself once
# the VM has been stopped otherwise.  It guards the one pvmd it was started
# with: a VM started later in the same DIR (the next run of the same script)
# has another pvmd, which the watchdog of an ended owner leaves alone.
#
# Files in DIR:
#   hostfile    "* ep=BINDIR1:BINDIR2:/usr/bin" (pvm_spawn searches ep=;
#               /usr/bin holds the group server pvmgs)
#   tmp/        PVM_TMP: pvmd's socket, address file and log (pvml.*)
#   env         "export VAR=value" lines; `source DIR/env` to talk to the VM
#   pvmd.pid    the pid of the pvmd this script started (only it is killed)
#   pvmd.out    pvmd's stdout and stderr
#
# Tasks spawned by pvmd inherit pvmd's own environment (so PVM_VMID,
# PVM_TMP and PVM_ROOT reach them anyway; pvmd adds PVMSOCK, the socket the
# task connects to) plus the variables named in the spawning task's
# PVM_EXPORT.  PVM_EXPORT names the PVM_ variables anyway (harmless, and
# right if a task is started outside pvmd) and every XAB_ variable set when
# the VM starts.
set -euo pipefail

readonly START_WAIT_S=${XAB_VM_START_WAIT_S:-15}
readonly STOP_WAIT_S=${XAB_VM_STOP_WAIT_S:-10}
PROG=$(basename "${BASH_SOURCE[0]}")
readonly PROG
# The build writes xab's version here when it makes xab-vm; the source
# tree's script still says "@""PROJECT_VERSION@".
readonly VERSION="@PROJECT_VERSION@"
installed() { [[ $VERSION != @* ]]; }
SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly SELF_DIR

die() { echo "$PROG: $*" >&2; exit 1; }
say() { [[ -n ${XAB_VM_QUIET:-} ]] || echo "$PROG: $*" >&2; }

usage() {
  local bins=build/bin
  installed && bins=.
  cat <<EOF
Usage: $PROG start [--owner PID] DIR [BINDIR...]
       $PROG stop DIR
       $PROG status DIR
       $PROG --help | --version
Start, stop or query a private PVM virtual machine whose state lives in DIR.
start writes DIR/env; \`source DIR/env\` then makes pvm, abmon and PVM
programs talk to that VM.  BINDIRs (default: none) go first on the hostfile's
ep= path, where pvm_spawn looks for task binaries; then, for an installed
xab, the directory of xab's commands (xabdemo spawns its workers there);
/usr/bin (PVM's group server pvmgs) is always last.

  --owner PID   stop the VM once process PID has ended, however it ended
                (a script passes \$\$: its VM goes even when it is SIGKILLed)
  --help        this text
  --version     the version of xab it belongs to

Examples:
  1. $PROG start /tmp/vm $bins
  2. source /tmp/vm/env && echo conf | pvm
  3. $PROG stop /tmp/vm
  4. $PROG start --owner \$\$ /tmp/vm $bins   (in a script)
Environment: XAB_VM_START_WAIT_S (default 15), XAB_VM_STOP_WAIT_S (10),
XAB_VM_QUIET=1 silences progress messages.  See xab-vm(1).
EOF
}

# A pid counts as alive only while it is a running pvmd: a zombie (not yet
# reaped by init) or a recycled pid is gone as far as we are concerned.
pvmd_alive() {
  local pid=$1 state comm
  [[ -r /proc/$pid/stat ]] || return 1
  comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
  [[ $comm == pvmd* ]] || return 1
  state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || return 1
  [[ $state != Z && $state != X ]]
}

recorded_pid() { if [[ -s $1/pvmd.pid ]]; then cat "$1/pvmd.pid"; fi; }

# Sets the PVM environment of the VM in DIR in this shell.
load_env() {
  [[ -r $1/env ]] || die "no $1/env: was the VM started with '$PROG start $1'?"
  # shellcheck disable=SC1091
  source "$1/env"
}

console() { timeout 10 pvm </dev/stdin 2>&1; }

# Between the fork and the exec, the child is still the subshell: while
# its comm is not yet pvmd, it is starting, not dead.
starting_or_alive() {
  local pid=$1 state
  state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || return 1
  [[ $state != Z && $state != X ]] || return 1
  [[ $(cat "/proc/$pid/comm" 2>/dev/null) != pvmd* ]] && return 0
  pvmd_alive "$pid"
}

wait_until_up() {
  local dir=$1 pid=$2 addr i
  addr="$PVM_TMP/pvmd.$(id -u).$PVM_VMID"
  for ((i = 0; i < START_WAIT_S * 10; i++)); do
    starting_or_alive "$pid" || die "pvmd exited during startup; its output ($dir/pvmd.out):
$(cat "$dir/pvmd.out" 2>/dev/null)
log: $(cat "$PVM_TMP"/pvml.* 2>/dev/null)"
    # Ask the console only once pvmd has written its address file: a
    # console that finds no pvmd starts one of its own.  Its whole answer
    # is read before it is searched: `console | grep -q` under pipefail
    # fails whenever grep stops reading before the console has written
    # all (the console dies of SIGPIPE), and then never succeeds.
    if [[ -s $addr ]]; then
      local answer
      answer=$(echo conf | console) || true
      [[ $answer == *$'\n1 host'* || $answer == "1 host"* ]] && return 0
    fi
    sleep 0.1
  done
  return 1
}

# A process's start time (clock ticks since boot, /proc/PID/stat field 22):
# with the pid, it names the process even after the pid is reused.
start_time() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }  # the fields after the command name (which may hold spaces)
  # shellcheck disable=SC2086  # word splitting wanted: the fields
  set -- $stat
  [[ -n ${20:-} ]] && echo "${20}"
}

# The process PID started at SINCE still runs (a zombie has ended).
owner_alive() {
  local state
  [[ $(start_time "$1") == "$2" ]] || return 1
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ $state != Z && $state != X ]]
}

# pvm-vm.sh watch DIR PID SINCE PVMD: the watchdog of --owner (see the top).
cmd_watch() {
  local dir=$1 owner=$2 since=$3 pvmd=$4
  while owner_alive "$owner" "$since"; do
    guards "$dir" "$pvmd" || return 0  # stopped by its owner
    sleep 1
  done
  cmd_stop "$dir" "$pvmd"
}

# DIR's VM is still the one whose pvmd is PVMD, and it runs.
guards() { [[ $(recorded_pid "$1") == "$2" ]] && pvmd_alive "$2"; }

start_watchdog() {
  local dir=$1 owner=$2 pvmd=$3 since self
  since=$(start_time "$owner") || die "--owner $owner: no such process"
  self=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
  # None of the caller's descriptors: ctest waits for its test's output
  # pipes to close, and a caller reading our output would wait for us.
  (
    for fd in "/proc/$BASHPID/fd"/*; do
      fd=${fd##*/}
      if ((fd > 2)); then eval "exec $fd>&-" 2>/dev/null || true; fi
    done
    XAB_VM_QUIET=1 exec setsid bash "$self" watch "$dir" "$owner" "$since" "$pvmd" </dev/null >/dev/null 2>&1
  ) &
}

write_env() {
  local dir=$1 export_list=PVM_ROOT:PVM_VMID:PVM_TMP var
  [[ $(id -u) == 0 ]] && export_list+=:PVM_ALLOW_ROOT
  for var in $(compgen -e); do
    [[ $var == XAB_* && $var != XAB_VM_* ]] && export_list+=:$var
  done
  {
    echo "# written by $PROG start; source it to use the VM in $dir"
    printf 'export PVM_ROOT=%q\n' "$PVM_ROOT"
    [[ $(id -u) == 0 ]] && printf 'export PVM_ALLOW_ROOT=yes\n'
    printf 'export PVM_VMID=%q\n' "$PVM_VMID"
    printf 'export PVM_TMP=%q\n' "$PVM_TMP"
    printf 'export PVM_EXPORT=%q\n' "$export_list"
  } >"$dir/env.new"
  mv "$dir/env.new" "$dir/env"
}

cmd_start() {
  local owner=""
  if [[ ${1:-} == --owner ]]; then
    [[ $# -ge 3 && $2 =~ ^[0-9]+$ ]] || die "--owner needs a pid"
    owner=$2
    shift 2
    [[ -n $(start_time "$owner") ]] || die "--owner $owner: no such process"
  fi
  local dir=$1; shift
  local ep="" b
  for b in "$@"; do
    [[ -d $b ]] || die "binary dir $b does not exist"
    ep+="$(cd "$b" && pwd):"
  done
  if installed && [[ :$ep != *:$SELF_DIR:* ]]; then ep+=$SELF_DIR:; fi
  ep+=/usr/bin
  [[ $ep != *[[:space:]]* ]] || die "ep= path must not contain spaces: $ep"

  mkdir -p "$dir" || die "cannot create $dir"
  dir=$(cd "$dir" && pwd)
  local pid; pid=$(recorded_pid "$dir")
  if [[ -n $pid ]] && pvmd_alive "$pid"; then
    say "VM in $dir already runs (pvmd pid $pid)"
    return 0
  fi
  command -v pvmd >/dev/null || die "pvmd not found: install the 'pvm' package (scripts/setup.sh)"
  command -v pvm >/dev/null || die "pvm console not found: install the 'pvm' package"

  rm -rf "$dir/tmp" "$dir/env" "$dir/pvmd.pid"
  mkdir -m 700 "$dir/tmp"
  # pvmd's socket is PVM_TMP/pvmtmpNNNNNN.0; a unix socket path has 108 bytes.
  ((${#dir} < 80)) || die "DIR path too long for pvmd's socket (${#dir} > 79 chars): $dir"
  echo "* ep=$ep" >"$dir/hostfile"

  export PVM_ROOT=${PVM_ROOT:-/usr/lib/pvm3}
  export PVM_TMP=$dir/tmp
  PVM_VMID="xab$(printf '%s' "$dir" | cksum | cut -d' ' -f1)p$$"
  export PVM_VMID
  [[ $(id -u) == 0 ]] && export PVM_ALLOW_ROOT=yes
  write_env "$dir"

  # pvmd stays in the foreground; run it in a session of its own so a
  # Ctrl-C meant for the caller's terminal does not reach it, with no
  # inherited stdio (a caller reading our output would wait for pvmd).
  (cd "$dir" && exec setsid pvmd "$dir/hostfile" </dev/null >"$dir/pvmd.out" 2>&1) &
  pid=$!
  echo "$pid" >"$dir/pvmd.pid"
  if ! wait_until_up "$dir" "$pid"; then
    kill "$pid" 2>/dev/null || true
    die "pvmd (pid $pid) did not answer within ${START_WAIT_S}s; see $dir/pvmd.out and $PVM_TMP"
  fi
  [[ -n $owner ]] && start_watchdog "$dir" "$owner" "$pid"
  say "VM started in $dir: pvmd pid $pid, PVM_VMID=$PVM_VMID, ep=$ep${owner:+, stopped when pid $owner ends}"
}

# cmd_stop DIR [PVMD]: with PVMD, only if DIR's VM is still that pvmd's.
cmd_stop() {
  local dir=$1 only=${2:-}
  [[ -d $dir ]] || { say "no VM directory $dir: nothing to stop"; return 0; }
  local pid; pid=$(recorded_pid "$dir")
  if [[ -n $only && $pid != "$only" ]]; then
    say "VM in $dir is no longer pvmd $only's: left alone"
    return 0
  fi
  if [[ -z $pid ]] || ! pvmd_alive "$pid"; then
    say "VM in $dir is not running"
    rm -f "$dir/pvmd.pid"
    return 0
  fi
  load_env "$dir"
  # The console dies with pvmd; the subshell keeps bash's "Terminated" quiet.
  (echo halt | console) >/dev/null 2>&1 || true
  local i
  for ((i = 0; i < STOP_WAIT_S * 10; i++)); do
    pvmd_alive "$pid" || break
    sleep 0.1
  done
  if pvmd_alive "$pid"; then
    say "pvmd $pid ignored halt; sending SIGTERM"
    kill -TERM "$pid" 2>/dev/null || true
    sleep 1
    if pvmd_alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
    sleep 0.2
    pvmd_alive "$pid" && die "pvmd $pid is still alive"
  fi
  rm -f "$dir/pvmd.pid"
  say "VM in $dir stopped"
}

cmd_status() {
  local pid; pid=$(recorded_pid "$1")
  if [[ -n $pid ]] && pvmd_alive "$pid"; then
    echo "running (pvmd pid $pid)"; return 0
  fi
  echo "not running"; return 1
}

main() {
  case ${1:-} in
    -h | --help | help) usage; return 0 ;;
    --version) echo "$PROG (xab) $(installed && echo "$VERSION" || echo "source tree")"; return 0 ;;
    start) [[ $# -ge 2 ]] || { usage >&2; return 2; }; shift; cmd_start "$@" ;;
    stop) [[ $# -eq 2 ]] || { usage >&2; return 2; }; cmd_stop "$2" ;;
    status) [[ $# -eq 2 ]] || { usage >&2; return 2; }; cmd_status "$2" ;;
    watch) [[ $# -eq 5 ]] || { usage >&2; return 2; }; cmd_watch "$2" "$3" "$4" "$5" ;;
    *) usage >&2; return 2 ;;
  esac
}

main "$@"
