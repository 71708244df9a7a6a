// The Why-slow panel's contents (why_models.h).
#include "why_models.h"

#include "activity.h"
#include "panel_words.h"

#include <xab/model/why_text.h>

#include <algorithm>
#include <tuple>

namespace xab::view {

WhyCauseModel::WhyCauseModel(ViewState* state, QObject* parent) : GrowingTableModel(parent), state_(state) {
  connect(state_, &ViewState::snapshotChanged, this, &WhyCauseModel::reset);
  reset();
}

void WhyCauseModel::reset() {
  const ViewSnapshot* s = state_->snapshot();
  syncRows(s ? static_cast<int>(s->why().causes.size()) : 0);
}

int WhyCauseModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant WhyCauseModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const ViewSnapshot* s = state_->snapshot();
  if (!s || index.row() >= static_cast<int>(s->why().causes.size())) return {};
  const WaitCause& c = s->why().causes[static_cast<std::size_t>(index.row())];
  if (role == Qt::ToolTipRole)
    return QStringLiteral("%1's own work kept others waiting %2 in all; select to mark on the diagram the waits it "
                          "caused directly and its work during them")
        .arg(label(*s, c.task), formatDuration(c.cost));
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case TaskCol: return label(*s, c.task);
    case PatternCol: {
      auto name = waitPatternName(c.pattern);
      return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
    }
    case CostCol: return formatDuration(c.cost);
    case ShareCol: return QString::number(c.share * 100, 'f', 1) + " %";
    case WaitsCol: return c.instances;
  }
  return {};
}

QVariant WhyCauseModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o == Qt::Horizontal && role == Qt::ToolTipRole && section == CostCol)
    return QStringLiteral("The waiting the cause's own work cost others");
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Cause", "Pattern", "Cost", "Share", "Waits"};
  return section >= 0 && section < ColumnCount ? QString(names[section]) : QVariant();
}

std::vector<Highlight> causeHighlights(const ViewSnapshot& s, std::size_t cause) {
  std::vector<Highlight> out;
  if (!s.analysis || !s.analysis->model.trace) return out;
  const WhyReport& w = s.why();
  if (cause >= w.causes.size()) return out;
  const WaitCause& c = w.causes[cause];
  auto direct = [&](const WaitState& ws) { return ws.cause == c.task && ws.pattern == c.pattern; };
  // A cause whose waiting of this pattern all came through a chain (its
  // work kept a task waiting, which therefore kept these waiters waiting)
  // made none of these waits itself: its waiters' waits of the pattern
  // are shown instead, and its work over them.
  const bool chained = std::none_of(w.waits.begin(), w.waits.end(), direct);
  auto waitedFor = [&](const WaitState& ws) {
    return ws.pattern == c.pattern && std::any_of(c.waiters.begin(), c.waiters.end(),
                                                  [&](const auto& x) { return x.first == ws.task; });
  };
  const Trace& analysed = *s.analysis->model.trace;
  for (const WaitState& ws : w.waits) {
    if (ws.end <= ws.begin || !(chained ? waitedFor(ws) : direct(ws))) continue;
    out.push_back({Highlight::Wait, ws.task, ws.begin, ws.end});
    TimeNs released = ws.end;
    if (!chained && ws.causeAt.index < analysed.events(ws.causeAt.task).size())
      released = std::min(ws.end, analysed.events(ws.causeAt.task)[ws.causeAt.index].time);
    if (released > ws.begin) out.push_back({Highlight::CauseWork, c.task, ws.begin, released});
  }
  std::ranges::sort(out, [](const Highlight& a, const Highlight& b) {
    return std::tie(a.kind, a.task, a.begin, a.end) < std::tie(b.kind, b.task, b.begin, b.end);
  });
  return out;
}

std::vector<Highlight> criticalPathHighlights(const ViewSnapshot& s) {
  std::vector<Highlight> out;
  for (const CriticalStep& step : s.why().criticalPath)
    if (step.to > step.from) out.push_back({Highlight::Critical, step.task, step.from, step.to});
  std::ranges::sort(out, [](const Highlight& a, const Highlight& b) { return a.begin < b.begin; });
  return out;
}

QStringList whyReportLines(const ViewSnapshot& s) {
  QStringList lines;
  if (!s.analysis || !s.analysis->model.trace) return {"Analysing: the report comes when the analysis has run."};
  if (!s.whyAnalysis) return {"Computing the wait states, their causes and the critical path\u2026"};
  if (!s.analysisComplete() || !s.whyReady()) lines << "Analysing: the report covers the records read before the newest.";
  const WhyText t = whyText(s.analysis->model, s.why());
  auto add = [&](const std::string& line) {
    if (!line.empty()) lines << QString::fromStdString(line);
  };
  add(t.headline);
  for (const std::string& c : t.causes) add("  " + c);
  if (!t.symptoms.empty()) lines << "Symptoms (late only because they were kept waiting):";
  for (const std::string& c : t.symptoms) add("  " + c);
  add(t.criticalPath);
  add(t.slack);
  return lines;
}

}  // namespace xab::view
