// TraceSource on compressed traces: zstd and gzip, known by their magic
// bytes (whatever the name), a file cut short, a growing zstd file written
// in flushed blocks as abmon writes it, and invalid data after a magic.
#include "fixtures.h"

#include <xab/model/source.h>

#include <zlib.h>
#include <zstd.h>

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

using namespace xab;
using namespace std::chrono_literals;
using xab::test::dataPath;
using xab::test::readFile;

namespace {

void spit(const std::string& path, std::string_view bytes, std::ios::openmode mode = std::ios::trunc) {
  std::ofstream out(path, std::ios::binary | mode);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/xab-zsource-XXXXXX";
    REQUIRE(::mkdtemp(t));
    path = t;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return path + "/" + name; }
};

// A zstd stream written as abmon writes one: each piece compressed and
// flushed (a whole block), the frame ended only if `end`.
class ZstdWriter {
 public:
  ZstdWriter() : c_(ZSTD_createCCtx()) {}
  ~ZstdWriter() { ZSTD_freeCCtx(c_); }
  std::string piece(std::string_view text, bool end) {
    std::string out;
    ZSTD_inBuffer in{text.data(), text.size(), 0};
    for (;;) {
      char buf[1 << 16];
      ZSTD_outBuffer o{buf, sizeof buf, 0};
      std::size_t left = ZSTD_compressStream2(c_, &o, &in, end ? ZSTD_e_end : ZSTD_e_flush);
      REQUIRE_FALSE(ZSTD_isError(left));
      out.append(buf, o.pos);
      if (left == 0) return out;
    }
  }

 private:
  ZSTD_CCtx* c_;
};

std::string zstd(std::string_view text) { return ZstdWriter().piece(text, true); }

std::string gzip(std::string_view text) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// The same records, in the same order, as the text has.
void checkSameTrace(const Trace& got, const std::string& text) {
  LoadResult want = loadTraceText(text);
  REQUIRE(want.trace);
  REQUIRE(got.taskCount() == want.trace->taskCount());
  CHECK(got.eventCount() == want.trace->eventCount());
  CHECK(got.monitorEvents().size() == want.trace->monitorEvents().size());
  for (TaskIndex t = 0; t < got.taskCount(); ++t) {
    REQUIRE(got.events(t).size() == want.trace->events(t).size());
    for (std::uint32_t i = 0; i < got.events(t).size(); ++i) {
      CHECK(got.events(t)[i].time == want.trace->events(t)[i].time);
      CHECK(got.events(t)[i].kind == want.trace->events(t)[i].kind);
    }
  }
}

}  // namespace

TEST_CASE("compressed: zstd and gzip files read as their text, known by their magic whatever their name") {
  TempDir d;
  const std::string text = readFile(dataPath("cholesky_hang.trace"));
  const std::string pieces[] = {zstd(text), gzip(text), zstd(text.substr(0, 1000)) + zstd(text.substr(1000))};
  for (const std::string& bytes : pieces) {
    for (std::string name : {"run.trace.zst", "run.trace"}) {  // the suffix does not matter
      spit(d.file(name), bytes);
      for (std::size_t piece : {std::size_t{7}, std::size_t{1} << 20}) {  // tiny pieces: magic split, frames split
        SourceOptions o;
        o.pieceBytes = piece;
        TraceSource s(d.file(name), o);
        REQUIRE(s.error().empty());
        s.readToEnd();
        CHECK(s.error().empty());
        CHECK(s.reader().errorCount() == 0);
        CHECK(s.reader().byteCount() == text.size());
        checkSameTrace(*s.reader().take(), text);
      }
    }
  }
  CHECK(pieces[0].size() * 4 < text.size());  // compressed, indeed
}

TEST_CASE("compressed: a zstd file cut short is read to its last whole record, and says so") {
  TempDir d;
  const std::string text = readFile(dataPath("cholesky_hang.trace"));
  const std::size_t cut = text.find(" recv", text.size() / 2);  // inside a record
  ZstdWriter w;
  const std::string first = w.piece(text.substr(0, cut), false);  // flushed: readable
  const std::string rest = w.piece(text.substr(cut), true);
  spit(d.file("cut.trace.zst"), first + rest.substr(0, rest.size() / 2));  // the file ends in the second block
  TraceSource s(d.file("cut.trace.zst"));
  s.readToEnd();
  CHECK(s.error().empty());
  const std::string whole = text.substr(0, text.rfind('\n', cut) + 1);
  REQUIRE(s.reader().errors().size() == 1);
  const std::string said = s.describe(s.reader().errors()[0]);
  CHECK_THAT(said, Catch::StartsWith(d.file("cut.trace.zst") + ":") &&
                       Catch::Contains("zstd data ends inside a frame") &&
                       Catch::Contains("read to the last whole record") && Catch::Contains("bytes of a cut record"));
  checkSameTrace(*s.reader().take(), whole);  // the cut record is not read as a short one
}

