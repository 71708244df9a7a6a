// End-to-end export: a real demo run recorded by abmon in a private PVM,
// then `xabview --play-to-end --export FILE evfile` in every format, and
// each result read back by what reads that format -- the PICL file by
// xabview itself (it opens PICL), the JSON by python3, the OTF2 archive by
// otf2-print, the .au header byte by byte.
#include "xab/test/private_vm.h"
#include "xab/test/process.h"
#include "xab/test/records.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace xab::test;
namespace fs = std::filesystem;


namespace {

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::uint32_t be32(const std::string& b, std::size_t at) {
  auto u = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + i])); };
  return u(0) << 24 | u(1) << 16 | u(2) << 8 | u(3);
}

std::size_t countOf(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t p = 0; (p = text.find(needle, p)) != std::string::npos; p += needle.size()) ++n;
  return n;
}

// xabview, scripted and headless.
RunResult xabview(const std::vector<std::string>& args) {
  std::vector<std::string> argv{XAB_XABVIEW};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, {{"QT_QPA_PLATFORM", "offscreen"}}, std::chrono::seconds(120));
}

}  // namespace

TEST_CASE("a demo run exported by xabview in every format, each read back", "[xabview][e2e][pvm][export]") {
  auto& vm = PrivateVm::shared();
  const std::string dir = vm.dir() + "/export";
  fs::create_directories(dir);
  const std::string evfile = dir + "/evfile";
  Monitor mon(evfile);
  auto demo = run({bin_dir() + "/xabdemo", "-n", "3", "--rounds", "3"}, {}, std::chrono::seconds(120));
  REQUIRE(demo.exit_code == 0);
  REQUIRE(mon.wait_exits(4));
  // Receives that got a message from a traced sender (a serial).
  std::size_t receives = 0;
  for (const Record& r : mon.finish()) {
    bool in = r.event == "recv" || r.event == "trecv" || r.event == "nrecv" || r.event == "precv";
    std::string rc = r.get("rc"), serial = r.get("serial");
    receives += in && rc != "<none>" && std::stol(rc) > 0 && serial != "<none>" && serial != "0";
  }
  REQUIRE(receives >= 3 * 3 * 2);

  for (const char* name : {"demo.trf", "demo.json", "demo.au", "demo.otf2"}) {
    INFO(name);
    auto r = xabview({"--play-to-end", "--export", dir + "/" + name, evfile});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
  }

  // PICL: xabview opens it; the same four tasks.
  auto picl = xabview({"--play-to-end", "--dump-state", dir + "/picl.json", dir + "/demo.trf"});
  REQUIRE(picl.exit_code == 0);
  QJsonObject state = QJsonDocument::fromJson(QByteArray::fromStdString(contents(dir + "/picl.json"))).object();
  CHECK(state["tasks"].toArray().size() == 4);

  // JSON: parses; a flow end per received message, a thread per task.
  auto json = run({"python3", "-c",
                   "import json,sys; e=json.load(open(sys.argv[1]))['traceEvents'];"
                   "print(sum(x['ph']=='f' for x in e), sum(x['ph']=='M' and x['name']=='thread_name' for x in e))",
                   dir + "/demo.json"});
  REQUIRE(json.exit_code == 0);
  CHECK(json.out == std::to_string(receives) + " 4\n");

  // Sound: a valid Sun header, its size filled in.
  std::string au = contents(dir + "/demo.au");
  REQUIRE(au.size() > 24);
  CHECK(au.substr(0, 4) == ".snd");
  CHECK(be32(au, 8) == au.size() - 24);
  CHECK(be32(au, 12) == 1);
  CHECK(be32(au, 16) == 8000);

#ifdef XAB_OTF2_PRINT
  // OTF2: otf2-print reads the archive; a receive per received message.
  auto otf2 = run({XAB_OTF2_PRINT, dir + "/demo.otf2/traces.otf2"});
  REQUIRE(otf2.exit_code == 0);
  CHECK(countOf(otf2.out, "\nMPI_RECV ") == receives);
#endif
}

