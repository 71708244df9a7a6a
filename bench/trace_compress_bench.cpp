// trace_compress_bench: what zstd costs and saves on a trace.  Writes the
// given plain trace again through abmon's own output (abmon/src/
// trace_output.cpp), as it is and zstd-compressed, in 64 KiB writes as
// abmon's batches come, then reads both back with xab::loadTraceFile from
// the page cache.  Reports bytes per record on disk and MB/s of trace text
// (CPU time) for each.
//
//   trace_compress_bench TRACE      (bench/model_read_bench --file TRACE --keep writes one)
#include <xab/model/model.h>

#include <boost/asio/io_context.hpp>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/stat.h>

#include "bench_util.h"
#include "trace_output.h"

namespace {

double cpuSeconds() { return static_cast<double>(bench_cpu_ns()) / 1e9; }

long long fileSize(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<long long>(st.st_size) : -1;
}

// Seconds of CPU to write `text` to `path` through abmon's output.
double write(const std::string& text, const std::string& path, bool zstd) {
  boost::asio::io_context io;
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return -1;
  double t0 = cpuSeconds();
  {
    xab::abmon::TraceOutput out(io, f, zstd);
    for (std::size_t at = 0; at < text.size(); at += 64 * 1024)
      if (!out.write(std::string_view(text).substr(at, 64 * 1024))) return -1;
    if (!out.close()) return -1;
  }
  std::fclose(f);
  return cpuSeconds() - t0;
}

double read(const std::string& path, std::uint64_t& events) {
  double t0 = cpuSeconds();
  xab::LoadResult r = xab::loadTraceFile(path);
  double took = cpuSeconds() - t0;
  events = r.trace ? r.trace->eventCount() : 0;
  return r.errors.empty() && r.fatal.empty() ? took : -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: trace_compress_bench TRACE\n");
    return 1;
  }
  std::ifstream in(argv[1], std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::uint64_t records = 0;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t nl = text.find('\n', at);
    if (text[at] != '#') ++records;
    at = nl == std::string::npos ? text.size() : nl + 1;
  }
  if (records == 0) {
    std::fprintf(stderr, "trace_compress_bench: %s: no records\n", argv[1]);
    return 1;
  }
  const double mb = static_cast<double>(text.size()) / 1e6;
  std::printf("%s: %llu records, %.1f MB of text\n", argv[1], static_cast<unsigned long long>(records), mb);
  std::printf("%-6s %12s %10s %14s %14s\n", "", "bytes", "B/record", "write MB/s", "read MB/s");
  const std::string base = std::string(argv[1]) + ".bench";
  for (bool zstd : {false, true}) {
    const std::string path = base + (zstd ? ".zst" : "");
    double w = write(text, path, zstd);
    std::uint64_t events = 0;
    double r = read(path, events);
    long long bytes = fileSize(path);
    std::remove(path.c_str());
    if (w < 0 || r < 0 || bytes < 0) {
      std::fprintf(stderr, "trace_compress_bench: %s failed\n", path.c_str());
      return 1;
    }
    std::printf("%-6s %12lld %10.1f %14.0f %14.0f   (%llu events read)\n", zstd ? "zstd" : "plain", bytes,
                static_cast<double>(bytes) / static_cast<double>(records), mb / w, mb / r,
                static_cast<unsigned long long>(events));
  }
  return 0;
}
