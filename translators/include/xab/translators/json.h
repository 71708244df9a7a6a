// xab/translators/json.h -- Chrome trace-event JSON (the Perfetto UI,
// chrome://tracing): hosts as processes, tasks as threads, calls as
// complete events, messages as flow arrows, barrier waits as such.
#pragma once

#include <xab/translators/io.h>
#include <xab/translators/stream.h>

#include <cstdint>
#include <memory>

namespace xab::tr {

struct JsonWriteStats {
  std::uint64_t slices = 0;    // "X" events
  std::uint64_t instants = 0;  // "i" events (marks, task exits, lost events)
  std::uint64_t flows = 0;     // messages drawn (one "s" and one "f" each)
};

// Streams JSON to `out` as records are fed to stream() (streamInput, or
// stream().feed(trace)); finish() writes the end of the document.
class JsonStream {
 public:
  explicit JsonStream(Sink& out);
  ~JsonStream();
  TraceStream& stream();
  JsonWriteStats finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A whole trace, through JsonStream.
JsonWriteStats writeJson(const Trace& trace, Sink& out);

// Appends s as a JSON string (with quotes), escaped as all of xab's JSON
// is (xab/model/json_string.h).
void putJsonString(Sink& out, std::string_view s);

}  // namespace xab::tr
