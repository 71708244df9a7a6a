#!/usr/bin/env bash
# node2's clock 2 hours ahead (libfaketime on its pvmd and tasks): its
# tasks' own times (the task time column) are 7200 s ahead of abmon's
# receive times; the other tasks' are not; abmon's stamps are real time.
# shellcheck disable=SC1091  # lib.sh: the tests' shared part, beside this file
source "$(dirname "$0")/lib.sh"
vm_up 3 --skew node2=+2h

[[ $(h run node2 date +%s) -gt $(($(date +%s) + 7000)) ]] || fail "node2's date is not 2 h ahead: $(h run node2 date)"
t0=$(date +%s)
out=$(h run node0 timeout "$RUN_LIMIT" "$BIN/abmon" -o skew.trace -- "$BIN/xabdemo" -n 6 2>&1) || fail "the demo failed: $out"
t1=$(date +%s)
# Per host: the least and greatest task time - receive time of the
# tasks' own records (not the ones abmon writes itself), and abmon's
# receive times.
awk -v t0="$t0" -v t1="$((t1 + 1))" '
  NR == 1 || $4 ~ /^abmon\./ || ($4 == "task.exit" && $5 == "how=notify") { next }
  { h = substr($3, 1, 2); d = $2 - $1
    if (!(h in lo) || d < lo[h]) lo[h] = d
    if (!(h in hi) || d > hi[h]) hi[h] = d
    if ($1 < t0 || $1 > t1) bad++ }
  END { for (h in lo) printf "%s %.3f %.3f\n", h, lo[h], hi[h]; printf "bad %d\n", bad }' skew.trace >offsets
cat offsets
while read -r host lo hi; do
  case $host in
    tc) awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(lo > 7190 && hi < 7210) }' || fail "node2's tasks: offset $lo..$hi, not 7200 s" ;;
    t4 | t8) awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(lo > -10 && hi < 10) }' || fail "host $host: offset $lo..$hi, not about 0" ;;
    bad) ((lo == 0)) || fail "$lo receive times outside the run's real time [$t0, $t1]" ;;
  esac
done <offsets
[[ $(grep -c '^t[48c] ' offsets) == 3 ]] || fail "not every host's tasks in the trace: $(cat offsets)"
ok "node2's task times +7200 s, the others' and abmon's not"
finish
