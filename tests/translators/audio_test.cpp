// ab2au: .au and .wav headers, sample rate, duration (proportional to the
// run), what each mode sounds like, mu-law, and the command line.
#include "support.h"

#include <xab/translators/audio.h>

#include <catch2/catch.hpp>

#include <cstdlib>

using namespace xab;
using namespace xab::tr;
using namespace xab::tr::test;

namespace {

std::string toAudio(const Trace& t, AudioOptions o, AudioStats* stats = nullptr) {
  std::string bytes;
  Sink sink;
  sink.captureTo(&bytes);
  AudioStats s = writeAudio(t, o, sink);
  sink.finish();
  REQUIRE(s.error.empty());
  if (stats) *stats = s;
  return bytes;
}

std::uint32_t be32(const std::string& b, std::size_t at) {
  auto u = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + i])); };
  return u(0) << 24 | u(1) << 16 | u(2) << 8 | u(3);
}
std::uint32_t le32(const std::string& b, std::size_t at) {
  auto u = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + i])); };
  return u(3) << 24 | u(2) << 16 | u(1) << 8 | u(0);
}
int le16s(const std::string& b, std::size_t at) {
  return static_cast<std::int16_t>(static_cast<unsigned char>(b[at]) | static_cast<unsigned char>(b[at + 1]) << 8);
}

// Loudest sample of each `length`-sample sound of a WAV body.
std::vector<int> peaks(const std::string& wav, int length) {
  std::vector<int> out;
  const std::size_t n = (wav.size() - 44) / 2;
  for (std::size_t s = 0; s + static_cast<std::size_t>(length) <= n; s += static_cast<std::size_t>(length)) {
    int peak = 0;
    for (int i = 0; i < length; ++i) peak = std::max(peak, std::abs(le16s(wav, 44 + 2 * (s + static_cast<std::size_t>(i)))));
    out.push_back(peak);
  }
  return out;
}

}  // namespace

TEST_CASE("ab2au writes a valid Sun .au header, and the golden", "[audio]") {
  auto t = loadData("pingpong.trace");
  AudioOptions o;
  o.mode = AudioMode::Send;
  o.nb = 2;
  o.length = 400;
  o.scaleUs = 10000;
  AudioStats s;
  std::string au = toAudio(*t, o, &s);
  REQUIRE(au.size() >= 24);
  CHECK(au.substr(0, 4) == ".snd");
  CHECK(be32(au, 4) == 24);            // data offset
  CHECK(be32(au, 8) == au.size() - 24);  // data size
  CHECK(be32(au, 12) == 1);            // mu-law
  CHECK(be32(au, 16) == 8000);
  CHECK(be32(au, 20) == 1);
  // 140 ms traced / 10 ms per step = 15 steps; 4 sends in 4 steps:
  // 4 beeps + 11 quiet steps of 400 samples.
  CHECK(s.steps == 15);
  CHECK(s.sounds == 4);
  CHECK(s.samples == 15 * 400);
  CHECK(s.seconds() == Approx(0.75));
  checkGolden("pingpong-send.au", au);
}

TEST_CASE("ab2au: the sound's length is proportional to the run's", "[audio]") {
  auto t = loadData("collective.trace");
  AudioOptions o;
  o.mode = AudioMode::Send;
  o.length = 80;
  o.scaleUs = 1000;
  AudioStats coarse, fine;
  toAudio(*t, o, &coarse);
  o.scaleUs = 500;
  toAudio(*t, o, &fine);
  // 100 ms traced: 101 steps at 1 ms, 201 at 0.5 ms; 2 sends each.
  CHECK(coarse.steps == 101);
  CHECK(fine.steps == 201);
  CHECK(coarse.samples == 101 * 80);
  CHECK(fine.samples == 201 * 80);
}

TEST_CASE("ab2au modes: beeps for sends, chords and counts of messages in flight", "[audio]") {
  auto t = loadData("collective.trace");
  AudioOptions o;
  o.format = AudioFormat::Wav;
  o.length = 400;
  o.scaleUs = 5000;
  o.nb = 4;
  for (AudioMode m : {AudioMode::Send, AudioMode::SendMix, AudioMode::SendNum}) {
    o.mode = m;
    AudioStats s;
    std::string wav = toAudio(*t, o, &s);
    CHECK(wav.substr(0, 4) == "RIFF");
    CHECK(wav.substr(8, 8) == "WAVEfmt ");
    CHECK(le32(wav, 24) == 8000);
    CHECK(le32(wav, 40) == s.samples * 2);
    CHECK(wav.size() == 44 + s.samples * 2);
    std::vector<int> p = peaks(wav, o.length);
    REQUIRE(p.size() == s.samples / 400);
    // Step 0 (0-5 ms) has no message: a quiet tone.  The mcast at 10 ms is
    // step 2, the first sound of it is loud.
    CHECK(p[0] < 1000);
    CHECK(p[2] > 10000);
    if (m == AudioMode::Send) CHECK(s.sounds == 2);   // the mcast and the bcast
    else CHECK(s.sounds == 2 + 6);                    // and the 6 receives
  }
}

TEST_CASE("ab2au: mu-law encodes the G.711 way", "[audio]") {
  CHECK(muLaw(0) == 0xFF);
  CHECK(muLaw(32767) == 0x80);
  CHECK(muLaw(-32768) == 0x00);
  CHECK(muLaw(-1) == 0x7F);
  CHECK(muLaw(1000) == 0xCE);
}

TEST_CASE("ab2au: the command as the paper's tools were used", "[audio][cli]") {
  std::string dir = tempDir();
  Run r = run(binPath("ab2au") + " send 2 400 10000 < " + dataPath("pingpong.trace") + " > " + dir + "/out.au");
  CHECK(r.exit == 0);
  CHECK_THAT(r.err, Catch::Contains("0.75 s of sound"));
  CHECK(readFile(dir + "/out.au") == readFile(dataPath("golden/pingpong-send.au")));
  r = run(binPath("ab2au") + " sendnum 8 400 10000 -o " + dir + "/out.wav " + dataPath("pingpong.trace"));
  CHECK(r.exit == 0);
  CHECK(readFile(dir + "/out.wav").substr(0, 4) == "RIFF");
  r = run(binPath("ab2au") + " --quiet sendmix 2 400 10000 " + dataPath("pingpong.trace") + " | head -c 4");
  CHECK(r.out == ".snd");
  r = run(binPath("ab2au") + " beep 2 400 10000 < " + dataPath("pingpong.trace"));
  CHECK(r.exit == kExitUsage);
  CHECK_THAT(r.err, Catch::Contains("MODE must be send, sendmix or sendnum"));
  r = run(binPath("ab2au") + " send 2 0 10000 < " + dataPath("pingpong.trace"));
  CHECK(r.exit == kExitUsage);
  CHECK_THAT(r.err, Catch::Contains("length must be"));
  r = run(binPath("ab2au") + " send 2 400 10000 " + dataPath("malformed.trace") + " > /dev/null");
  CHECK(r.exit == kExitBadInput);
  CHECK_THAT(r.err, Catch::Contains("malformed.trace:4: bad receive time"));
  r = run(binPath("ab2au") + " send 2 400000 1 " + dataPath("pingpong.trace") + " > /dev/null");
  CHECK(r.exit == kExitUsage);
  CHECK_THAT(r.err, Catch::Contains("raise scale"));
}
