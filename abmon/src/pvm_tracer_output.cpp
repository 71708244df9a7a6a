// pvm_tracer_output.cpp -- the output pvmd collects of the tasks it spawns
// (pvm_tracer.h): every line an `output` record of its task.
#include <pvm3.h>

#include "output_lines.h"
#include "pvm_tracer.h"

namespace xab::abmon {
namespace {

// Output messages from pvmd (pvm_setopt(3PVM), PvmOutputTid): tid, count,
// then count bytes; count 0: the task's output ended; -1 / -2: the task was
// spawned / connected (a parent tid follows).
constexpr int kOutputEof = 0;

// pvmd's own tids have the TIDPVMD bit (0x80000000) set; a task's never do.
bool fromPvmd(int src) { return (static_cast<unsigned>(src) & 0x80000000u) != 0; }

}  // namespace

void PvmTracer::takeOutput(std::string& out, int src, std::int64_t recvNs) {
  if (!fromPvmd(src)) return void(++forged_);  // only pvmd collects output
  int head[2] = {};
  if (pvm_upkint(head, 2, 1) < 0) return void(++bad_);
  int tid = head[0], n = head[1];
  if (n < kOutputEof) return;  // spawned / connected: its output starts
  if (groupServers_.count(tid) > 0) return void(++dropped_);  // pvmgs is not recorded
  auto emit = [&](std::string_view line) { writeOutputLine(out, tid, recvNs, line); };
  if (n == kOutputEof) {
    if (auto it = partialLines_.find(tid); it != partialLines_.end()) {
      it->second.finish(emit);
      partialLines_.erase(it);
    }
    return;
  }
  int bytes = 0;
  pvm_bufinfo(pvm_getrbuf(), &bytes, nullptr, nullptr);
  if (n > bytes) return void(++bad_);
  std::string chunk(static_cast<std::size_t>(n), '\0');
  if (pvm_upkbyte(chunk.data(), n, 1) < 0) return void(++bad_);
  partialLines_[tid].append(chunk, emit);
}

void PvmTracer::flushOutput(std::string& out, std::int64_t nowNs) {
  for (auto& [tid, id] : identities_) flushTask(out, tid, nowNs);
  for (auto& [tid, lines] : partialLines_)
    lines.finish([&, tid = tid](std::string_view line) { writeOutputLine(out, tid, nowNs, line); });
  partialLines_.clear();
}

// `output stream=- text=...`: PVM's pipe carries stdout and stderr both, so
// which one a line came from is not known.
void PvmTracer::writeOutputLine(std::string& out, int tid, std::int64_t ns, std::string_view text) {
  appendOutputRecord(out, ns, tid, "-", text);
}

}  // namespace xab::abmon
