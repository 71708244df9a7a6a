// The Messages matrix as a heat map: each pair shaded by its share of the
// busiest pair, for every metric, at every replay position.
#include "heat.h"
#include "panel_models.h"
#include "support.h"

#include <catch2/catch.hpp>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

TEST_CASE("heat colours go from white through yellow to dark red, darker for more") {
  CHECK(heatColor(0) == QColor(Qt::white));
  double last = 1e9;
  for (double f = 0.001; f <= 1.0; f += 0.01) {
    const QColor c = heatColor(f);
    const double light = 0.299 * c.red() + 0.587 * c.green() + 0.114 * c.blue();
    CHECK(light <= last);
    last = light;
  }
  CHECK(heatColor(1).lightness() < 100);
  CHECK(heatText(1) == QColor(Qt::white));
  CHECK(heatText(0.01) == QColor(Qt::black));
}

TEST_CASE("message matrix heat map: the busiest pair darkest, empty pairs unshaded, each cell by its share") {
  auto s = snapshotOf(dataPath("demo_hang_killed.trace"));
  ViewState st;
  MessageMatrixModel m(&st);
  ModelChecker checker(&m);
  st.setSnapshot(s);
  REQUIRE(m.rowCount() == static_cast<int>(s->trace->taskCount()));
  for (auto metric : {MessageMatrixModel::Metric::Count, MessageMatrixModel::Metric::Bytes, MessageMatrixModel::Metric::Bandwidth}) {
    m.setMetric(metric);
    for (std::size_t p : {s->size() / 3, s->size() / 2, s->size()}) {
      INFO("metric " << static_cast<int>(metric) << " position " << p);
      st.setPosition(p);
      const PairMatrix pairs = pairsAt(*s, p);
      auto value = [&](const PairAt& a) {
        return metric == MessageMatrixModel::Metric::Count ? static_cast<double>(a.count)
               : metric == MessageMatrixModel::Metric::Bytes ? static_cast<double>(a.bytes) : a.bandwidth();
      };
      double max = 0;
      for (const auto& [k, a] : pairs) max = std::max(max, value(a));
      int shaded = 0;
      for (int r = 0; r < m.rowCount(); ++r)
        for (int c = 0; c < m.columnCount(); ++c) {
          const QVariant bg = m.data(m.index(r, c), Qt::BackgroundRole);
          auto it = pairs.find({static_cast<TaskIndex>(r), static_cast<TaskIndex>(c)});
          if (it == pairs.end() || max == 0) {
            CHECK_FALSE(bg.isValid());
            continue;
          }
          REQUIRE(bg.isValid());
          CHECK(bg.value<QColor>() == heatColor(value(it->second) / max));
          shaded += value(it->second) > 0;
          if (value(it->second) == max) CHECK(bg.value<QColor>() == heatColor(1));
        }
      if (max > 0) CHECK(shaded > 0);
    }
  }
  CHECK(checker.messages().isEmpty());
}
