// Messages sent and not received at the replay position: the diagram's
// dangling arrows are exactly the Messages panel's pending queue, at every
// position of real traces, and they are drawn (or not, with the message
// layer off).
#include "dangling_messages.h"
#include "panel_models.h"
#include "support.h"

#include <QImage>
#include <QPainter>

#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <utility>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

namespace {

int reddish(const QImage& img, const QRect& r) {
  int n = 0;
  for (int y = std::max(0, r.top()); y <= std::min(img.height() - 1, r.bottom()); ++y)
    for (int x = std::max(0, r.left()); x <= std::min(img.width() - 1, r.right()); ++x) {
      const QColor c = img.pixelColor(x, y);
      n += c.red() > 150 && c.green() < 110 && c.blue() < 110;
    }
  return n;
}

}  // namespace

TEST_CASE("dangling messages at every position are the pending queue: sent, not received by then") {
  for (const char* name : {"cholesky_hang.trace", "deadlock.trace", "mcast.trace", "bcast_left.trace", "recvf_hang.trace",
                           "psend_precv.trace", "two-hosts.trace", "handler_hang.trace"}) {
    INFO(name);
    auto s = snapshotOf(dataPath(name));
    ViewState st;
    st.setSnapshot(s);
    for (std::size_t p = 0; p <= s->size(); ++p) {
      INFO("position " << p);
      st.setPosition(p);
      std::multiset<std::pair<std::uint32_t, TaskIndex>> want, got;
      for (const PendingEntry& e : pendingAt(*s, p)) want.insert({e.message, e.receiver});
      for (const DanglingMessage& d : danglingAt(*s, p, st.nowTime())) {
        got.insert({d.message, d.receiver});
        const bool received = std::any_of(s->lines().begin(), s->lines().end(), [&](const MessageLine& l) {
          return l.message == d.message && l.receiver == d.receiver;
        });
        CHECK(d.never == !received);
      }
      CHECK(got == want);
    }
  }
}

TEST_CASE("the Cholesky hang's dangling arrows end at the receivers' rows at the replay position, and only with the message layer") {
  auto s = snapshotOf(dataPath("cholesky_hang.trace"));
  ViewState st;
  st.setSnapshot(s);
  st.setPosition(12);  // the mcast sent, two of its three receives not in yet
  const auto pending = danglingAt(*s, 12, st.nowTime());
  REQUIRE(pending.size() == 2);
  QImage img(1000, 300, QImage::Format_RGB32);
  const DiagramLayout layout = DiagramLayout::make(img.rect(), st);
  auto paint = [&](DiagramOptions o) {
    img.fill(Qt::white);
    QPainter p(&img);
    paintDiagram(p, layout, st, o);
  };
  paint({});
  const int x = static_cast<int>(layout.xOf(st.nowTime()));
  for (const DanglingMessage& d : pending) {
    const int y = static_cast<int>(layout.rowTop(d.receiver) + layout.rowHeight / 2);
    CHECK(reddish(img, QRect(x - 10, y - 5, 8, 10)) > 4);  // the head, left of the replay line
  }
  DiagramOptions off;
  off.messages = false;
  paint(off);
  for (const DanglingMessage& d : pending) {
    const int y = static_cast<int>(layout.rowTop(d.receiver) + layout.rowHeight / 2);
    CHECK(reddish(img, QRect(x - 10, y - 5, 8, 10)) == 0);
  }
}

// Live, the analysis lags the records: a message its records do not see
// received is drawn as never received only once an analysis covers every
// record (its receive may be among the newer ones).
TEST_CASE("live, a message the lagging analysis saw unreceived gets no arrow until an analysis covers every record") {
  std::ifstream in(dataPath("cholesky_hang.trace"));
  std::string line, head, all;
  for (int n = 0; std::getline(in, line); ++n) {
    all += line + "\n";
    if (n < 28) head += line + "\n";  // the mcast sent, its last receiver waiting for it
  }
  auto early = snapshotOfText(head);
  std::size_t stale = 0;
  for (const DanglingMessage& d : danglingAt(*early, early->size(), early->lastTime())) stale += d.never;
  REQUIRE(stale >= 1);
  // The whole trace, shown with the early analysis (as the loader does while one runs).
  auto whole = snapshotOfText(all);
  auto lagging = std::make_shared<ViewSnapshot>(*whole);
  lagging->analysis = early->analysis;
  REQUIRE_FALSE(lagging->analysisComplete());
  QImage img(1000, 300, QImage::Format_RGB32);
  auto arrows = [&](std::shared_ptr<ViewSnapshot> s) {
    ViewState st;
    st.setSnapshot(s);
    img.fill(Qt::white);
    QPainter p(&img);
    return paintDangling(p, DiagramLayout::make(img.rect(), st), st);
  };
  CHECK(arrows(lagging) == 0);
  CHECK(arrows(whole) > 0);  // the hang's own, the analysis complete
}

// A paused busy program has thousands of messages in flight: the arrows
// are folded per pair of rows and send column, the oldest first, and
// kMaxDanglingArrows at most (each is a dashed antialiased line).
TEST_CASE("thousands of messages in flight draw a bounded number of arrows, the oldest first") {
  std::string text = "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1000.0\n"
                     "1000.000000001 1000.000000001 t40002 mytid rc=t40002 name=a host=vm parent=none lang=c pid=5\n"
                     "1000.000000002 1000.000000002 t40003 mytid rc=t40003 name=b host=vm parent=none lang=c pid=6\n"
                     "1000.000000003 1000.000000003 t40003 recv.begin src=t40002 tag=9\n";
  char line[200];
  for (int i = 0; i < 5000; ++i) {  // sends b never takes (it waits for tag 9)
    const long long ns = 1000 + 1000LL * i;
    std::snprintf(line, sizeof line, "1000.%09lld 1000.%09lld t40002 send dst=t40003 tag=1 bytes=4 serial=%d rc=0\n", ns,
                  ns, i + 1);
    text += line;
  }
  auto s = snapshotOfText(text);
  ViewState st;
  st.setSnapshot(s);
  const auto pending = danglingAt(*s, s->size(), st.nowTime());
  REQUIRE(pending.size() == 5000);
  QImage img(1000, 300, QImage::Format_RGB32);
  img.fill(Qt::white);
  QPainter p(&img);
  const DiagramLayout layout = DiagramLayout::make(img.rect(), st);
  const std::size_t drawn = paintDangling(p, layout, st);
  p.end();
  CHECK(drawn <= kMaxDanglingArrows);
  CHECK(drawn <= static_cast<std::size_t>(layout.plot().width() / kFoldPixels) + 1);
  CHECK(drawn > 100);
  // The oldest send's arrow leaves the sender's row at its send.
  const int x = static_cast<int>(layout.xOf(1000'000'000'000LL + 1000)), y = static_cast<int>(layout.rowTop(0) + layout.rowHeight / 2);
  CHECK(reddish(img, QRect(x - 2, y - 3, 6, 6)) > 0);
}
