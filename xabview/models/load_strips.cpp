// The diagram's load strips (load_strips.h).
#include "load_strips.h"

#include <algorithm>

namespace xab::view {

std::vector<LoadStrip> loadStrips(const RowPlan& plan, const Trace& trace, const SampleReport& samples) {
  std::vector<LoadStrip> out;
  if (samples.hosts.empty() || plan.rows() == 0) return out;
  // The hosts' groups of rows: [hostFirstRows[i], hostFirstRows[i + 1]); one host: every row.
  std::vector<TaskIndex> firsts = plan.hostFirstRows;
  if (firsts.empty()) firsts.push_back(0);
  for (std::size_t i = 0; i < firsts.size(); ++i) {
    const TaskIndex first = firsts[i];
    const TaskIndex end = i + 1 < firsts.size() ? firsts[i + 1] : static_cast<TaskIndex>(plan.rows());
    std::string host(trace.str(trace.task(plan.rowTask[first]).host));
    const HostLoad* load = samples.host(host);
    if (!load || load->points.empty()) continue;
    out.push_back({std::move(host), first, end - 1, load});
  }
  return out;
}

QColor loadColor(double perCpu) {
  struct Stop { double at; QColor color; };
  static const Stop stops[] = {{0.0, QColor(0xc8, 0xe6, 0xc9)}, {1.0, QColor(0xff, 0xb3, 0x00)}, {2.0, QColor(0xc6, 0x28, 0x28)}};
  if (!(perCpu > stops[0].at)) return stops[0].color;
  for (std::size_t i = 1; i < std::size(stops); ++i) {
    if (perCpu > stops[i].at) continue;
    const double f = (perCpu - stops[i - 1].at) / (stops[i].at - stops[i - 1].at);
    const QColor &a = stops[i - 1].color, &b = stops[i].color;
    auto mix = [f](int u, int v) { return static_cast<int>(u + (v - u) * f + 0.5); };
    return QColor(mix(a.red(), b.red()), mix(a.green(), b.green()), mix(a.blue(), b.blue()));
  }
  return std::prev(std::end(stops))->color;
}

double loadPerCpu(const LoadPoint& p) { return p.load / std::max(1, p.cpus); }

QString loadStripText(const LoadStrip& strip, TimeNs t, TimeNs origin) {
  const QString host = QString::fromStdString(strip.host);
  const QString at = QStringLiteral("t = %1 s").arg(QString::fromStdString(formatSeconds(t, origin)));
  const LoadPoint* p = strip.load ? strip.load->at(t) : nullptr;
  if (!p) return QStringLiteral("%1: no load sample yet\n%2").arg(host, at);
  return QStringLiteral("%1: load %2 on %3 CPU%4 (%5 per CPU)\n%6")
      .arg(host)
      .arg(p->load, 0, 'f', 2)
      .arg(p->cpus)
      .arg(p->cpus == 1 ? "" : "s")
      .arg(loadPerCpu(*p), 0, 'f', 2)
      .arg(at);
}

}  // namespace xab::view
