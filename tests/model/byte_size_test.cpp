// The tools' --budget sizes (xab/model/memory.h).
#include <xab/model/memory.h>

#include <catch2/catch.hpp>

using xab::formatByteSize;
using xab::parseByteSize;

TEST_CASE("a budget's size: bytes with K, M, G or T, powers of 1024") {
  CHECK(parseByteSize("0") == 0u);
  CHECK(parseByteSize("4096") == 4096u);
  CHECK(parseByteSize("1G") == (std::uint64_t{1} << 30));
  CHECK(parseByteSize("512M") == (std::uint64_t{512} << 20));
  CHECK(parseByteSize("512m") == (std::uint64_t{512} << 20));
  CHECK(parseByteSize("64KiB") == (std::uint64_t{64} << 10));
  CHECK(parseByteSize("2GB") == (std::uint64_t{2} << 30));
  CHECK(parseByteSize("1.5G") == (std::uint64_t{3} << 29));
  CHECK(parseByteSize("1T") == (std::uint64_t{1} << 40));
  CHECK(parseByteSize("12B") == 12u);
  for (const char* bad : {"", "G", "-1G", "1X", "1GG", "lots", ".5G", "1e9", "99999999999T"}) {
    INFO(bad);
    CHECK_FALSE(parseByteSize(bad).has_value());
  }
}

TEST_CASE("a size said in the largest unit it reaches") {
  CHECK(formatByteSize(12) == "12 B");
  CHECK(formatByteSize(std::uint64_t{1} << 30) == "1 GiB");
  CHECK(formatByteSize(std::uint64_t{3} << 29) == "1.5 GiB");
  CHECK(formatByteSize(std::uint64_t{512} << 20) == "512 MiB");
}
