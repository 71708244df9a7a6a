#!/usr/bin/env bash
# node2's clock 2 hours ahead (libfaketime on its pvmd and tasks).  With
# a relay per host (issue 14), a task's records are stamped by its host's
# relay: node2's tasks' task and receive times are both node2's clock
# (2 h ahead of real time, about 0 apart); node2's relay records carry its
# clock (column 2) 7200 s ahead of abmon's (column 1); the other hosts'
# times are real time.
# shellcheck disable=SC1091  # lib.sh: the tests' shared part, beside this file
source "$(dirname "$0")/lib.sh"
vm_up 3 --skew node2=+2h

[[ $(h run node2 date +%s) -gt $(($(date +%s) + 7000)) ]] || fail "node2's date is not 2 h ahead: $(h run node2 date)"
t0=$(date +%s)
out=$(h run node0 timeout "$RUN_LIMIT" "$BIN/abmon" -o skew.trace -- "$BIN/xabdemo" -n 6 2>&1) || fail "the demo failed: $out"
t1=$(date +%s)
# Per host (tid prefix; relay records as "relay-HOST"): the least and
# greatest column 2 - column 1, and receive times outside the run's real
# time (shifted by 7200 s for node2's tasks, stamped by its relay).
awk -v t0="$t0" -v t1="$((t1 + 1))" '
  NR == 1 || $4 ~ /^abmon\./ || ($4 == "task.exit" && $5 == "how=notify") { next }
  { h = $4 ~ /^relay\./ ? "relay-" substr($5, 6) : substr($3, 1, 2); d = $2 - $1
    if (!(h in lo) || d < lo[h]) lo[h] = d
    if (!(h in hi) || d > hi[h]) hi[h] = d
    shift = h == "tc" ? 7200 : 0
    if ($1 < t0 + shift || $1 > t1 + shift) bad++ }
  END { for (h in lo) printf "%s %.3f %.3f\n", h, lo[h], hi[h]; printf "bad %d\n", bad }' skew.trace >offsets
cat offsets
while read -r host lo hi; do
  case $host in
    relay-node2) awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(lo > 7190 && hi < 7210) }' || fail "node2's relay: offset $lo..$hi, not 7200 s" ;;
    t4 | t8 | tc | relay-node1) awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(lo > -10 && hi < 10) }' || fail "$host: offset $lo..$hi, not about 0" ;;
    bad) ((lo == 0)) || fail "$lo receive times outside the run's real time [$t0, $t1] (+7200 s for node2)" ;;
  esac
done <offsets
[[ $(grep -c '^t[48c] \|^relay-node[12] ' offsets) == 5 ]] || fail "not every host's tasks and relays in the trace: $(cat offsets)"
ok "node2's records in its relay's clock (+7200 s); its relay's clock 7200 s ahead of abmon's; the others' not"
finish
