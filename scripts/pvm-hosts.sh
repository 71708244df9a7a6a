#!/usr/bin/env bash
# pvm-hosts.sh -- a PVM virtual machine of several pseudo-hosts on one Linux
# machine, for tests, demos and benchmarks.  Run with --help for the manual.
#
# Each pseudo-host nodeK is a network namespace (10.77.0.(10+K)/24 on eth0,
# a veth whose other end is on a bridge in a namespace of its own), a UTS
# namespace (hostname nodeK) and a mount namespace in which a private hosts
# file is bind-mounted over /etc/hosts.  A holder process (sleep) keeps the
# UTS and mount namespaces; `nsenter -t HOLDER -n -u -m` enters the host.
# The master pvmd runs on node0 and starts the others the normal PVM way:
# through PVM_RSH, which points at DIR/rsh, which runs `pvm-hosts.sh rsh`.
#
# Nothing is created in the machine's own namespace (no interface, route or
# address) and the real /etc/hosts is never touched.  `down`, and any
# failure of `up`, remove every namespace this VM made after killing, by
# pid, every process in them (`ip netns pids`): all of them were started
# by this script (they could only enter through it).
set -euo pipefail

readonly PROG=pvm-hosts.sh
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly SELF=$HERE/${BASH_SOURCE[0]##*/}
ROOT=$(cd "$HERE/.." && pwd)
readonly ROOT
readonly SUBNET=10.77.0
readonly MAX_HOSTS=64
readonly START_WAIT_S=${XAB_HOSTS_START_WAIT_S:-30}
readonly EXIT_UNSUPPORTED=77 # the kernel or the user may not make namespaces
readonly HOST_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

DIR=${XAB_HOSTS_DIR:-/tmp/xab-hosts}
BINS=()
SKEWS=()

die() { echo "$PROG: $*" >&2; exit 1; }
say() { [[ -n ${XAB_HOSTS_QUIET:-} ]] || echo "$PROG: $*" >&2; }

usage() {
  cat <<'EOF'
Usage: pvm-hosts.sh [--dir DIR] COMMAND [ARGS]

A PVM virtual machine of N pseudo-hosts node0..nodeN-1 on this Linux
machine: one network, UTS and mount namespace per host, joined by a bridge,
each with its own address (10.77.0.10+K), hostname and /etc/hosts.  The
master pvmd runs on node0 and starts the others through PVM_RSH, as on a
real network.  Needs root (namespaces, nftables).

Commands:
  up N [--bin BINDIR]... [--skew HOST=SPEC]...
                   make N hosts (1..64) and start the VM on them; BINDIRs go
                   first on the ep= path (absolute; /usr/bin, which holds
                   pvmgs, is last), the working directory of every pvmd is DIR
  run HOST CMD...  run CMD on HOST, in the current directory, with the
                   caller's environment and HOST's PVM variables (PVM_TMP,
                   PVM_VMID, ...); its exit status is CMD's
  add HOST         make HOST (nodeK) if needed and add it to the VM from
                   node0's console (again after kill-pvmd: a fresh pvmd)
  kill-pvmd HOST   SIGKILL HOST's pvmd, as if the host crashed; the master
                   pvmd notices only after its retries (about 3 minutes)
  crash HOST       SIGKILL every process on HOST (its pvmd first, then its
                   tasks, a relay...): the host's processes die together
  block-tcp HOST on|off
                   drop every TCP packet to and from HOST on the bridge (a
                   firewall that lets PVM's UDP through), or stop dropping
  delete HOST      delete HOST from the VM from node0's console (`delete`);
                   while a killed pvmd is not yet noticed, node0's console
                   hangs, and delete (and add) fail after 10 s
  loss HOST PCT [both|to|from]
                   drop PCT % (0..100) of the packets to and from HOST, on
                   the bridge (nftables `numgen random mod 100 < PCT drop`);
                   `to`: only those HOST receives, `from`: only those it
                   sends (a link that fails one way)
  delay HOST MS    hold every packet HOST receives for MS ms (an iptables
                   NFQUEUE rule and nfqdelay, in HOST's namespace; 0: none)
  skew HOST SPEC   HOST's pvmd and tasks started from now on (add, run) see
                   a clock faked by libfaketime: FAKETIME=SPEC, e.g. "+2h",
                   "-30s" or "+0 x1.0001" (a rate); "off" removes it; for
                   node0, whose pvmd is the master, give `up --skew`.  One
                   clock for the host: its processes share libfaketime's
                   start (FAKETIME_SHARED), so a rate gives them one offset
  status           the hosts, their pvmd, faults, and the VM's `conf`
  pids             the process ids in the VM's namespaces, one a line:
                   its processes only, where several VMs run side by side
  down             halt the VM, kill every process in its namespaces (by pid),
                   remove the namespaces; safe to repeat
  check            exit 0 if namespaces can be made here, 77 (with the
                   reason) if not: tests skip then
  rsh HOST [-l USER] [-n] COMMAND...
                   what pvmd runs as PVM_RSH (through DIR/rsh): COMMAND by
                   sh -c on HOST with HOST's environment only

HOST is nodeK or K.  Options:
  --dir DIR        the VM's state (default $XAB_HOSTS_DIR or /tmp/xab-hosts;
                   short: pvmd's socket path must fit): hostfile, hosts,
                   rsh, rsh.log, node0/pvmd.out, nodeK/tmp (PVM_TMP, fresh
                   at every pvmd start; pvmd's log pvml.*); one VM per DIR
  --bin BINDIR     (up) a directory of task binaries for the ep= path
  --skew HOST=SPEC (up) as `skew HOST SPEC`, before the pvmds start
  -h, --help       this text

Examples:
  1. scripts/pvm-hosts.sh --dir /tmp/h3 up 3 --bin build/bin
  2. scripts/pvm-hosts.sh --dir /tmp/h3 run node0 build/bin/abmon -o /tmp/h3/demo.trace -- build/bin/xabdemo -n 6
  3. scripts/pvm-hosts.sh --dir /tmp/h3 loss node2 10
  4. scripts/pvm-hosts.sh --dir /tmp/h3 run node1 sh -c 'hostname; echo conf | pvm'
  5. scripts/pvm-hosts.sh --dir /tmp/h3 down
  6. scripts/pvm-hosts.sh --dir /tmp/h8 up 8 --bin build/bin --skew node7=+2h

Exit status: 0 done; 1 failed or bad arguments (after a failed `up` nothing
it made is left); 2 unknown command; 77 namespaces cannot be made here
(`check`, `up`); `run`: the command's.
Environment: XAB_HOSTS_DIR, XAB_HOSTS_START_WAIT_S (30), XAB_HOSTS_QUIET=1,
XAB_NFQDELAY (the nfqdelay binary; default: build*/tools/nfqdelay/).
See docs/multihost.md.
EOF
}

# ---------------------------------------------------------------- naming

# Every namespace of the VM in DIR begins with this prefix, derived from
# DIR, so `down` finds them even if DIR's files are gone.
ns_prefix() { printf 'xab%08x' "$(printf '%s' "$DIR" | cksum | cut -d' ' -f1)"; }
bridge_ns() { echo "$(ns_prefix)-br"; }
host_ns() { echo "$(ns_prefix)-node$1"; }
host_dir() { echo "$DIR/node$1"; }

# HOST (nodeK or K) -> K
host_index() {
  local h=${1#node}
  if ! [[ $h =~ ^[0-9]+$ ]] || ((10#$h >= MAX_HOSTS)); then die "bad host '$1': nodeK or K, K < $MAX_HOSTS"; fi
  echo $((10#$h))
}

our_namespaces() { ip netns list 2>/dev/null | awk -v p="$(ns_prefix)-" 'index($1, p) == 1 { print $1 }'; }
ns_exists() { [[ -e /run/netns/$1 ]]; }
holder_pid() { cat "$(host_dir "$1")/holder.pid" 2>/dev/null; }
hosts_made() {
  local d
  for d in "$DIR"/node*/holder.pid; do
    if [[ -e $d ]]; then d=${d%/holder.pid}; echo "${d##*/node}"; fi
  done | sort -n
}

# ---------------------------------------------------------------- checks

cmd_check() {
  local why=""
  if [[ $(id -u) != 0 ]]; then
    why="not root (network namespaces, veths and nftables need root)"
  else
    local t missing=()
    for t in ip nsenter unshare nft pvmd pvm; do command -v "$t" >/dev/null || missing+=("$t"); done
    ((${#missing[@]} == 0)) || die "missing: ${missing[*]} (scripts/setup.sh installs them)"
    local probe; probe="xabprobe$$"
    if ! ip netns add "$probe" 2>/dev/null; then
      why="the kernel refuses network namespaces (ip netns add failed)"
    else
      if ! ip -n "$probe" link add vp0 type veth peer name vp1 2>/dev/null; then
        why="the kernel refuses veth pairs"
      elif ! nsenter --net="/run/netns/$probe" unshare --uts --mount true 2>/dev/null; then
        why="the kernel refuses UTS or mount namespaces"
      fi
      ip netns del "$probe" 2>/dev/null || true
    fi
  fi
  if [[ -n $why ]]; then
    echo "$PROG: cannot make pseudo-hosts here: $why" >&2
    return $EXIT_UNSUPPORTED
  fi
}

# ---------------------------------------------------------------- environment

faketime_lib() {
  local f
  for f in /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1; do
    [[ -e $f ]] && { echo "$f"; return 0; }
  done
  die "libfaketime not found: install the 'faketime' package (scripts/setup.sh)"
}

# The variables that make host K's pvmd and tasks belong to this VM, as
# NAME=VALUE words for env(1).  PVM_TMP is the host's own and never exported
# to tasks on other hosts; neither is the clock skew.
host_vars() {
  local k=$1 d; d=$(host_dir "$k")
  local vars=("PVM_ROOT=$PVM_ROOT" "PVM_TMP=$d/tmp" "PVM_VMID=$(cat "$DIR/vmid")"
              "PVM_RSH=$DIR/rsh" "PVM_EXPORT=${2:-PVM_ROOT:PVM_VMID}")
  [[ $(id -u) == 0 ]] && vars+=(PVM_ALLOW_ROOT=yes)
  local pass=() asan=${ASAN_OPTIONS:-}
  [[ -s $DIR/passenv ]] && mapfile -t pass <"$DIR/passenv"
  vars+=("${pass[@]}")
  if [[ -s $d/skew ]]; then
    local p; for p in "${pass[@]}"; do [[ $p == ASAN_OPTIONS=* ]] && asan=${p#*=}; done
    # An ASan-built task refuses a preloaded library before its runtime.
    [[ -s $d/skew.shared ]] && vars+=("FAKETIME_SHARED=$(cat "$d/skew.shared")")
    vars+=("LD_PRELOAD=$(faketime_lib)" "FAKETIME=$(cat "$d/skew")" FAKETIME_DONT_FAKE_MONOTONIC=1
           "ASAN_OPTIONS=${asan:+$asan:}verify_asan_link_order=0")
  fi
  printf '%s\n' "${vars[@]}"
}

# enter K WD: ENTER becomes the command prefix that runs a command inside
# host K's namespaces, in WD.  nsenter execs the command (no fork), so
# `"${ENTER[@]}" CMD &` gives CMD's own pid in $!.
ENTER=()
enter() {
  local pid; pid=$(holder_pid "$1") || die "node$1 does not exist (no holder): 'up' or 'add' it first"
  ENTER=(nsenter -t "$pid" -n -u -m --wd="$2" --)
}

# in_host K WD CMD...: run CMD inside host K's namespaces, in WD.
in_host() {
  enter "$1" "$2"; shift 2
  "${ENTER[@]}" "$@"
}

# console COMMAND-TEXT [SECONDS]: PVM's console on node0, the master's host
# (it hangs while a pvmd is dead and PVM has not noticed yet: a time limit).
console() {
  local vars; mapfile -t vars < <(host_vars 0)
  printf '%s\n' "$1" | in_host 0 "$DIR" env -i PATH="$HOST_PATH" HOME="${HOME:-/}" "${vars[@]}" timeout "${2:-10}" pvm 2>&1
}

vm_hosts_count() { console conf | sed -n 's/^\([0-9][0-9]*\) hosts\{0,1\},.*/\1/p' | head -1; }

# ---------------------------------------------------------------- hosts

make_bridge() {
  local br; br=$(bridge_ns)
  ip netns add "$br"
  ip -n "$br" link add br0 type bridge
  ip -n "$br" link set br0 up
}

# make_host K: the namespaces of nodeK, its veth and address, its holder.
make_host() {
  local k=$1 ns br d name=node$1
  ns=$(host_ns "$k") br=$(bridge_ns) d=$(host_dir "$k")
  ((k + 10 < 255)) || die "no address for node$k"
  mkdir -p "$d"
  rm -f "$d/holder.pid"
  ip netns add "$ns"
  ip -n "$br" link add "vh$k" type veth peer name eth0 netns "$ns"
  ip -n "$br" link set "vh$k" master br0 up
  ip -n "$ns" link set lo up
  ip -n "$ns" addr add "$SUBNET.$((10 + k))/24" dev eth0
  ip -n "$ns" link set eth0 up
  grep -q " $name\$" "$DIR/hosts" || echo "$SUBNET.$((10 + k)) $name" >>"$DIR/hosts"
  # The holder: its shell sets the hostname and binds the hosts file in
  # the new UTS and mount namespaces (private propagation: nothing leaks
  # out), writes its pid and becomes `sleep infinity`.
  # shellcheck disable=SC2016  # expanded by the holder's shell
  setsid nsenter --net="/run/netns/$ns" -- unshare --uts --mount --propagation private -- \
    sh -c 'echo "$1" >/proc/sys/kernel/hostname && mount --bind "$2" /etc/hosts &&
           echo $$ >"$3.new" && mv "$3.new" "$3" && exec sleep infinity' \
    holder "$name" "$DIR/hosts" "$d/holder.pid" </dev/null >/dev/null 2>"$d/holder.err" &
  local i
  for ((i = 0; i < 100; i++)); do
    [[ -s $d/holder.pid ]] && return 0
    sleep 0.05
  done
  die "node$k: its holder did not start: $(cat "$d/holder.err")"
}

write_hostfile() {
  local n=$1 k ep="" b
  for b in "${BINS[@]}"; do ep+="$b:"; done
  {
    echo "* ep=${ep}/usr/bin wd=$DIR"
    for ((k = 0; k < n; k++)); do echo "node$k"; done
  } >"$DIR/hostfile"
}

# DIR/rsh: PVM_RSH.  pvmd runs it as `rsh HOST [-l USER] [-n] COMMAND...`.
write_rsh() {
  printf '#!/bin/sh\n# written by %s up: PVM_RSH of the VM in %s\nexec %q --dir %q rsh "$@"\n' \
    "$PROG" "$DIR" "$SELF" "$DIR" >"$DIR/rsh"
  chmod +x "$DIR/rsh"
}

# A fresh PVM_TMP for the pvmd about to start on host K: a stale address
# file or socket of an earlier pvmd there would mislead its tasks.
fresh_tmp() {
  local d; d=$(host_dir "$1")
  rm -rf "$d/tmp"
  mkdir -m 700 "$d/tmp"
}

cmd_rsh() {
  (($# >= 2)) || die "rsh: usage: rsh HOST [-l USER] [-n] COMMAND..."
  local k; k=$(host_index "$1"); shift
  while (($#)); do
    case $1 in
      -l) shift 2 ;;
      -n) exec </dev/null; shift ;;
      *) break ;;
    esac
  done
  (($#)) || die "rsh: no command"
  fresh_tmp "$k"
  local vars; mapfile -t vars < <(host_vars "$k")
  echo "$(date -u +%FT%T) rsh node$k: $*" >>"$DIR/rsh.log"
  # rsh hands its words to the remote shell as one command line.
  enter "$k" "$DIR"
  exec "${ENTER[@]}" env -i PATH="$HOST_PATH" HOME="${HOME:-/}" "${vars[@]}" sh -c "$*"
}

start_master() {
  fresh_tmp 0
  local vars; mapfile -t vars < <(host_vars 0)
  # pvmd stays in the foreground, in a session of its own, without the
  # caller's stdio (a caller reading our output would wait for it).
  enter 0 "$DIR"
  "${ENTER[@]}" env -i PATH="$HOST_PATH" HOME="${HOME:-/}" "${vars[@]}" \
    setsid pvmd "$DIR/hostfile" </dev/null >"$DIR/node0/pvmd.out" 2>&1 &
}

wait_for_hosts() {
  local want=$1 i got=""
  for ((i = 0; i < START_WAIT_S * 10; i++)); do
    if [[ -s $(host_dir 0)/tmp/pvmd.$(id -u).$(cat "$DIR/vmid") ]]; then
      got=$(vm_hosts_count)
      [[ $got == "$want" ]] && return 0
    fi
    sleep 0.1
  done
  die "the VM has ${got:-no} host(s), not $want, after ${START_WAIT_S}s: pvmd said:
$(cat "$DIR/node0/pvmd.out" 2>/dev/null)
$(tail -5 "$DIR"/node*/tmp/pvml.* 2>/dev/null)"
}

# ---------------------------------------------------------------- up / down

UP_DONE=0
on_up_exit() {
  local rc=$?
  ((UP_DONE)) && return
  echo "$PROG: up failed; removing what it made" >&2
  cmd_down >/dev/null 2>&1 || true
  exit $((rc ? rc : 1))
}

parse_up_args() {
  while (($#)); do
    case $1 in
      --bin) (($# >= 2)) || die "--bin needs a directory"
        [[ -d $2 ]] || die "--bin $2: no such directory"
        BINS+=("$(cd "$2" && pwd)"); shift ;;
      --skew) [[ ${2:-} == *=* ]] || die "--skew needs HOST=SPEC"; SKEWS+=("$2"); shift ;;
      --dir) (($# >= 2)) || die "--dir needs a directory"; set_dir "$2"; shift ;;
      *) die "up: unknown argument '$1'" ;;
    esac
    shift
  done
}

cmd_up() {
  if ! [[ ${1:-} =~ ^[0-9]+$ ]] || ((10#$1 < 1 || 10#$1 > MAX_HOSTS)); then die "up: N must be 1..$MAX_HOSTS"; fi
  local n=$((10#$1)); shift
  parse_up_args "$@"
  local b; for b in "${BINS[@]}"; do [[ $b != *[[:space:]:]* ]] || die "--bin $b: no spaces or colons"; done
  cmd_check || exit $?
  if [[ -n $(our_namespaces) || -e $DIR/vmid ]]; then
    die "a VM of $DIR is up (or was not taken down): '$PROG --dir $DIR down' first"
  fi
  mkdir -p "$DIR"
  trap on_up_exit EXIT
  local t0=$SECONDS
  rm -rf "$DIR"/node* "$DIR/rsh.log"
  printf '127.0.0.1 localhost\n' >"$DIR/hosts"
  echo "$(ns_prefix)p$$" >"$DIR/vmid"
  # pvmd starts the other hosts' pvmds with their own environment only, as
  # rsh would; the sanitizers' settings of a sanitizer build reach them all.
  local v
  for v in ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS TSAN_OPTIONS; do
    if [[ -n ${!v:-} ]]; then printf '%s=%s\n' "$v" "${!v}"; fi
  done >"$DIR/passenv"
  write_hostfile "$n"
  write_rsh
  make_bridge
  local k s
  for ((k = 0; k < n; k++)); do make_host "$k"; done
  for s in "${SKEWS[@]}"; do cmd_skew "${s%%=*}" "${s#*=}"; done
  start_master
  wait_for_hosts "$n"
  UP_DONE=1
  trap - EXIT
  say "$n hosts up in $((SECONDS - t0)) s: node0..node$((n - 1)) ($SUBNET.10..), VM in $DIR"
  say "run a command on a host: $PROG --dir $DIR run node0 CMD..."
}

# Our own process and its ancestors are never killed (a `run` may call down).
protected_pids() {
  local p=$$
  while [[ -n $p && $p != 0 && $p != 1 ]]; do
    echo "$p"
    p=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null) || break
  done
}

# kill_in_ns NS: every process in network namespace NS, by pid: SIGTERM,
# then SIGKILL whatever is left after 3 s.
kill_in_ns() {
  local ns=$1 sig pids protected i
  protected=" $(protected_pids | tr '\n' ' ') "
  for sig in TERM KILL; do
    for ((i = 0; i < 30; i++)); do
      pids=()
      local p
      for p in $(ip netns pids "$ns" 2>/dev/null); do [[ $protected == *" $p "* ]] || pids+=("$p"); done
      ((${#pids[@]})) || return 0
      ((i == 0)) && kill "-$sig" "${pids[@]}" 2>/dev/null
      sleep 0.1
    done
  done
  say "processes still in $ns: ${pids[*]}"
}

cmd_down() {
  local namespaces ns
  namespaces=$(our_namespaces)
  if [[ -n $namespaces && -s $DIR/vmid && -n $(holder_pid 0) ]] && kill -0 "$(holder_pid 0)" 2>/dev/null; then
    # pvmd, told to halt, ends its tasks and the other pvmds itself.
    console halt 3 >/dev/null 2>&1 || true
  fi
  for ns in $namespaces; do kill_in_ns "$ns"; done
  local d; for d in "$DIR"/node*; do [[ -d $d ]] && stop_host_clock "$d"; done
  for ns in $namespaces; do ip netns del "$ns" 2>/dev/null || say "cannot delete namespace $ns"; done
  rm -rf "$DIR"/node*/tmp "$DIR/vmid" "$DIR"/node*/holder.pid
  [[ -z $(our_namespaces) ]] || die "namespaces left: $(our_namespaces | tr '\n' ' ')"
  say "VM in $DIR is down${namespaces:+ ($(wc -w <<<"$namespaces") namespaces removed)}"
}

# ---------------------------------------------------------------- faults

# loss, block-tcp, delay and skew: pvm-hosts-faults.sh, beside this file.
# shellcheck source=SCRIPTDIR/pvm-hosts-faults.sh
source "$HERE/pvm-hosts-faults.sh"

# ---------------------------------------------------------------- host ops

cmd_run() {
  (($# >= 2)) || die "usage: run HOST CMD..."
  local k; k=$(host_index "$1"); shift
  [[ -s $DIR/vmid ]] || die "no VM in $DIR: '$PROG --dir $DIR up N' first"
  # Tasks it spawns get the PVM variables and the caller's XAB_ settings.
  local export_list=PVM_ROOT:PVM_VMID var
  [[ $(id -u) == 0 ]] && export_list+=:PVM_ALLOW_ROOT
  for var in $(compgen -e); do [[ $var == XAB_* && $var != XAB_HOSTS_* ]] && export_list+=:$var; done
  local vars; mapfile -t vars < <(host_vars "$k" "$export_list")
  # A caller that is itself a PVM task must not hand its pvmd socket on.
  enter "$k" "$PWD"
  exec "${ENTER[@]}" env -u PVMSOCK -u PVMEPID -u PVMTMASK "${vars[@]}" "$@"
}

cmd_add() {
  (($# == 1)) || die "usage: add HOST"
  local k; k=$(host_index "$1")
  [[ -s $DIR/vmid ]] || die "no VM in $DIR: '$PROG --dir $DIR up N' first"
  ns_exists "$(host_ns "$k")" || make_host "$k"
  local out; out=$(console "add node$k")
  grep -q "node$k.*\(already\|Duplicate\)" <<<"$out" && die "node$k is in the VM already"
  grep -q "^ *node$k " <<<"$(console conf)" || die "adding node$k failed: $out"
  say "node$k added"
}

cmd_delete() {
  (($# == 1)) || die "usage: delete HOST"
  local k out; k=$(host_index "$1")
  out=$(console "delete node$k")
  if grep -q "^ *node$k " <<<"$(console conf)"; then die "node$k is still in the VM: $out"; fi
  say "node$k deleted from the VM"
}

# The pvmd processes of host K, by pid (comm pvmd or pvmd3).
host_pvmds() {
  local p
  for p in $(ip netns pids "$(host_ns "$1")" 2>/dev/null); do
    if [[ $(cat "/proc/$p/comm" 2>/dev/null) == pvmd* ]]; then echo "$p"; fi
  done
}

cmd_kill_pvmd() {
  (($# == 1)) || die "usage: kill-pvmd HOST"
  local k pids; k=$(host_index "$1")
  pids=$(host_pvmds "$k")
  [[ -n $pids ]] || die "node$k has no pvmd"
  # shellcheck disable=SC2086  # a list of pids
  kill -KILL $pids
  say "node$k: pvmd $(tr '\n' ' ' <<<"$pids")killed"
}

# Every process of host K but the one that holds its namespaces, pvmd first:
# once pvmd is gone it can tell nobody that its tasks died.
cmd_crash() {
  (($# == 1)) || die "usage: crash HOST"
  local k p pvmds others=(); k=$(host_index "$1")
  pvmds=$(host_pvmds "$k")
  [[ -n $pvmds ]] || die "node$k has no pvmd"
  # shellcheck disable=SC2086  # a list of pids
  kill -KILL $pvmds
  for p in $(ip netns pids "$(host_ns "$k")" 2>/dev/null); do
    [[ $p == "$(holder_pid "$k")" ]] || others+=("$p")
  done
  ((${#others[@]} == 0)) || kill -KILL "${others[@]}" 2>/dev/null || true
  say "node$k: crashed (pvmd $(tr '\n' ' ' <<<"$pvmds")and ${#others[@]} other processes killed)"
}

cmd_pids() {
  local ns
  for ns in $(our_namespaces); do ip netns pids "$ns" 2>/dev/null; done
}

cmd_status() {
  [[ -s $DIR/vmid ]] || { echo "no VM in $DIR"; return 1; }
  local k d pvmds pct way
  printf '%-7s %-12s %-8s %-14s %-9s %-7s %s\n' host address holder pvmd loss delay skew
  for k in $(hosts_made); do
    d=$(host_dir "$k")
    pvmds=$(host_pvmds "$k" | tr '\n' ',')
    read -r pct way <<<"$(loss_of "$k")"
    [[ $way == both ]] && way='' || way=" $way"
    printf '%-7s %-12s %-8s %-14s %-9s %-7s %s\n' "node$k" "$SUBNET.$((10 + k))" "$(holder_pid "$k")" \
      "${pvmds%,}" "$pct%$way" "$(cat "$d/delay" 2>/dev/null || echo 0)ms" \
      "$(cat "$d/skew" 2>/dev/null || echo -)"
  done
  echo "namespaces: $(our_namespaces | tr '\n' ' ')"
  ip netns exec "$(bridge_ns)" nft list table bridge xab_faults 2>/dev/null | grep counter || true
  console conf | sed -n '/^[0-9]* hosts\{0,1\},/,/^pvm>/p' | grep -v '^pvm>'
}

# ---------------------------------------------------------------- main

set_dir() {
  [[ $1 == /* ]] || set -- "$PWD/$1"
  DIR=${1%/}
  ((${#DIR} < 70)) || die "--dir $DIR: too long for pvmd's socket path (keep it under 70 chars)"
  [[ $DIR != *[[:space:]]* ]] || die "--dir must not contain spaces"
}

main() {
  while (($#)); do
    case $1 in
      --dir) (($# >= 2)) || die "--dir needs a directory"; set_dir "$2"; shift 2 ;;
      -h | --help | help) usage; return 0 ;;
      *) break ;;
    esac
  done
  set_dir "$DIR"
  export PVM_ROOT=${PVM_ROOT:-/usr/lib/pvm3}
  local cmd=${1:-}; shift || true
  case $cmd in
    up) cmd_up "$@" ;;
    down) (($# == 0)) || die "down takes no arguments"; cmd_down ;;
    run) cmd_run "$@" ;;
    rsh) cmd_rsh "$@" ;;
    add) cmd_add "$@" ;;
    kill-pvmd) cmd_kill_pvmd "$@" ;;
    crash) cmd_crash "$@" ;;
    block-tcp) cmd_block_tcp "$@" ;;
    delete) cmd_delete "$@" ;;
    loss) cmd_loss "$@" ;;
    delay) cmd_delay "$@" ;;
    skew) cmd_skew "$@" ;;
    status) cmd_status ;;
    pids) cmd_pids ;;
    check) cmd_check ;;
    *) usage >&2; return 2 ;;
  esac
}

main "$@"
