// ab2au's core (docs/translators.md, "ab2au").  The interesting events are
// the sends and receives of messages, in time order (within a window); the
// sound is generated step by step as the records are read (stream.h) and
// written as it goes, after a header whose sizes say "unknown" until the
// end, when they are filled in if the output is a file.
#include <xab/model/messages.h>
#include <xab/translators/audio.h>

#include <xab/translators/stream.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <unordered_map>
#include <vector>

namespace xab::tr {

bool parseAudioMode(std::string_view s, AudioMode& out) {
  if (s == "send") out = AudioMode::Send;
  else if (s == "sendmix") out = AudioMode::SendMix;
  else if (s == "sendnum") out = AudioMode::SendNum;
  else return false;
  return true;
}

std::uint8_t muLaw(std::int16_t sample) {
  constexpr int kBias = 0x84, kClip = 32635;
  int s = sample;
  int sign = s < 0 ? 0x80 : 0;
  if (s < 0) s = -s;
  s = std::min(s, kClip) + kBias;
  int exponent = 7;
  for (int mask = 0x4000; !(s & mask) && exponent > 0; --exponent, mask >>= 1) {}
  int mantissa = (s >> (exponent + 3)) & 0x0F;
  return static_cast<std::uint8_t>(~(sign | (exponent << 4) | mantissa));
}

namespace {

constexpr double kLowPitch = 220, kHighPitch = 1760;  // three octaves
constexpr double kQuietPitch = 40, kQuietLevel = 0.02, kLevel = 0.6;

constexpr std::size_t kWindow = kBcastWindow;  // happenings held to be played in time order

struct Happening {  // a send or a receive of a message
  TimeNs time;
  bool send;
  Tid sender;
  std::int32_t serial;
  std::uint32_t fanout;  // sends: destinations it names
  std::uint64_t order;   // arrival order
  std::int32_t group;    // a bcast's group (AudioWriter::groupNames_), else -1
  // For ties, the order the whole-trace writer used: by sender (task
  // index, serial), a message's receives by receiver.
  std::uint32_t senderIndex, receiverIndex;
};

// The heap's order: the latest on top... of a min-heap, so "greater".
struct Later {
  bool operator()(const Happening& a, const Happening& b) const {
    if (a.time != b.time) return a.time > b.time;
    if (a.send != b.send) return b.send;  // at equal times, sends first
    if (a.senderIndex != b.senderIndex) return a.senderIndex > b.senderIndex;
    if (a.serial != b.serial) return a.serial > b.serial;
    if (a.receiverIndex != b.receiverIndex) return a.receiverIndex > b.receiverIndex;
    return a.order > b.order;
  }
};

class Synth {
 public:
  Synth(const AudioOptions& o, Sink& out) : o_(o), out_(out) {}

  double taskPitch(TaskIndex t) const {
    int nb = std::max(1, o_.nb);
    return kLowPitch * std::pow(kHighPitch / kLowPitch, static_cast<double>(t % static_cast<TaskIndex>(nb)) / nb);
  }

  // Messages in flight per sending task.  A receive comes here only after
  // its send (AudioWriter::play).
  void apply(const TraceStream& s, const Happening& h) {
    TaskIndex t = *s.find(h.sender);
    if (t >= perSender_.size()) {
      perSender_.resize(t + 1, 0);
      lastSerial_.resize(t + 1, 0);
    }
    if (h.send) {
      perSender_[t] += h.fanout;
      inFlight_ += h.fanout;
      lastSerial_[t] = std::max(lastSerial_[t], h.serial);
    } else if (perSender_[t] > 0) {
      --perSender_[t];
      --inFlight_;
    }
  }

  // True once the send of (sender, serial) has been applied.
  bool sent(const TraceStream& s, Tid sender, std::int32_t serial) const {
    std::optional<TaskIndex> t = s.find(sender);
    return t && *t < lastSerial_.size() && serial <= lastSerial_[*t];
  }

  // The sound of the current state: a chord (sendmix), a pitch (sendnum).
  void state() {
    std::vector<double> f;
    if (o_.mode == AudioMode::SendMix) {
      for (TaskIndex t = 0; t < perSender_.size(); ++t)
        if (perSender_[t]) f.push_back(taskPitch(t));
    } else if (inFlight_ > 0) {
      int nb = std::max(1, o_.nb);
      f.push_back(kHighPitch * static_cast<double>(std::min<std::uint64_t>(inFlight_, static_cast<std::uint64_t>(nb))) / nb);
    }
    if (f.empty()) quiet();
    else tone(f, kLevel);
  }
  void beep(TaskIndex sender) { tone({taskPitch(sender)}, kLevel); }
  void quiet() { tone({kQuietPitch}, kQuietLevel); }

  std::uint64_t samples() const { return n_; }

