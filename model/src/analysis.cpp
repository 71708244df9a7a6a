// analyse(): the one wiring of the analyses (xab/model/analysis.h).
#include <xab/model/analysis.h>

#include <chrono>
#include <future>

namespace xab {
namespace {

// Runs f, adding its wall time in milliseconds to `ms`.
template <class F>
void timed(double& ms, F&& f) {
  auto t = std::chrono::steady_clock::now();
  f();
  ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

Analysis analyse(std::shared_ptr<const Trace> trace, const AnalyseOptions& options) {
  Analysis a;
  timed(a.ms.total, [&] {
    a.trace = std::move(trace);
    const Trace& t = *a.trace;
    // The messages are ready before the chain's end: the wait states (which
    // read only them) run on this thread alongside mismatches and races.
    std::promise<void> matched;
    std::future<void> messagesReady = matched.get_future();
    // Without the wait states the calling thread's own steps end long
    // before the chain: the races, which read only the messages, run there
    // beside the mismatches.
    const bool racesHere = options.races && options.parallel && !options.why;
    auto messageChain = [&] {
      try {
        timed(a.ms.messages, [&] {
          if (options.messages) a.messages = std::move(*options.messages);
          else a.messages = matchMessages(t);
        });
      } catch (...) {  // (bad_alloc) the waits below end; second.get() throws it
        matched.set_exception(std::current_exception());
        throw;
      }
      matched.set_value();
      timed(a.ms.mismatch, [&] { a.mismatch = findPackMismatches(t, a.messages); });
      if (options.races && !racesHere) timed(a.ms.races, [&] { a.races = findMessageRaces(t, a.messages); });
    };
    std::future<void> second;
    if (options.parallel) second = std::async(std::launch::async, messageChain);
    else messageChain();
    if (options.alongside) timed(a.ms.alongside, options.alongside);
    timed(a.ms.barriers, [&] { a.barriers = analyzeBarriers(t); });
    timed(a.ms.failures, [&] { a.failures = findFailedCalls(t); });
    if (options.breakdown) timed(a.ms.breakdown, [&] { a.breakdown = timeBreakdown(t); });
    a.samples = samples(t);
    if (options.why) {
      messagesReady.wait();
      timed(a.ms.why, [&] {
        a.why = analyseWaits(t, a.messages);
        addCpuWaits(a.why, t, a.samples);
      });
    }
    if (racesHere) {
      messagesReady.wait();
      timed(a.ms.races, [&] { a.races = findMessageRaces(t, a.messages); });
    }
    if (second.valid()) second.get();
    timed(a.ms.hang, [&] { a.hang = diagnoseHang(t, a.messages, a.barriers); });
  });
  return a;
}

}  // namespace xab