TEST_CASE("compressed: a gzip file cut short is read to its last whole record, and says so") {
  TempDir d;
  const std::string text = readFile(dataPath("barrier.trace"));
  const std::string gz = gzip(text);
  spit(d.file("cut.trace.gz"), gz.substr(0, gz.size() - 9));  // the trailer and a little of the data gone
  TraceSource s(d.file("cut.trace.gz"));
  s.readToEnd();
  CHECK(s.error().empty());
  REQUIRE(s.reader().errors().size() == 1);
  CHECK_THAT(s.reader().errors()[0].reason, Catch::Contains("gzip data ends inside a frame"));
  CHECK(s.reader().eventCount() > 0);
}

TEST_CASE("compressed: a growing zstd file written in flushed blocks is followed until abmon.stop") {
  TempDir d;
  const std::string path = d.file("live.trace.zst");
  const std::string text = readFile(dataPath("cholesky_hang.trace"));  // has no abmon.stop
  const std::string stop = "1763680009.000000000 1763680009.000000000 t40001 abmon.stop events=32\n";
  const std::size_t cut = text.find(" recv", text.size() / 2);
  ZstdWriter w;
  spit(path, w.piece(text.substr(0, cut), false));
  SourceOptions o;
  o.follow = true;
  o.waitMs = 50;
  TraceSource s(path, o);
  REQUIRE(s.error().empty());
  CHECK(s.following());
  std::atomic<int> waits{0};
  std::atomic<int> phase{0};
  std::string second = w.piece(text.substr(cut), false), last = w.piece(stop, true);
  std::thread writer([&] {
    while (waits < 1) std::this_thread::sleep_for(10ms);
    phase = 1;
    spit(path, second, std::ios::app);
    while (waits < 5) std::this_thread::sleep_for(10ms);
    phase = 2;
    spit(path, last, std::ios::app);
  });
  std::uint64_t eventsBeforeRest = 0, eventsAfterRest = 0;
  auto deadline = std::chrono::steady_clock::now() + 60s;
  while (s.next() != SourceStep::Ended) {
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    if (!s.caughtUp()) continue;
    if (phase == 0) eventsBeforeRest = s.reader().eventCount();
    if (phase == 1) eventsAfterRest = s.reader().eventCount();
    ++waits;
  }
  writer.join();
  CHECK(phase == 2);  // it did not end before the stop record was written
  CHECK(s.reader().monitorStopped());
  CHECK(s.reader().errorCount() == 0);
  CHECK(eventsBeforeRest == loadTraceText(text.substr(0, text.rfind('\n', cut) + 1)).trace->eventCount());
  CHECK(eventsAfterRest == loadTraceText(text).trace->eventCount());  // the flushed block, before the frame's end
  checkSameTrace(*s.reader().take(), text + stop);
}

TEST_CASE("compressed: followed, abmon's stop read before its frame's end waits for that end, no cut reported") {
  TempDir d;
  const std::string path = d.file("stop.trace.zst");
  const std::string text = readFile(dataPath("cholesky_hang.trace"));
  const std::string stop = "1763680009.000000000 1763680009.000000000 t40001 abmon.stop events=32\n";
  ZstdWriter w;
  // The stop record in a flushed block, the frame not ended: abmon between
  // its last write and closing the file.
  spit(path, w.piece(text + stop, false));
  const std::string frameEnd = w.piece("", true);
  REQUIRE_FALSE(frameEnd.empty());
  SourceOptions o;
  o.follow = true;
  o.waitMs = 50;
  TraceSource s(path, o);
  REQUIRE(s.error().empty());
  int waits = 0;
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (s.next() != SourceStep::Ended) {
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    if (s.caughtUp() && s.reader().monitorStopped() && ++waits == 3) spit(path, frameEnd, std::ios::app);
  }
  CHECK(waits >= 3);  // it waited for the frame's end after reading the stop
  CHECK(s.reader().monitorStopped());
  CHECK(s.reader().errorCount() == 0);  // no "ends inside a frame"
  checkSameTrace(*s.reader().take(), text + stop);
}

TEST_CASE("compressed: invalid data after a zstd or gzip magic is an error that names the file, not a crash") {
  TempDir d;
  const std::string text = readFile(dataPath("barrier.trace"));
  const std::string good = zstd(text);
  struct Case {
    std::string bytes;
    const char* says;
  } cases[] = {
      {std::string("\x28\xb5\x2f\xfd", 4) + std::string(200, '\x5a'), "not valid zstd data"},
      {good.substr(0, good.size() / 2) + std::string(300, '\xff') + good.substr(good.size() / 2), "not valid zstd data"},
      {std::string("\x1f\x8b", 2) + "this is not deflate data at all", "not valid gzip data"},
  };
  for (const Case& c : cases) {
    spit(d.file("bad"), c.bytes);
    TraceSource s(d.file("bad"));
    s.readToEnd();
    CHECK_THAT(s.error(), Catch::StartsWith(d.file("bad") + ": ") && Catch::Contains(c.says));
    CHECK(s.ended());
  }
}

TEST_CASE("compressed: a text shorter than a magic, or starting like one, is plain text") {
  for (std::string text : {std::string("\x28"), std::string("\x1f"), std::string("x\n"), std::string("\x28\xb5\n")}) {
    TraceSource s = TraceSource::fromText(text);
    s.readToEnd();
    CHECK(s.error().empty());
    CHECK(s.reader().byteCount() == text.size());
  }
}
