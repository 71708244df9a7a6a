// A large piece of trace text is tokenized on two threads
// (model/src/parallel_lines.h): the trace, its strings and lists, the
// errors and their line numbers are those of the same text read a line at
// a time, on one thread.
#include <xab/model/format.h>
#include <xab/model/model.h>

#include <catch2/catch.hpp>

#include <string>

using namespace xab;

namespace {

// Every kind of line the readers meet, repeated past the size that goes to
// two threads: identities with escaped names (the tokenizer's scratch),
// marks with escaped and plain texts, mcasts (lists), an unknown event,
// comments, empty and malformed lines, a '\r'.
std::string mixedText(int rounds) {
  std::string text = "#xab-trace 1 abmon=t40001 host=h pid=1 start=1763680000.000000000\n";
  for (int i = 0; i < rounds; ++i) {
    const std::string t = "1763680000." + std::to_string(100000000 + i * 10);
    const std::string tid = "t" + std::to_string(40002 + i % 7);
    if (i < 7) text += t + " " + t + " " + tid + " mytid rc=" + tid + " name=w%20" + std::to_string(i) + " host=h%3d" + " parent=none lang=c pid=" + std::to_string(100 + i) + "\n";
    text += t + " " + t + " " + tid + " mark text=round%20" + std::to_string(i) + " rc=0\n";
    text += t + " " + t + " " + tid + " mark text=plain" + std::to_string(i % 5) + " rc=0\n";
    text += t + " " + t + " " + tid + " mcast dst=t40003,t40004,t" + std::to_string(40005 + i % 3) + " tag=5 bytes=100 serial=" + std::to_string(i + 1) + " rc=0\n";
    text += t + " " + t + " " + tid + " frobnicate%20" + std::to_string(i % 3) + " x=1\n";
    if (i % 97 == 0) text += "# a comment\n\n";
    if (i % 131 == 0) text += t + " 17x " + tid + " mark text=bad rc=0\n";
    if (i % 151 == 0) text += t + " " + t + " " + tid + " barrier group=g%25" + std::to_string(i % 2) + " count=2 rc=0\r\n";
  }
  return text;
}

LoadResult byLines(const std::string& text, ReadOptions options) {
  TraceReader r(options);
  for (std::size_t at = 0; at < text.size();) {
    std::size_t nl = text.find('\n', at);
    nl = nl == std::string::npos ? text.size() : nl + 1;
    if (!r.feed(std::string_view(text).substr(at, nl - at))) break;
    at = nl;
  }
  return finishLoad(r);
}

void checkSame(const LoadResult& a, const LoadResult& b) {
  REQUIRE(a.trace);
  REQUIRE(b.trace);
  CHECK(a.fatal == b.fatal);
  CHECK(a.errorCount == b.errorCount);
  REQUIRE(a.errors.size() == b.errors.size());
  for (std::size_t i = 0; i < a.errors.size(); ++i) {
    CHECK(a.errors[i].line == b.errors[i].line);
    CHECK(a.errors[i].reason == b.errors[i].reason);
  }
  REQUIRE(a.trace->taskCount() == b.trace->taskCount());
  REQUIRE(a.trace->eventCount() == b.trace->eventCount());
  for (TaskIndex t = 0; t < a.trace->taskCount(); ++t) {
    INFO("task " << a.trace->label(t));
    CHECK(a.trace->label(t) == b.trace->label(t));
    REQUIRE(a.trace->events(t).size() == b.trace->events(t).size());
    for (std::uint32_t i = 0; i < a.trace->events(t).size(); ++i)
      CHECK(formatRecord(*a.trace, t, i) == formatRecord(*b.trace, t, i));
  }
}

}  // namespace

TEST_CASE("a large piece read on two threads gives the trace and errors of one thread, line by line", "[reader]") {
  const std::string text = mixedText(3000);
  const LoadResult whole = loadTraceText(text);
  const LoadResult lines = byLines(text, {});
  CHECK(whole.errorCount > 20);
  CHECK(whole.trace->eventCount() > 12000);
  CHECK(whole.trace->str(whole.trace->events(0)[1].get(Key::Text, -1)) == "round 0");
  checkSame(whole, lines);
}

TEST_CASE("a large piece read on two threads stops at the first error as one thread does", "[reader]") {
  const std::string text = mixedText(3000);
  const LoadResult whole = loadTraceText(text, {.stopOnError = true, .keepErrors = 1000});
  CHECK_FALSE(whole.fatal.empty());
  checkSame(whole, byLines(text, {.stopOnError = true, .keepErrors = 1000}));
}
