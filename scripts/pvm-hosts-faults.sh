# pvm-hosts-faults.sh -- the faults pvm-hosts.sh puts on its pseudo-hosts:
# packet loss and blocked TCP (nftables on the bridge), delay (nfqdelay)
# and clock skew (libfaketime).  Sourced by pvm-hosts.sh, whose names
# (DIR, host_ns, host_dir, in_host, say, die, ...) it uses.
# shellcheck shell=bash disable=SC2154  # the variables are pvm-hosts.sh's

# The losses live in one nftables table on the bridge (never in a host's
# own output path: pvmd's sendto would fail with EPERM and pvmd exit).
# The table is rebuilt from DIR/nodeK/loss and DIR/nodeK/block-tcp at every
# change.
# Host K's loss as `loss` set it: "PCT WAY" (0 both when none).
loss_of() {
  local pct=0 way=both
  read -r pct way 2>/dev/null <"$(host_dir "$1")/loss" || pct=0
  echo "$pct ${way:-both}"
}

apply_losses() {
  local rules="" k pct way
  for k in $(hosts_made); do
    if [[ -e $(host_dir "$k")/block-tcp ]]; then
      rules+="    iifname \"vh$k\" ip protocol tcp counter drop comment \"node$k tcp\""$'\n'
      rules+="    oifname \"vh$k\" ip protocol tcp counter drop comment \"node$k tcp\""$'\n'
    fi
    read -r pct way <<<"$(loss_of "$k")"
    ((pct > 0)) || continue
    # numgen's range is 0..99: "< 100" is refused, so 100 % is a plain drop.
    local every="numgen random mod 100 < $pct "
    ((pct == 100)) && every=""
    # On the bridge, iifname vhK is what HOST sends, oifname vhK what it gets.
    [[ $way == to ]] || rules+="    iifname \"vh$k\" ${every}counter drop comment \"node$k\""$'\n'
    [[ $way == from ]] || rules+="    oifname \"vh$k\" ${every}counter drop comment \"node$k\""$'\n'
  done
  ip netns exec "$(bridge_ns)" nft -f - <<EOF
table bridge xab_faults
delete table bridge xab_faults
table bridge xab_faults {
  chain loss {
    type filter hook forward priority 0; policy accept;
$rules  }
}
EOF
}

cmd_loss() {
  if (($# < 2 || $# > 3)) || ! [[ $2 =~ ^[0-9]+$ ]] || ((10#$2 > 100)) || [[ ${3:-both} != @(both|to|from) ]]; then
    die "usage: loss HOST PCT (0..100) [both|to|from]"
  fi
  local k way=${3:-both}; k=$(host_index "$1")
  ns_exists "$(host_ns "$k")" || die "node$k does not exist"
  echo "$((10#$2)) $way" >"$(host_dir "$k")/loss"
  apply_losses
  case $way in
    both) say "node$k: $((10#$2)) % of its packets dropped each way" ;;
    to) say "node$k: $((10#$2)) % of the packets to it dropped (it still sends)" ;;
    from) say "node$k: $((10#$2)) % of the packets it sends dropped (it still receives)" ;;
  esac
}

nfqdelay_bin() {
  local f
  for f in "${XAB_NFQDELAY:-}" "$ROOT"/build*/tools/nfqdelay/nfqdelay; do
    [[ -n $f && -x $f ]] && { echo "$f"; return 0; }
  done
  die "nfqdelay not found: build it (ninja -C build nfqdelay; needs libnetfilter-queue-dev) or set XAB_NFQDELAY"
}

