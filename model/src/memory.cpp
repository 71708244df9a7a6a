#include "xab/model/memory.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <stdexcept>

#include <malloc.h>

namespace xab {

void returnFreedArrays() { mallopt(M_MMAP_THRESHOLD, 1 << 20); }

std::optional<std::uint64_t> parseByteSize(std::string_view text) {
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  std::size_t digits = 0;
  bool dot = false;
  while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) || (text[digits] == '.' && !dot))) {
    dot = dot || text[digits] == '.';
    ++digits;
  }
  if (digits == 0 || text[0] == '.') return std::nullopt;
  double value = 0;
  try {
    value = std::stod(std::string(text.substr(0, digits)));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string unit(text.substr(digits));
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() >= 3 && unit.compare(unit.size() - 2, 2, "IB") == 0) unit.resize(unit.size() - 2);
  else if (unit.size() == 2 && unit.back() == 'B') unit.pop_back();
  if (unit == "B") unit.clear();
  static constexpr std::string_view kUnits = "KMGT";
  double scale = 1;
  if (unit.size() == 1 && kUnits.find(unit[0]) != std::string_view::npos)
    scale = std::ldexp(1.0, 10 * (static_cast<int>(kUnits.find(unit[0])) + 1));
  else if (!unit.empty())
    return std::nullopt;
  const double bytes = value * scale;
  if (!(bytes < 1.8e19)) return std::nullopt;
  return static_cast<std::uint64_t>(bytes);
}

std::string formatByteSize(std::uint64_t bytes) {
  static constexpr const char* kNames[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  std::size_t u = 0;
  while (v >= 1024 && u + 1 < std::size(kNames)) {
    v /= 1024;
    ++u;
  }
  char out[32];
  if (u == 0 || v >= 100 || v == std::floor(v)) std::snprintf(out, sizeof out, "%.0f %s", v, kNames[u]);
  else std::snprintf(out, sizeof out, "%.1f %s", v, kNames[u]);
  return out;
}

void returnFreedPages() { malloc_trim(0); }

}  // namespace xab
