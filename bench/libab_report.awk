# libab_report.awk -- the tables of run-libab-bench.sh, from its raw.txt.
#
# Every raw line is `config=NAME MODE key=value ...` (pingpong, record) or
# `killcheck`, `tracecheck`, `monitorcheck`, `abmonprobe` lines.  A figure
# is the median over rounds of each run's own median; a ratio is the median
# over rounds of the ratio to the same round's config=plain run.

function median(list,    n, a, i, j, t) {
  n = split(list, a, " ")
  for (i = 2; i <= n; i++)
    for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

# Runs are kept until END: a monitorcheck line (after its runs) can still
# throw a run out -- a run that was not monitored throughout is no xab figure.
{
  delete f
  for (i = 1; i <= NF; i++) if (split($i, kv, "=") == 2) f[kv[1]] = kv[2]
  if ($1 == "killcheck") { kills[++nkill] = f["config"] " " f["expected"] " " f["kept"]; next }
  if ($1 == "tracecheck") { traced[f["config"]] = f["send_recv_events_written"]; next }
  if ($1 == "monitorcheck") {
    if (!f["ok"]) { bad[f["tid"]] = 1; badtext = badtext sprintf("  %s %s %s: %s of at least %s records\n", f["config"], f["mode"], f["tid"], f["got"], f["expected_min"]) }
    next
  }
  config = f["config"]; mode = $2
  if (mode == "record") {
    v = f["variant"]
    add("record" SUBSEP v SUBSEP "ev", f["median_ns_per_event"])
    if (v == "xab") { add("record" SUBSEP v SUBSEP "flush", f["flush_ns_per_event"]); add("record" SUBSEP v SUBSEP "flushus", f["median_flush_us"]); events = f["events_per_window"] }
    next
  }
  if (mode != "roundtrip" && mode != "packloop") next
  if (!((mode, config) in seen)) { seen[mode, config] = 1; order[mode] = order[mode] " " config }
  unit = mode == "roundtrip" ? "us" : "ns"
  if (config == "plain" && mode == "roundtrip") round++ # every round starts with it
  nrun++; run_key[nrun] = mode SUBSEP config; run_tid[nrun] = f["tid"]; run_round[nrun] = round
  run_wall[nrun] = f["median_" unit]; run_min[nrun] = f["min_" unit]; run_cpu[nrun] = f["cpu_" unit]
}

function add(key, value) { all[key] = (key in all) ? all[key] " " value : value }

# Ratios are paired: each run against the plain run of its own round, so a
# round slowed by other jobs on the machine slows both sides of its ratio.
function collect(    r, mode, p) {
  for (r = 1; r <= nrun; r++) {
    split(run_key[r], mc, SUBSEP); mode = mc[1]
    if (mc[2] == "plain") { pwall[mode, run_round[r]] = run_wall[r]; pcpu[mode, run_round[r]] = run_cpu[r] }
  }
  for (r = 1; r <= nrun; r++) {
    if (run_tid[r] in bad) continue
    split(run_key[r], mc, SUBSEP); mode = mc[1]
    add(run_key[r] SUBSEP "wall", run_wall[r]); add(run_key[r] SUBSEP "min", run_min[r]); add(run_key[r] SUBSEP "cpu", run_cpu[r])
    if ((mode, run_round[r]) in pwall) {
      add(run_key[r] SUBSEP "rwall", run_wall[r] / pwall[mode, run_round[r]])
      add(run_key[r] SUBSEP "rcpu", run_cpu[r] / pcpu[mode, run_round[r]])
      add(run_key[r] SUBSEP "dwall", run_wall[r] - pwall[mode, run_round[r]])
    }
  }
}

function table(mode, unit, per_op_events, scale,    n, c, i, cfg, w, m, cpu, pw, pc, rw, rc) {
  if (!(mode in order)) return
  pw = median(all[mode SUBSEP "plain" SUBSEP "wall"]); pc = median(all[mode SUBSEP "plain" SUBSEP "cpu"])
  printf "\n%s (%s per %s; wall: median over rounds of each run's median; cpu: both tasks' CPU time;\n", \
    mode, unit, mode == "roundtrip" ? "roundtrip" : "message"
  printf "  x plain: median over rounds of the ratio to the same round's plain run)\n"
  printf "  %-15s %10s %10s %8s %10s %8s %18s\n", "config", "wall", "wall min", "x plain", "cpu", "x plain", "added ns/event*"
  n = split(order[mode], c, " ")
  for (i = 1; i <= n; i++) {
    cfg = c[i]
    if (!((mode SUBSEP cfg SUBSEP "wall") in all)) { printf "  %-15s (no valid run)\n", cfg; continue }
    w = median(all[mode SUBSEP cfg SUBSEP "wall"]); m = median(all[mode SUBSEP cfg SUBSEP "min"])
    cpu = median(all[mode SUBSEP cfg SUBSEP "cpu"])
    rw = median(all[mode SUBSEP cfg SUBSEP "rwall"]); rc = median(all[mode SUBSEP cfg SUBSEP "rcpu"])
    printf "  %-15s %10.2f %10.2f %8.2f %10.2f %8.2f %18.0f\n", cfg, w, m, rw, cpu, rc, median(all[mode SUBSEP cfg SUBSEP "dwall"]) * scale / per_op_events
  }
  printf "  * median over rounds of (wall - plain wall) / %d events per %s (libab's count; PVM's tracer records fewer)\n", per_op_events, mode == "roundtrip" ? "roundtrip, both tasks" : "message, both tasks"
}

END {
  collect()
  if (badtext != "") printf "\nNOT MONITORED THROUGHOUT (left out of the tables):\n%s", badtext
  table("roundtrip", "us", 12, 1000)
  table("packloop", "ns", 6, 1)
  if (("record" SUBSEP "xab" SUBSEP "ev") in all) {
    p = median(all["record" SUBSEP "plain" SUBSEP "ev"]); x = median(all["record" SUBSEP "xab" SUBSEP "ev"])
    printf "\nrecord (pvm_pkint + re-initsend every 1000, windows of %d events, no flush inside)\n", events
    printf "  plain %.1f ns/event, xab %.1f ns/event: libab adds %.1f ns per event on the calling task\n", p, x, x - p
    printf "  sending a window's records to abmon: %.0f us, %.1f ns per event\n", \
      median(all["record" SUBSEP "xab" SUBSEP "flushus"]), median(all["record" SUBSEP "xab" SUBSEP "flush"])
  }
  for (c in traced) printf "\n%s: the tracer had written %d send/recv events of the last round when stopped\n", c, traced[c]
  if (nkill) {
    printf "\npvm_kill of a task holding unsent events: kill-* its pvm_mytid calls while it\n"
    printf "computes; killrecv-* the same while blocked in a receive; killsend-* its sends while it sends nonstop (expected: messages that arrived)\n"
    printf "  %-26s %9s %6s\n", "config", "expected", "kept"
    for (i = 1; i <= nkill; i++) { split(kills[i], k, " "); printf "  %-26s %9s %6s%s\n", k[1], k[2], k[3], k[3] + 0 < k[2] + 0 ? "  LOST " k[2] - k[3] : "" }
  }
}
