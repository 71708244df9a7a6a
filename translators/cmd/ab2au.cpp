// ab2au -- a trace you can listen to, as PIMSY's tr_send, tr_sendmix and
// tr_sendnum made them:  ab2au MODE nb length scale < evfile > out.au
#include <xab/translators/audio.h>
#include <xab/translators/cli.h>
#include <xab/translators/io.h>

#include <charconv>
#include <cstdio>

using namespace xab::tr;

namespace {

template <class T>
bool positive(const std::string& s, T& v) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && v > 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool quiet = false, wav = false;
  CliSpec spec{
      "ab2au", "MODE nb length scale [options] [INPUT|-]",
      "Turns a trace into sound (PIMSY's audio tools).  MODE is send (a beep at a task's own pitch\n"
      "when it sends), sendmix (a chord of the tasks with messages sent and not yet received) or\n"
      "sendnum (pitch proportional to the number of messages in flight).  nb: how many pitches\n"
      "(tasks for send/sendmix, messages for sendnum); length: samples per sound at 8000 Hz;\n"
      "scale: traced microseconds per replay step.  Writes a Sun .au file (mu-law, 8 kHz) to\n"
      "standard output, or a 16-bit .wav with -o FILE.wav (or --wav).",
      "write to OUTPUT; a name ending in .wav gives a WAV file",
      5,
      {{"--wav", "", "write WAV (16-bit PCM) even to standard output", [&](std::string_view) { wav = true; return std::string(); }},
       {"--quiet", "", "no summary on stderr", [&](std::string_view) { quiet = true; return std::string(); }}}};
  CommonArgs args;
  if (int rc = parseCommandLine(argc, argv, spec, args); rc >= 0) return rc;
  auto bad = [](const std::string& why) {
    std::fprintf(stderr, "ab2au: %s\nTry 'ab2au --help'.\n", why.c_str());
    return kExitUsage;
  };
  if (args.positional.size() < 4) return bad("needs MODE nb length scale (e.g. ab2au send 8 400 10000 < run.trace > run.au)");
  AudioOptions o;
  if (!parseAudioMode(args.positional[0], o.mode)) return bad("MODE must be send, sendmix or sendnum, not '" + args.positional[0] + "'");
  if (!positive(args.positional[1], o.nb)) return bad("nb must be a positive integer");
  if (!positive(args.positional[2], o.length)) return bad("length must be a positive number of samples");
  if (!positive(args.positional[3], o.scaleUs)) return bad("scale must be a positive number of microseconds");
  if (args.positional.size() == 5) args.input = args.positional[4];
  if (wav || args.output.ends_with(".wav")) o.format = AudioFormat::Wav;
  Sink out;
  if (std::string err = out.open(args.output); !err.empty()) return bad(err);
  if (out.isTerminal()) return bad("will not write sound to a terminal: redirect it (> out.au) or use -o FILE");
  AudioStream audio(o, out);
  if (int rc = streamInput({args.input, "ab2au", args.lenient, args.progress, !args.rawTime, args.compensate, args.replayOf}, audio.stream()); rc != kExitOk)
    return rc;
  AudioStats s = audio.finish();
  if (!s.error.empty()) {
    std::fprintf(stderr, "ab2au: %s\n", s.error.c_str());
    return kExitUsage;
  }
  if (std::string err = out.finish(); !err.empty()) {
    std::fprintf(stderr, "ab2au: %s\n", err.c_str());
    return kExitUsage;
  }
  if (!quiet)
    std::fprintf(stderr, "ab2au: %.2f s of sound (%llu steps, %llu event sounds)\n", s.seconds(),
                 static_cast<unsigned long long>(s.steps), static_cast<unsigned long long>(s.sounds));
  return kExitOk;
}
