// A small JSON parser for the tests: enough to check abstat's output
// without a new dependency.  Throws std::runtime_error on bad JSON, so a
// malformed document fails the test.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace xab::test {

struct Json {
  using Array = std::vector<Json>;
  using Object = std::map<std::string, Json>;
  std::variant<std::nullptr_t, bool, double, std::string, std::shared_ptr<Array>, std::shared_ptr<Object>> v;

  bool isNull() const { return std::holds_alternative<std::nullptr_t>(v); }
  double num() const { return std::get<double>(v); }
  bool boolean() const { return std::get<bool>(v); }
  const std::string& str() const { return std::get<std::string>(v); }
  const Array& arr() const { return *std::get<std::shared_ptr<Array>>(v); }
  const Object& obj() const { return *std::get<std::shared_ptr<Object>>(v); }
  const Json& operator[](const std::string& k) const {
    auto it = obj().find(k);
    if (it == obj().end()) throw std::runtime_error("no key " + k);
    return it->second;
  }
  const Json& operator[](std::size_t i) const { return arr().at(i); }
  bool has(const std::string& k) const { return obj().count(k) != 0; }
};

Json parseJson(const std::string& text);

}  // namespace xab::test
