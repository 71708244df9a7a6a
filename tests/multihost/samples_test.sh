#!/usr/bin/env bash
# Clock-driven samples on two pseudo-hosts (docs/abmon.md "Samples"):
# abmon on node0 and its relay on node1 each sample their own host.
# abmon_cpuburn's two workers burn CPU, one on node0 pinned to one CPU and
# one on node1 pinned to another, while a CPU hog started on node1 is
# pinned beside node1's worker (the pseudo-hosts share this machine's CPUs):
#  - each host has its host.load records, written by its own sampler
#    (abmon for node0, node1's relay for node1), and abstat's JSON a load
#    series for each;
#  - each worker's samples come from its own host's sampler;
#  - only node1's worker waited for a CPU (runnable >= 40 % of its wall
#    time), node0's did not (< 10 %), and abstat --why names node1 as
#    overloaded.
# shellcheck disable=SC1091  # lib.sh: the tests' shared part, beside this file
source "$(dirname "$0")/lib.sh"
(($(nproc) >= 2)) || { echo "SKIP: one CPU: the two workers cannot have one each"; exit 77; }
vm_up 2
rm -f samples.trace

# The CPU node1's worker (worker 1) takes: abmon_cpuburn's 2nd allowed CPU.
cpu=$(python3 -c 'import os; print(sorted(os.sched_getaffinity(0))[1])')
# `run` execs: $! is the hog itself. A session (autogroup) of its own at
# nice -20, as the workers'.
"$HOSTS" --dir "$VM" run node1 setsid nice -n -20 taskset -c "$cpu" \
  sh -c 'echo -20 >/proc/self/autogroup 2>/dev/null; while :; do :; done' &
hog=$!
# abmon too in a session of its own at -20: in the test's, with nice counting
# only inside a session, it got too little of the CPUs beside the -20
# workers (and a build beside the test) to sample node0's worker.
h run node0 timeout "$RUN_LIMIT" setsid sh -c 'echo -20 >/proc/self/autogroup 2>/dev/null; exec "$@"' sh \
  nice -n -20 "$BIN/abmon" -q -o samples.trace -- \
  "$BIN/abmon_cpuburn" 2 2 burn node0,node1 >samples.out 2>samples.err || fail "abmon: status $?: $(head -3 samples.err)"
kill "$hog"
wait "$hog" 2>/dev/null
"$BIN/abstat" --json --tasks --why samples.trace >samples.json 2>samples.stat.err || fail "abstat --json: status $?: $(head -3 samples.stat.err)"

# The workers and their hosts, from the program's own report.
declare -A worker_host
while read -r _ index tid _; do worker_host[$index]=$tid; done < <(awk '$1 == "worker"' samples.out)
w0=${worker_host[0]:-} w1=${worker_host[1]:-}
[[ -n $w0 && -n $w1 ]] || fail "not 2 workers reported: $(cat samples.out)"
[[ $(host_of_tid "$w0") == node0 && $(host_of_tid "$w1") == node1 ]] || fail "workers $w0 $w1 not on node0 and node1"

# Who sampled whom: abmon's tid samples node0, node1's relay node1.
abmon_tid=$(awk '$4 == "abmon.start" {print $3; exit}' samples.trace)
relay=$(awk '$4 == "relay.start" && $5 == "host=node1" {print $3}' samples.trace | tail -1)
[[ -n $relay ]] || fail "no relay on node1"
sampler_of() { awk -v t="tid=$1" '$4 == "sample" && $5 == t {print $3}' samples.trace | sort -u | tr '\n' ' '; }
load_by() { awk -v h="host=$1" '$4 == "host.load" && $5 == h {print $3}' samples.trace | sort -u | tr '\n' ' '; }
[[ $(sampler_of "$w0") == "$abmon_tid " ]] || fail "$w0 (node0) sampled by '$(sampler_of "$w0")', not abmon $abmon_tid"
[[ $(sampler_of "$w1") == "$relay " ]] || fail "$w1 (node1) sampled by '$(sampler_of "$w1")', not node1's relay $relay"
[[ $(load_by node0) == "$abmon_tid " ]] || fail "node0's host.load written by '$(load_by node0)'"
[[ $(load_by node1) == "$relay " ]] || fail "node1's host.load written by '$(load_by node1)'"
[[ $(json samples.json '" ".join(h["host"] for h in sorted(d["hosts"], key=lambda h: h["host"]) if h["load"])') == "node0 node1" ]] ||
  fail "abstat's load series: $(json samples.json '[(h["host"], len(h["load"])) for h in d["hosts"]]')"
ok "each host sampled by its own sampler: node0 by abmon $abmon_tid, node1 by its relay $relay"

# Only node1's worker waited for a CPU.
share() { json samples.json "next((t['runnable'] or 0) / (t['last'] - t['first']) for t in d['tasks'] if t['tid'] == '$1')"; }
s0=$(share "$w0") s1=$(share "$w1")
python3 -c "import sys; sys.exit(0 if float('$s1') >= 0.40 else 1)" || fail "node1's $w1 beside the hog: runnable share $s1, not 40 % or more"
python3 -c "import sys; sys.exit(0 if float('$s0') < 0.10 else 1)" || fail "node0's $w0 without a hog: runnable share $s0, not under 10 %"
ok "runnable share: $w1 on node1 beside the hog $s1, $w0 on node0 $s0"

# Why slow: node1's worker, a cause of the parent's waits, ran on an
# overloaded host; node0 is named nowhere.
causes=$(json samples.json '"\n".join(d["whyText"]["causes"])')
grep -q "host node1 overloaded (load [0-9.]* on [0-9]* CPUs\{0,1\}): .* waited [0-9.]* m\{0,1\}s for a CPU" <<<"$causes" ||
  fail "abstat --why does not name node1 overloaded: $causes"
! grep -q "host node0 overloaded" <<<"$causes" || fail "abstat --why names node0 overloaded: $causes"
ok "abstat --why: host node1 overloaded"
finish
