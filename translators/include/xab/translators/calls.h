// xab/translators/calls.h -- what the writers call a call.  TraceStream
// (stream.h) pairs a blocking call's begin and end records into one call
// (StreamCall); the JSON and OTF2 writers draw calls as slices.
#pragma once

#include <xab/model/trace.h>

#include <string_view>

namespace xab::tr {

// "recv", "barrier", or for a record of unknown kind its own name.
std::string_view callName(const Trace& trace, const Event& e);

}  // namespace xab::tr