 private:
  // `length` samples of the sum of sines, faded in and out so sounds do
  // not click; the phase follows the global sample count.
  void tone(const std::vector<double>& freqs, double level) {
    const int len = o_.length;
    const int fade = std::max(1, std::min(40, len / 4));
    const double amp = level * 32767.0 / static_cast<double>(freqs.size());
    for (int i = 0; i < len; ++i, ++n_) {
      double v = 0;
      for (double f : freqs) v += std::sin(2 * std::numbers::pi * f * static_cast<double>(n_) / kSampleRate);
      double env = std::min({1.0, (i + 1.0) / fade, (len - i) / static_cast<double>(fade)});
      put(static_cast<std::int16_t>(std::lround(v * amp * env)));
    }
  }
  void put(std::int16_t s) {
    if (o_.format == AudioFormat::Au) {
      out_.put(static_cast<char>(muLaw(s)));
    } else {
      auto u = static_cast<std::uint16_t>(s);
      out_.put(static_cast<char>(u & 0xff));
      out_.put(static_cast<char>(u >> 8));
    }
  }

  const AudioOptions& o_;
  Sink& out_;
  std::vector<std::uint64_t> perSender_;
  std::vector<std::int32_t> lastSerial_;
  std::uint64_t inFlight_ = 0;
  std::uint64_t n_ = 0;
};

std::string be32(std::uint32_t v) { return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)}; }
std::string le32(std::uint32_t v) { return {char(v), char(v >> 8), char(v >> 16), char(v >> 24)}; }
std::string le16(std::uint16_t v) { return {char(v), char(v >> 8)}; }

constexpr std::uint32_t kUnknownSize = 0xffffffff;  // Sun's AUDIO_UNKNOWN_SIZE; a streamed WAV's too

// The header; `samples` is kUnknownSize until the end is known.
void header(Sink& out, AudioFormat f, std::uint32_t samples) {
  const bool known = samples != kUnknownSize;
  if (f == AudioFormat::Au) {
    out.put(".snd");
    out.put(be32(24));          // data offset
    out.put(be32(samples));     // data bytes
    out.put(be32(1));           // 8-bit G.711 mu-law
    out.put(be32(kSampleRate));
    out.put(be32(1));           // channels
    return;
  }
  std::uint32_t bytes = known ? samples * 2 : kUnknownSize;
  out.put("RIFF");
  out.put(le32(known ? 36 + bytes : kUnknownSize));
  out.put("WAVEfmt ");
  out.put(le32(16));
  out.put(le16(1));  // PCM
  out.put(le16(1));  // mono
  out.put(le32(kSampleRate));
  out.put(le32(kSampleRate * 2));
  out.put(le16(2));
  out.put(le16(16));
  out.put("data");
  out.put(le32(bytes));
}

// The sizes, once known, where the output allows going back.
void patchHeader(Sink& out, AudioFormat f, std::uint64_t samples) {
  if (f == AudioFormat::Au) {
    out.patch(8, be32(static_cast<std::uint32_t>(samples)));
    return;
  }
  auto bytes = static_cast<std::uint32_t>(samples * 2);
  out.patch(4, le32(36 + bytes));
  out.patch(40, le32(bytes));
}

bool interesting(const AudioOptions& o, const Happening& h) { return h.send || o.mode != AudioMode::Send; }

class AudioWriter final : public StreamWriter {
 public:
  AudioWriter(const AudioOptions& o, Sink& out) : o_(o), out_(out), synth_(o, out) {
    if (o.nb < 1 || o.length < 1 || o.scaleUs < 1) {
      s_.error = "nb, length and scale must be positive";
      return;
    }
    // Sizes are known at the end: a pipe gets "unknown", a file the real ones.
    header(out_, o.format, kUnknownSize);
    const std::uint64_t perSample = o.format == AudioFormat::Wav ? 2 : 1;
    limit_ = std::min<std::uint64_t>(o.maxSamples, (UINT32_MAX - 44) / perSample);
  }

  void record(TraceStream& s, const Record& r) override {
    if (!s_.error.empty()) return;
    const Event& e = r.e;
    groups_.record(s, r);
    if (sentMessage(e)) {
      // A bcast's destinations are counted when it is played, a window of
      // records later (GroupMembers).
      std::string group = bcastGroup(r);
      std::int32_t g = -1;
      if (!group.empty()) {
        auto [it, fresh] = groupIds_.try_emplace(group, static_cast<std::int32_t>(groupNames_.size()));
        if (fresh) groupNames_.push_back(group);
        g = it->second;
      }
      auto n = static_cast<std::uint32_t>(namedDestinations(r.trace, e).size());
      push(s, {e.time, true, s.task(r.task).tid, e.get(Key::Serial), n, order_++, g, r.task, 0});
    } else if (isGotMessage(e)) {
      std::optional<TaskIndex> sender = s.find(e.get(Key::Src));
      push(s, {e.time, false, e.get(Key::Src), e.get(Key::Serial), 0, order_++, -1, sender.value_or(UINT32_MAX), r.task});
    }
  }

