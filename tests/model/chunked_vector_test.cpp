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

TEST_CASE("chunked vector: append moves another's elements from any index, across both layouts' chunks") {
  ChunkedVector<int, 2, 4> v;  // chunks of 4, 8, 16, 16, ...
  for (int i = 0; i < 300; ++i) v.push_back(i);
  const auto frozen = v.freeze();
  for (std::size_t head : {0, 1, 3, 5, 17}) {
    for (std::size_t from : {0, 1, 3, 4, 11, 12, 27, 28, 29, 200, 299, 300}) {
      ChunkedVector<int, 2, 4> w;
      for (std::size_t i = 0; i < head; ++i) w.push_back(-1);
      w.append(frozen, from);
      REQUIRE(w.size() == head + 300 - from);
      for (std::size_t i = 0; i < head; ++i) REQUIRE(w[i] == -1);
      for (std::size_t i = from; i < 300; ++i) REQUIRE(w[head + i - from] == static_cast<int>(i));
      w.push_back(1000);  // and it grows on as any
      CHECK(w.back() == 1000);
    }
  }
}