stop_delayer() {
  local d pid; d=$(host_dir "$1")
  pid=$(cat "$d/delay.pid" 2>/dev/null) || return 0
  # Only the delayer this script started: its pid, in this host's namespace.
  if grep -qx "$pid" <<<"$(ip netns pids "$(host_ns "$1")")"; then
    kill -TERM "$pid" 2>/dev/null || true
    local i; for ((i = 0; i < 30; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$d/delay.pid" "$d/delay"
}

# The iptables rule that hands host K's incoming packets to the delayer
# (the xt NFQUEUE target: kernels without nft's `queue` have it).  bypass:
# should the delayer die, packets pass instead of being dropped.
DELAY_RULE=(INPUT -i eth0 -j NFQUEUE --queue-num 0 --queue-bypass)

cmd_delay() {
  if (($# != 2)) || ! [[ $2 =~ ^[0-9]+$ ]] || ((10#$2 > 60000)); then die "usage: delay HOST MS (0..60000)"; fi
  local k ms=$((10#$2)) d ns; k=$(host_index "$1") d=$(host_dir "$k") ns=$(host_ns "$k")
  ns_exists "$ns" || die "node$k does not exist"
  while ip netns exec "$ns" iptables -w -D "${DELAY_RULE[@]}" 2>/dev/null; do :; done
  stop_delayer "$k"
  if ((ms > 0)); then
    local bin; bin=$(nfqdelay_bin)
    enter "$k" "$DIR"
    "${ENTER[@]}" setsid "$bin" -q 0 "$ms" </dev/null >/dev/null 2>"$d/delay.log" &
    echo $! >"$d/delay.pid"
    local i
    for ((i = 0; i < 50; i++)); do grep -q 'delay' "$d/delay.log" 2>/dev/null && break; sleep 0.1; done
    if ! grep -q "queue 0, delay $ms ms" "$d/delay.log" ||
       ! ip netns exec "$ns" iptables -w -A "${DELAY_RULE[@]}"; then
      stop_delayer "$k"
      die "node$k: cannot delay: $(cat "$d/delay.log")"
    fi
    echo "$ms" >"$d/delay"
  fi
  say "node$k: incoming packets delayed by $ms ms"
}

# One clock for the host.  libfaketime starts each process's fake clock
# at that process's start, so with a rate ("+2h x1.0001") every process
# would have an offset of its own; processes given the same
# FAKETIME_SHARED share the first one's start.  The faketime wrapper makes
# that shared memory; its child, kept in the host's namespaces (`down`
# ends it), is the first, and host_vars passes its FAKETIME_SHARED on.
start_host_clock() {
  local k=$1 d; d=$(host_dir "$k")
  enter "$k" "$DIR"
  # shellcheck disable=SC2016  # expanded by the child's shell
  "${ENTER[@]}" faketime -f "$2" sh -c 'echo "$FAKETIME_SHARED" >"$1.new" && mv "$1.new" "$1" && exec sleep infinity' \
    clock "$d/skew.shared" </dev/null >/dev/null 2>"$d/skew.err" &
  echo $! >"$d/skew.pid"
  local i
  for ((i = 0; i < 100; i++)); do
    [[ -s $d/skew.shared ]] && return 0
    sleep 0.05
  done
  die "node$k: libfaketime's clock holder did not start: $(cat "$d/skew.err")"
}

# The holder ends, and its shared memory goes (the wrapper leaves it).
stop_host_clock() {
  local d=$1 sem shm
  if [[ -s $d/skew.pid ]]; then kill "$(cat "$d/skew.pid")" 2>/dev/null || true; fi
  if [[ -s $d/skew.shared ]] && read -r sem shm <"$d/skew.shared"; then
    rm -f "/dev/shm/sem.${sem#/}" "/dev/shm/${shm#/}"
  fi
  rm -f "$d/skew.pid" "$d/skew.shared"
}

cmd_skew() {
  (($# == 2)) || die "usage: skew HOST SPEC (e.g. +2h, -30s, '+0 x1.0001', off)"
  local k d; k=$(host_index "$1"); d=$(host_dir "$k")
  [[ -d $d ]] || die "node$k does not exist"
  stop_host_clock "$d"
  if [[ $2 == off || $2 == 0 || -z $2 ]]; then rm -f "$d/skew"; else
    faketime_lib >/dev/null
    printf '%s\n' "$2" >"$d/skew"
    start_host_clock "$k" "$2"
  fi
  say "node$k: clock ${2/#off/not skewed} for its pvmd and tasks started from now on"
}

cmd_block_tcp() {
  if (($# != 2)) || [[ $2 != on && $2 != off ]]; then die "usage: block-tcp HOST on|off"; fi
  local k; k=$(host_index "$1")
  ns_exists "$(host_ns "$k")" || die "node$k does not exist"
  if [[ $2 == on ]]; then : >"$(host_dir "$k")/block-tcp"; else rm -f "$(host_dir "$k")/block-tcp"; fi
  apply_losses
  say "node$k: TCP $([[ $2 == on ]] && echo dropped || echo passed) each way"
}
