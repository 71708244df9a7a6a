#include "state_dump.h"

#include "activity.h"
#include "load_strips.h"
#include "utilization.h"
#include "panel_models.h"
#include "task_table_model.h"
#include "network_model.h"
#include "why_models.h"

#include <QJsonArray>

#include <algorithm>

namespace xab::view {
namespace {

QString qstr(const std::string& s) { return QString::fromStdString(s); }

QJsonArray tasks(const ViewState& st) {
  const ViewSnapshot& s = *st.snapshot();
  QJsonArray out;
  for (TaskIndex t = 0; t < s.trace->taskCount(); ++t) {
    const TaskInfo& info = s.trace->task(t);
    auto a = describeTask(st, t);
    const std::optional<CpuShare> cpu = cpuShareAt(st, t);
    out.append(QJsonObject{{"task", qstr(s.trace->label(t))},
                           {"tid", qstr(formatTid(info.tid))},
                           {"host", qstr(std::string(s.trace->str(info.host)))},
                           {"doing", a.text},
                           {"activity", activityName(a.kind)},
                           {"records", static_cast<qint64>(st.shownOf(t))},
                           // its last record's time, from the trace's first (the time base's: View > Time)
                           {"last_s", static_cast<double>(info.lastTime - s.firstTime()) / 1e9},
                           // the task table's CPU column: shares of its life up to the position, null without samples
                           {"cpu_share", cpu ? QJsonValue(cpu->cpuShare()) : QJsonValue()},
                           {"cpu_wait_share", cpu ? QJsonValue(cpu->waitingShare()) : QJsonValue()}});
  }
  return out;
}

QJsonObject messages(const ViewState& st) {
  const ViewSnapshot& s = *st.snapshot();
  QJsonArray pairs;
  for (const auto& [key, p] : pairsAt(s, st.position()))
    pairs.append(QJsonObject{{"from", qstr(s.trace->label(key.first))},
                             {"to", qstr(s.trace->label(key.second))},
                             {"count", static_cast<qint64>(p.count)},
                             {"bytes", static_cast<qint64>(p.bytes)},
                             {"received_bytes", static_cast<qint64>(p.receivedBytes)}});
  QJsonArray pending;
  for (const auto& e : pendingAt(s, st.position())) {
    const Message& m = s.messages().messages[e.message];
    pending.append(QJsonObject{{"to", qstr(s.trace->label(e.receiver))},
                               {"from", qstr(s.trace->label(m.sender))},
                               {"tag", m.tag},
                               {"bytes", m.bytes}});
  }
  return QJsonObject{{"sent", static_cast<qint64>(s.messages().sent)},
                     {"matched", static_cast<qint64>(s.messages().total.count)},  // receives matched (an mcast once per receiver), as abstat
                     {"pairs", pairs},
                     {"pending", pending}};
}

QJsonArray barriers(const ViewSnapshot& s) {
  QJsonArray out;
  for (const auto& b : s.barriers().instances) {
    QJsonArray waits;
    for (const auto& v : b.visits)
      waits.append(QJsonObject{{"task", qstr(s.trace->label(v.task))}, {"wait_s", static_cast<double>(v.wait()) / 1e9}});
    out.append(QJsonObject{
        {"group", qstr(std::string(s.trace->str(b.group)))},
        {"use", static_cast<int>(b.use)},
        {"complete", b.complete()},
        {"last", b.lastArrival >= 0 ? qstr(s.trace->label(b.visits[static_cast<std::size_t>(b.lastArrival)].task)) : QString()},
        {"waits", waits}});
  }
  return out;
}

// Each host: the Network tab's (the hosts of the tasks, in the order of
// their first, with what most of their tasks do), then any host only the
// samples name; each with its last host.load point at the cursor (null
// before one or without samples).  The one list of hosts: `network` has
// only the links, by these names.
QJsonArray hostsDump(const ViewState& st, const NetworkPicture& net) {
  const SampleReport& samples = st.snapshot()->analysis->model.samples;
  QJsonArray out;
  auto add = [&](const QString& name, qint64 tasks, const QJsonValue& state) {
    QJsonObject o{{"name", name}, {"tasks", tasks}, {"state", state}, {"load", QJsonValue()}, {"cpus", QJsonValue()},
                  {"busy", QJsonValue()}};
    const HostLoad* h = samples.host(name.toStdString());
    if (const LoadPoint* at = h ? h->at(st.cursorTime()) : nullptr) {
      o["load"] = at->load;
      o["cpus"] = at->cpus;
      if (at->busyPermille >= 0) o["busy"] = at->busyPermille / 1000.0;
    }
    out.append(o);
  };
  for (const NetworkHost& h : net.hosts) add(h.name, static_cast<qint64>(h.tasks.size()), activityName(h.state()));
  for (const HostLoad& h : samples.hosts) {
    const QString name = qstr(h.host);
    if (std::none_of(net.hosts.begin(), net.hosts.end(), [&](const NetworkHost& n) { return n.name == name; }))
      add(name, 0, QJsonValue());
  }
  return out;
}

}  // namespace

namespace {

// The diagram's rows: how many, their order (keys: "task:t40003",
// "name:worker@vm", "host:vm"), the folded ones with their tasks, the
// tasks not drawn.
QJsonObject rowsDump(const ViewState& st) {
  const RowPlan& plan = st.rowPlan();
  const std::size_t tasks = st.snapshot()->trace->taskCount();
  const RowFold fold = effectiveFold(st.rowChoice(), tasks);
  QJsonArray folded;
  for (const RowGroup& g : plan.groups)
    folded.append(QJsonObject{{"label", qstr(g.label)}, {"tasks", static_cast<qint64>(g.members.size())}});
  std::size_t drawn = 0;
  for (TaskIndex row : plan.taskRow) drawn += row != kNoRow;
  QJsonArray strips;  // each host's load strip under its rows (load_strips.h)
  for (const LoadStrip& l : loadStrips(plan, *st.snapshot()->trace, st.snapshot()->analysis->model.samples))
    strips.append(QJsonObject{{"host", qstr(l.host)}, {"first_row", static_cast<qint64>(l.firstRow)},
                              {"last_row", static_cast<qint64>(l.lastRow)}});
  QJsonArray order;  // the rows top to bottom, by key (moved by the user or not)
  for (TaskIndex row = 0; row < plan.rows(); ++row) order.append(qstr(rowKey(*st.snapshot()->trace, plan, row)));
  return QJsonObject{{"count", static_cast<qint64>(plan.rows())},
                     {"order", order},
                     {"fold", fold == RowFold::ByName ? "name" : fold == RowFold::ByHost ? "host" : "none"},
                     {"folded", folded},
                     {"not_drawn", static_cast<qint64>(tasks - drawn)},
                     {"load_strips", strips}};
}

}  // namespace

QJsonObject dumpState(const ViewState& st) {
  const ViewSnapshot* s = st.snapshot();
  if (!s) return QJsonObject{{"loaded", false}};
  QJsonArray errors;
  for (const auto& e : s->errors)
    errors.append(QJsonObject{{"line", static_cast<qint64>(e.line)}, {"reason", qstr(e.reason)}});
  QJsonArray hang;
  for (const auto& line : hangReportLines(*s)) hang.append(line);
  // The Why slow report whole: made here when nothing has asked for it yet
  // (why_made: what the viewer had made before this dump).
  const QString whyMade = s->whyReady() ? "ready" : st.whyRunning() ? "computing" : st.whyWanted() ? "stale" : "not asked";
  QJsonArray why;
  ViewSnapshot withWhy;
  if (!s->whyReady()) {
    withWhy = *s;
    withWhy.whyAnalysis = analyseWhy(*s);
  }
  for (const auto& line : whyReportLines(s->whyReady() ? *s : withWhy)) why.append(line);
  const NetworkPicture net = networkAt(st);
  QJsonArray netLinks;
  for (const NetworkLink& l : net.links)
    netLinks.append(QJsonObject{{"from", net.hosts[l.from].name}, {"to", net.hosts[l.to].name},
                                {"messages", static_cast<qint64>(l.messages)}, {"bytes", static_cast<qint64>(l.bytes)},
                                {"bandwidth", l.bandwidth}});
  auto util = utilizationAt(st, st.cursorTime());
  QJsonObject u;
  for (int a = 0; a < kActivityCount; ++a) u[activityName(static_cast<Activity>(a))] = util[static_cast<std::size_t>(a)];
  QJsonObject current;
  if (st.position() > 0) {
    const OrderEntry oe = s->order[st.position() - 1];
    const Event& e = s->event(oe);
    current = QJsonObject{{"task", oe.task == kMonitorTask ? QString("abmon") : qstr(s->trace->label(oe.task))},
                          {"event", qstr(std::string(kindName(e.kind))) + (e.isBegin() ? ".begin" : "")},
                          {"fields", eventArgs(*s->trace, e)}};
  }
  return QJsonObject{
      {"loaded", true},
      {"source", qstr(s->source)},
      {"events", static_cast<qint64>(s->size())},
      {"position", static_cast<qint64>(st.position())},
      {"live", st.live()},
      {"input_ended", s->inputEnded},
      {"caught_up", s->caughtUp},
      {"monitor_stopped", s->trace->stopped()},
      {"trace_time_s", static_cast<double>(st.cursorTime() - s->firstTime()) / 1e9},
      {"time", qstr(s->timeNote)},  // what the times are: global time, task clocks, a replay on its record's dates
      {"current", current},
      {"tasks", tasks(st)},
      {"hosts", hostsDump(st, net)},  // the Network tab's hosts with their load
      {"messages", messages(st)},
      {"barriers", barriers(*s)},
      {"hung", s->hang().hung},
      {"hang", hang},
      {"mismatches", static_cast<qint64>(s->mismatches().mismatches.size())},
      {"why", why},  // the Why slow tab's report
      {"why_made", whyMade},  // ready, computing, stale (of fewer records), not asked (the tab never shown)
      {"network", QJsonObject{{"links", netLinks}}},  // the Network tab's traffic at the position (its hosts: `hosts`)
      {"highlights", static_cast<qint64>(st.highlights().size())},
      {"rows", rowsDump(st)},  // the diagram's rows (View > Rows)
      {"utilization_at_cursor", u},
      {"errors", errors},
      {"error_count", static_cast<qint64>(s->errorCount)},
      {"fatal", qstr(s->fatal)},
  };
}

}  // namespace xab::view
