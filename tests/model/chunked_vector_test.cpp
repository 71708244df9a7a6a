#include <xab/model/chunked_vector.h>

#include <catch2/catch.hpp>

using xab::ChunkedVector;

TEST_CASE("chunked vector: indexes across growing and full-size chunks") {
  ChunkedVector<int, 2, 4> v;  // chunks of 4, 8, 16, 16, ...
  for (int i = 0; i < 1000; ++i) v.push_back(i);
  REQUIRE(v.size() == 1000);
  for (int i = 0; i < 1000; ++i) REQUIRE(v[static_cast<std::size_t>(i)] == i);
  CHECK(v.back() == 999);
}

TEST_CASE("chunked vector: a frozen copy shares full chunks and keeps its size") {
  ChunkedVector<int, 2, 4> v;
  for (int i = 0; i < 30; ++i) v.push_back(i);
  auto f = v.freeze();
  for (int i = 30; i < 100; ++i) v.push_back(i);
  REQUIRE(f.size() == 30);
  for (int i = 0; i < 30; ++i) REQUIRE(f[static_cast<std::size_t>(i)] == i);
  REQUIRE(v[99] == 99);
  int sum = 0;
  f.forEach([&](int x) { sum += x; });
  CHECK(sum == 29 * 30 / 2);
}
