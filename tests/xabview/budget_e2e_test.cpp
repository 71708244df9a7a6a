// End-to-end: xabview under a memory budget (--budget) on a trace larger
// than its window: the whole run still drawn, the window said, and the past
// read again from the file and from a pipe's spill file.
#include "xab/test/process.h"

#include <QColor>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <catch2/catch.hpp>

#include <filesystem>
#include <thread>
#include <sys/resource.h>
#include <unistd.h>

using namespace xab::test;
namespace fs = std::filesystem;

namespace {

QJsonObject budgetJson(const std::string& path) {
  auto doc = QJsonDocument::fromJson(QByteArray::fromStdString(read_file(path)));
  REQUIRE(doc.isObject());
  return doc.object();
}

// The share of the diagram's pixels left of `fraction` of its width that
// are not background (white or the rows' grey).
double inkLeftOf(const std::string& png, double fraction) {
  QImage img(QString::fromStdString(png));
  REQUIRE_FALSE(img.isNull());
  long ink = 0, all = 0;
  // The row labels take the left ~150 pixels: the plot starts after them.
  const int from = 160, to = from + static_cast<int>((img.width() - from) * fraction);
  for (int y = 40; y < img.height(); y += 2)
    for (int x = from; x < to; x += 2) {
      const QColor c = img.pixelColor(x, y);
      ++all;
      if (c.saturation() > 60) ++ink;
    }
  return all ? static_cast<double>(ink) / static_cast<double>(all) : 0;
}

}  // namespace

#ifdef XAB_GENTRACE
TEST_CASE("xabview --budget: a window of the newest records, the whole run drawn, the past read again", "[xabview][e2e]") {
  const std::string dir = make_temp_dir("xabview-budget");
  const std::string trace = dir + "/ring.trace";
  // 400,000 records of 16 tasks in a ring (0.11 s of trace time).
  REQUIRE(run({"/bin/sh", "-c", std::string(XAB_GENTRACE) + " --records 400000 16 --clocks > " + trace}).exit_code == 0);
  const EnvVars env{{"QT_QPA_PLATFORM", "offscreen"}};
  // 8 MiB, less than the viewer's fixed part: the least window, 65,536 records.
  auto r = run({XAB_XABVIEW, "--no-follow", "--budget", "8M", "--play-to-end", "--dump-state", dir + "/cut.json",
                "--save-diagram", dir + "/cut.png", "--size", "1280x800", trace}, env, 120s);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const QJsonObject cut = budgetJson(dir + "/cut.json");
  REQUIRE(cut.contains("window"));
  const QJsonObject w = cut["window"].toObject();
  CHECK(w["records"].toDouble() <= 65536);
  CHECK(w["records"].toDouble() >= 65536 / 2 - 100);
  CHECK(w["summarised"].toDouble() >= 400000 - 65536 - 1000);
  CHECK(w["run_position"].toDouble() >= 400000 - 65536 - 1000);
  CHECK(w["history_s"].toArray()[0].toDouble() == Approx(0).margin(1e-3));
  CHECK(w["history_bytes"].toDouble() < 16 * 5000.0);
  // The diagram spans the run from its start, as without a budget.
  CHECK(cut["view_s"].toArray()[0].toDouble() < 0.01);

  r = run({XAB_XABVIEW, "--no-follow", "--budget", "0", "--play-to-end", "--dump-state", dir + "/whole.json",
           "--save-diagram", dir + "/whole.png", "--size", "1280x800", trace}, env, 120s);
  REQUIRE(r.exit_code == 0);
  CHECK_FALSE(budgetJson(dir + "/whole.json").contains("window"));
  // The first quarter of the picture is summary under the budget: drawn
  // about as densely as from the records themselves (not blank).
  const double whole = inkLeftOf(dir + "/whole.png", 0.25), summary = inkLeftOf(dir + "/cut.png", 0.25);
  INFO("ink: whole " << whole << ", summary " << summary);
  CHECK(whole > 0.2);
  CHECK(summary > whole * 0.6);

  // Go to a time before the window: its records read again from the file.
  r = run({XAB_XABVIEW, "--no-follow", "--budget", "8M", "--play-to-end", "--goto", "0.02", "--dump-state",
           dir + "/past.json", trace}, env, 120s);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  QJsonObject past = budgetJson(dir + "/past.json");
  CHECK(past["find"].toObject()["result"].toString().contains("read again from the input"));
  CHECK(past["window"].toObject()["run_position"].toDouble() < 200000);

  // The same through a pipe: the past comes from the spill file.
  r = run({XAB_XABVIEW, "--budget", "8M", "--play-to-end", "--goto", "0.02", "--dump-state", dir + "/pipe.json"}, env,
          120s, read_file(trace));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  past = budgetJson(dir + "/pipe.json");
  CHECK(past["find"].toObject()["result"].toString().contains("read again from the input"));
  CHECK(past["window"].toObject()["run_position"].toDouble() < 200000);
  fs::remove_all(dir);
}
#endif

// Memory measured by the children's peak RSS: not in sanitizer builds,
// whose shadow memory and quarantine are most of it (tests/memory likewise).
#if defined(XAB_GENTRACE) && defined(XAB_PEAK_RSS_MEANS_MEMORY)
TEST_CASE("xabview --budget holds the memory of a trace several times its size to the budget", "[xabview][e2e]") {
  const std::string dir = make_temp_dir("xabview-budget");
  const std::string trace = dir + "/ring.trace";
  // 4 M records (350 MB of text): ~190 MB resident read whole.
  REQUIRE(run({"/bin/sh", "-c", std::string(XAB_GENTRACE) + " --records 4000000 16 --clocks > " + trace}).exit_code == 0);
  const EnvVars env{{"QT_QPA_PLATFORM", "offscreen"}};
  // Each case in a process of its own (ctest): the children's peak is xabview's.
  auto peakOf = [&](const std::string& budget) {
    auto r = run({XAB_XABVIEW, "--no-follow", "--budget", budget, "--play-to-end", "--timeout", "280", "--dump-state",
                  dir + "/s.json", trace},
                 env, 300s);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    struct rusage u {};
    ::getrusage(RUSAGE_CHILDREN, &u);
    return static_cast<double>(u.ru_maxrss) * 1024.0;
  };
  const double budget = 128.0 * (1 << 20);
  const double cut = peakOf("128M");
  CHECK(budgetJson(dir + "/s.json").contains("window"));
  CHECK(cut <= budget);
  // Without it the same file takes more: the bound above is the budget's doing.
  const double whole = peakOf("0");
  CHECK(whole > budget * 1.3);
  fs::remove_all(dir);
}
#endif
