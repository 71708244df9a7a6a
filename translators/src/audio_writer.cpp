// ab2au's core (docs/translators.md, "ab2au").  The interesting events are
// the sends and receives of matched messages, in time order; the sound is
// generated step by step and written as it goes, after a header whose size
// is known beforehand (so a pipe into a player gets a valid file).
#include <xab/translators/audio.h>

#include <xab/model/messages.h>

#include <algorithm>
#include <cmath>
#include <numbers>
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

struct Happening {  // a send or a receive of a matched message
  TimeNs time;
  bool send;
  TaskIndex sender;
  std::uint32_t inFlight;  // sends: how many receives it will have
};

std::vector<Happening> happenings(const Trace& trace) {
  std::vector<Happening> out;
  for (const Message& m : matchMessages(trace).messages) {
    auto n = static_cast<std::uint32_t>(m.receives.size() + m.unreceived.size());
    out.push_back({m.time, true, m.sender, n});
    // A receive the receiver's clock puts before the send is heard after it.
    for (const MessageReceive& r : m.receives) out.push_back({std::max(r.time, m.time), false, m.sender, 0});
  }
  std::stable_sort(out.begin(), out.end(), [](const Happening& a, const Happening& b) {
    return a.time != b.time ? a.time < b.time : a.send > b.send;
  });
  return out;
}

class Synth {
 public:
  Synth(const AudioOptions& o, Sink& out, std::size_t tasks) : o_(o), out_(out), perSender_(tasks, 0) {}

  double taskPitch(TaskIndex t) const {
    int nb = std::max(1, o_.nb);
    return kLowPitch * std::pow(kHighPitch / kLowPitch, static_cast<double>(t % static_cast<TaskIndex>(nb)) / nb);
  }

  void apply(const Happening& h) {
    if (h.send) {
      perSender_[h.sender] += h.inFlight;
      inFlight_ += h.inFlight;
    } else if (perSender_[h.sender] > 0) {
      --perSender_[h.sender];
      --inFlight_;
    }
  }

  // The sound of the current state: a chord (sendmix), a pitch (sendnum).
  void state() {
    std::vector<double> f;
    if (o_.mode == AudioMode::SendMix) {
      for (TaskIndex t = 0; t < perSender_.size(); ++t)
        if (perSender_[t]) f.push_back(taskPitch(t));
    } else if (inFlight_ > 0) {
      int nb = std::max(1, o_.nb);
      f.push_back(kHighPitch * std::min<std::uint64_t>(inFlight_, static_cast<std::uint64_t>(nb)) / nb);
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
  std::uint64_t inFlight_ = 0;
  std::uint64_t n_ = 0;
};

void be32(Sink& out, std::uint32_t v) {
  char b[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
  out.put(std::string_view(b, 4));
}
void le32(Sink& out, std::uint32_t v) {
  char b[4] = {char(v), char(v >> 8), char(v >> 16), char(v >> 24)};
  out.put(std::string_view(b, 4));
}
void le16(Sink& out, std::uint16_t v) {
  char b[2] = {char(v), char(v >> 8)};
  out.put(std::string_view(b, 2));
}

void header(Sink& out, AudioFormat f, std::uint64_t samples) {
  if (f == AudioFormat::Au) {
    out.put(".snd");
    be32(out, 24);                                    // data offset
    be32(out, static_cast<std::uint32_t>(samples));   // data bytes
    be32(out, 1);                                     // 8-bit G.711 mu-law
    be32(out, kSampleRate);
    be32(out, 1);                                     // channels
    return;
  }
  auto bytes = static_cast<std::uint32_t>(samples * 2);
  out.put("RIFF");
  le32(out, 36 + bytes);
  out.put("WAVEfmt ");
  le32(out, 16);
  le16(out, 1);  // PCM
  le16(out, 1);  // mono
  le32(out, kSampleRate);
  le32(out, kSampleRate * 2);
  le16(out, 2);
  le16(out, 16);
  out.put("data");
  le32(out, bytes);
}

bool interesting(const AudioOptions& o, const Happening& h) { return h.send || o.mode != AudioMode::Send; }

}  // namespace

AudioStats writeAudio(const Trace& trace, const AudioOptions& o, Sink& out) {
  AudioStats s;
  if (o.nb < 1 || o.length < 1 || o.scaleUs < 1) {
    s.error = "nb, length and scale must be positive";
    return s;
  }
  std::vector<Happening> hs = happenings(trace);
  const TimeNs origin = trace.firstTime(), scale = o.scaleUs * 1000;
  const std::uint64_t steps = static_cast<std::uint64_t>(std::max<TimeNs>(0, trace.lastTime() - origin) / scale) + 1;
  // Step k (from 0) holds the events with time - origin in [k*scale, (k+1)*scale).
  auto stepOf = [&](const Happening& h) { return static_cast<std::uint64_t>(std::max<TimeNs>(0, h.time - origin) / scale); };
  std::uint64_t sounds = 0;
  for (const Happening& h : hs) sounds += interesting(o, h);
  std::uint64_t stepsWithSound = 0, lastStep = UINT64_MAX;
  for (const Happening& h : hs)
    if (interesting(o, h) && stepOf(h) != lastStep) ++stepsWithSound, lastStep = stepOf(h);
  const std::uint64_t total = (sounds + steps - stepsWithSound) * static_cast<std::uint64_t>(o.length);
  if (total > o.maxSamples || total * (o.format == AudioFormat::Wav ? 2 : 1) >= UINT32_MAX) {
    s.error = "the sound would last " + std::to_string(total / kSampleRate / 60) +
              " minutes; raise scale or lower length";
    return s;
  }
  header(out, o.format, total);
  Synth synth(o, out, trace.taskCount());
  std::size_t next = 0;
  for (std::uint64_t k = 0; k < steps; ++k) {
    bool sounded = false;
    for (; next < hs.size() && stepOf(hs[next]) == k; ++next) {
      const Happening& h = hs[next];
      synth.apply(h);
      if (!interesting(o, h)) continue;
      sounded = true;
      ++s.sounds;
      if (o.mode == AudioMode::Send) synth.beep(h.sender);
      else synth.state();
    }
    if (!sounded) {
      if (o.mode == AudioMode::Send) synth.quiet();
      else synth.state();
    }
  }
  s.steps = steps;
  s.samples = synth.samples();
  return s;
}

}  // namespace xab::tr
