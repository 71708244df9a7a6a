// xab/translators/audio.h -- traces you can listen to, after PIMSY's
// AudioTrace programs (Peterschmitt, Tourancheau, Vigouroux, §4.5):
//   send     a beep at the sending task's own pitch for each send
//   sendmix  a chord of the tasks with messages sent and not yet received
//   sendnum  a pitch proportional to the number of messages in flight
// Replay time starts at the trace's first record and advances `scale`
// microseconds of traced time per step; a step with k interesting events
// gives k sounds of `length` samples, a step with none gives `length`
// samples of a quiet low tone (sendmix and sendnum hold the current chord
// or pitch instead, while messages are in flight).  So the sound lasts
// about (run time / scale) * length / 8000 seconds: proportional to the run.
#pragma once

#include <xab/translators/io.h>
#include <xab/translators/stream.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace xab::tr {

enum class AudioMode { Send, SendMix, SendNum };
enum class AudioFormat { Au, Wav };  // Sun .au: 8-bit mu-law; .wav: 16-bit PCM

inline constexpr int kSampleRate = 8000;

struct AudioOptions {
  AudioMode mode = AudioMode::Send;
  int nb = 8;                    // pitches: tasks (send, sendmix) or messages (sendnum)
  int length = 400;              // samples per sound (400 = 50 ms)
  std::int64_t scaleUs = 10000;  // traced microseconds per step
  AudioFormat format = AudioFormat::Au;
  std::uint64_t maxSamples = std::uint64_t{kSampleRate} * 3600 * 4;  // refuse more than 4 hours
};

struct AudioStats {
  std::string error;          // "" on success
  std::uint64_t steps = 0;
  std::uint64_t sounds = 0;   // event sounds (not quiet or held steps)
  std::uint64_t samples = 0;
  double seconds() const { return static_cast<double>(samples) / kSampleRate; }
};

// "send", "sendmix", "sendnum"; false for anything else.
bool parseAudioMode(std::string_view s, AudioMode& out);

// Streams sound to `out` as records are fed to stream(); finish() fills in
// the header's sizes when `out` can go back (a file, a captured string).
// error() is set at once for bad options, or as soon as the sound would
// pass maxSamples; feeding then does nothing more.
class AudioStream {
 public:
  AudioStream(const AudioOptions& o, Sink& out);
  ~AudioStream();
  TraceStream& stream();
  const std::string& error() const;
  AudioStats finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A whole trace, through AudioStream.
AudioStats writeAudio(const Trace& trace, const AudioOptions& o, Sink& out);

// G.711 mu-law of a 16-bit sample.
std::uint8_t muLaw(std::int16_t sample);

}  // namespace xab::tr
