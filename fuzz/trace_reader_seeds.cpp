// Writes fuzz_trace_reader's compressed seeds: a fixture trace as zstd
// (one frame, and flushed blocks cut short as a killed abmon leaves them)
// and as gzip, each after the fuzzer's piece-size byte, into argv[2] from
// the trace argv[1].
#include <zlib.h>
#include <zstd.h>

#include <fstream>
#include <iterator>
#include <string>

namespace {

std::string zstd(const std::string& text, ZSTD_EndDirective how) {
  std::string out(ZSTD_compressBound(text.size()) + 64, '\0');
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_inBuffer in{text.data(), text.size(), 0};
  ZSTD_outBuffer o{out.data(), out.size(), 0};
  while (ZSTD_compressStream2(c, &o, &in, how) > 0) {
  }
  ZSTD_freeCCtx(c);
  out.resize(o.pos);
  return out;
}

std::string gzip(const std::string& text) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

void seed(const std::string& dir, const std::string& name, char pieces, const std::string& bytes) {
  std::ofstream(dir + "/" + name, std::ios::binary) << pieces << bytes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  std::ifstream in(argv[1], std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string dir = argv[2];
  seed(dir, "compressed.zst", 63, zstd(text, ZSTD_e_end));
  seed(dir, "compressed-cut.zst", 5, zstd(text, ZSTD_e_flush));
  seed(dir, "compressed.gz", 17, gzip(text));
  return 0;
}
