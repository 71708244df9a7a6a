// File > Export (export.h): the Cholesky demo trace written in every format
// the translators offer, and each result read back by what reads that
// format: PICL by the translators' reader, JSON by python3, the OTF2
// archive by otf2-print, the .au and .wav headers checked byte by byte.
#include "support.h"

#include "export.h"

#include <xab/test/process.h>
#include <xab/translators/picl.h>

#include <QFile>
#include <QTemporaryDir>

#include <catch2/catch.hpp>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

namespace {

QByteArray contents(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

quint32 be32(const QByteArray& b, int at) {
  auto u = [&](int i) { return static_cast<quint32>(static_cast<unsigned char>(b[at + i])); };
  return u(0) << 24 | u(1) << 16 | u(2) << 8 | u(3);
}
quint32 le32(const QByteArray& b, int at) {
  auto u = [&](int i) { return static_cast<quint32>(static_cast<unsigned char>(b[at + i])); };
  return u(3) << 24 | u(2) << 16 | u(1) << 8 | u(0);
}

// Runs a program; its standard output, or "" when it failed.  The tests'
// fork and exec (xab/test/process.h), not QProcess: Qt starts a child with
// a raw clone(), which clang's ThreadSanitizer runtime aborts on.
QString output(const QString& program, const QStringList& args) {
  std::vector<std::string> argv{program.toStdString()};
  for (const QString& a : args) argv.push_back(a.toStdString());
  xab::test::RunResult r = xab::test::run(argv);
  return r.exit_code == 0 ? QString::fromStdString(r.out) : QString();
}

std::size_t receivedMessages(const ViewSnapshot& s) {
  std::size_t n = 0;
  for (const Message& m : s.messages().messages) n += m.receives.size();
  return n;
}

}  // namespace

TEST_CASE("export: the demo trace in every format, each read back", "[export]") {
  auto s = snapshotOf(dataPath("cholesky_hang.trace"));
  REQUIRE(s->trace->taskCount() == 4);
  QTemporaryDir dir;

  SECTION("PICL reads back with the same tasks") {
    REQUIRE(exportTrace(*s, dir.filePath("demo.trf")).isEmpty());
    LoadResult r = tr::loadPiclFile(dir.filePath("demo.trf").toStdString());
    REQUIRE(r.trace);
    CHECK(r.fatal.empty());
    CHECK(r.trace->taskCount() == 4);
  }

  SECTION("JSON parses, a thread per task, a flow end per received message") {
    REQUIRE(exportTrace(*s, dir.filePath("demo.json")).isEmpty());
    QString summary = output("python3", {"-c",
        "import json,sys; e=json.load(open(sys.argv[1]))['traceEvents'];"
        "print(sum(x['name']=='thread_name' for x in e if x['ph']=='M'), sum(x['ph']=='f' for x in e))",
        dir.filePath("demo.json")});
    CHECK(summary == QString("4 %1\n").arg(receivedMessages(*s)));
  }

#if defined(XAB_HAVE_OTF2) && defined(XAB_OTF2_PRINT)
  SECTION("OTF2: an archive in the directory named, read by otf2-print") {
    QString archive = dir.filePath("demo.otf2");
    REQUIRE(exportTrace(*s, archive).isEmpty());
    CHECK(QFile::exists(archive + "/traces.otf2"));
    QString events = output(XAB_OTF2_PRINT, {archive + "/traces.otf2"});
    REQUIRE_FALSE(events.isEmpty());
    CHECK(events.count("\nMPI_RECV ") == static_cast<qsizetype>(receivedMessages(*s)));
    QString defs = output(XAB_OTF2_PRINT, {"-G", archive + "/traces.otf2"});
    CHECK(defs.count("\nLOCATION ") == 4);
    // An archive is never written over.
    CHECK(exportTrace(*s, archive).contains("already holds an OTF2 archive"));
  }
#endif

  SECTION(".au: Sun's header, mu-law at 8 kHz, the size filled in") {
    REQUIRE(exportTrace(*s, dir.filePath("demo.au")).isEmpty());  // send 8 400 10000
    QByteArray au = contents(dir.filePath("demo.au"));
    REQUIRE(au.size() > 24);
    CHECK(au.left(4) == ".snd");
    CHECK(be32(au, 4) == 24);
    CHECK(be32(au, 8) == static_cast<quint32>(au.size() - 24));
    CHECK(be32(au, 12) == 1);  // 8-bit G.711 mu-law
    CHECK(be32(au, 16) == 8000);
    CHECK(be32(au, 20) == 1);
    CHECK((au.size() - 24) % 400 == 0);  // whole sounds of `length` samples
  }

  SECTION(".wav: sendmix with other settings") {
    SoundOptions o;
    o.mode = "sendmix";
    o.nb = 4;
    o.length = 200;
    o.scaleUs = 5000;
    REQUIRE(exportTrace(*s, dir.filePath("demo.wav"), o).isEmpty());
    QByteArray wav = contents(dir.filePath("demo.wav"));
    REQUIRE(wav.size() > 44);
    CHECK(wav.left(4) == "RIFF");
    CHECK(le32(wav, 4) == static_cast<quint32>(wav.size() - 8));
    CHECK(wav.mid(8, 8) == "WAVEfmt ");
    CHECK(le32(wav, 24) == 8000);
    CHECK(le32(wav, 40) == static_cast<quint32>(wav.size() - 44));
    CHECK((wav.size() - 44) % (2 * 200) == 0);
    o.mode = "beep";
    CHECK(exportTrace(*s, dir.filePath("bad.wav"), o).contains("send, sendmix or sendnum"));
  }

  SECTION("names and dialog filters map to formats") {
    CHECK(exportFormatOf("run.PICL") == ExportFormat::Picl);
    CHECK(exportFormatOf("Chrome trace JSON for Perfetto (*.json)") == ExportFormat::Json);
    CHECK(exportFormatOf("Sound, Sun audio (*.au)") == ExportFormat::Au);
    CHECK(exportFormatOf(dir.path()) == ExportFormat::Otf2);  // an existing directory
    CHECK(exportFormatOf("run.xyz") == ExportFormat::Unknown);
    CHECK(exportTrace(*s, dir.filePath("demo.xyz")).contains("unknown export format"));
    for (const QString& f : exportFilters()) CHECK(exportFormatOf(f) != ExportFormat::Unknown);
  }
}