  void end(TraceStream& s) override {
    while (!heap_.empty() && s_.error.empty()) pop(s);
    if (!s_.error.empty()) return;
    advanceTo(stepOf(s, s.lastTime()));
    if (!s_.error.empty()) return;
    if (!sounded_) silentStep();
    s_.steps = step_ + 1;
    s_.samples = synth_.samples();
    patchHeader(out_, o_.format, s_.samples);
  }

  const AudioStats& stats() const { return s_; }

 private:
  // Happenings wait in a heap of kWindow so that tasks whose records reach
  // abmon in batches are still heard in time order; beyond the window, a
  // late one is heard at the current step.
  void push(const TraceStream& s, const Happening& h) {
    heap_.push_back(h);
    std::push_heap(heap_.begin(), heap_.end(), Later{});
    if (heap_.size() > kWindow) pop(s);
  }
  void pop(const TraceStream& s) {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    Happening h = heap_.back();
    heap_.pop_back();
    play(s, h);
  }

  std::uint64_t stepOf(const TraceStream& s, TimeNs t) const {
    return static_cast<std::uint64_t>(std::max<TimeNs>(0, t - s.origin()) / (o_.scaleUs * 1000));
  }

  // A receive whose send has not been played yet (the receiver's clock is
  // behind, or the send was read later) waits for it, and is heard right
  // after it; one whose send never comes is not heard.
  void play(const TraceStream& s, Happening h) {
    if (!h.send && !synth_.sent(s, h.sender, h.serial)) {
      deferred_[key(h.sender, h.serial)].push_back(h);
      return;
    }
    if (h.group >= 0)
      h.fanout = static_cast<std::uint32_t>(groups_.others(groupNames_[static_cast<std::size_t>(h.group)], h.sender).size());
    advanceTo(std::max(step_, stepOf(s, h.time)));
    sound(s, h);
    if (!h.send) return;
    auto it = deferred_.find(key(h.sender, h.serial));
    if (it == deferred_.end()) return;
    std::vector<Happening> waiting = std::move(it->second);
    deferred_.erase(it);
    std::sort(waiting.begin(), waiting.end(), [](const Happening& a, const Happening& b) { return Later{}(b, a); });
    for (const Happening& r : waiting) sound(s, r);
  }

  void sound(const TraceStream& s, const Happening& h) {
    if (!s_.error.empty()) return;
    synth_.apply(s, h);
    if (!interesting(o_, h)) return;
    if (!room(1)) return;
    sounded_ = true;
    ++s_.sounds;
    if (o_.mode == AudioMode::Send) synth_.beep(*s.find(h.sender));
    else synth_.state();
  }

  static std::uint64_t key(Tid sender, std::int32_t serial) {
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(sender)) << 32 | static_cast<std::uint32_t>(serial);
  }

  // Steps with no event: a quiet tone, or the chord or pitch held.
  void silentStep() {
    if (o_.mode == AudioMode::Send) synth_.quiet();
    else synth_.state();
  }
  void advanceTo(std::uint64_t k) {
    if (k <= step_) return;
    if (!room(k - step_)) return;
    for (; step_ < k; ++step_, sounded_ = false)
      if (!sounded_) silentStep();
  }
  // Refuses a sound that would grow past the limit, before writing it.
  bool room(std::uint64_t sounds) {
    const auto len = static_cast<std::uint64_t>(o_.length);
    if (sounds <= (limit_ - std::min(limit_, synth_.samples())) / len) return true;
    s_.error = "the sound would last more than " + std::to_string(limit_ / kSampleRate / 60) +
               " minutes; raise scale or lower length";
    return false;
  }

  const AudioOptions& o_;
  Sink& out_;
  Synth synth_;
  GroupMembers groups_;
  std::vector<std::string> groupNames_;
  std::unordered_map<std::string, std::int32_t> groupIds_;
  std::vector<Happening> heap_;
  std::unordered_map<std::uint64_t, std::vector<Happening>> deferred_;  // receives waiting for their send
  std::uint64_t order_ = 0, step_ = 0, limit_ = 0;
  bool sounded_ = false;
  AudioStats s_;
};

}  // namespace

struct AudioStream::Impl {
  Impl(const AudioOptions& o, Sink& out) : options(o), writer(options, out), stream(writer) {}
  AudioOptions options;
  AudioWriter writer;
  TraceStream stream;
};

AudioStream::AudioStream(const AudioOptions& o, Sink& out) : impl_(std::make_unique<Impl>(o, out)) {}
AudioStream::~AudioStream() = default;
TraceStream& AudioStream::stream() { return impl_->stream; }
const std::string& AudioStream::error() const { return impl_->writer.stats().error; }
AudioStats AudioStream::finish() {
  if (error().empty()) impl_->stream.finish();
  return impl_->writer.stats();
}

AudioStats writeAudio(const Trace& trace, const AudioOptions& o, Sink& out) {
  AudioStream a(o, out);
  if (!a.error().empty()) return a.finish();
  a.stream().feed(trace);
  return a.finish();
}

}  // namespace xab::tr
