// heat.h -- a heat map's colours: white for nothing, through yellow and
// orange to dark red for the most (the Messages matrix shades each pair by
// its share of the busiest pair's messages, bytes or bandwidth).
#pragma once

#include <QColor>

#include <algorithm>
#include <cmath>

namespace xab::view {

// `fraction` of the largest value, 0..1; the square root lifts small
// values off white (a pair with 1% of the busiest one still shows).
inline QColor heatColor(double fraction) {
  if (!(fraction > 0)) return Qt::white;
  const double f = std::sqrt(std::min(1.0, fraction));
  struct Stop { double at; int r, g, b; };
  static constexpr Stop stops[] = {{0, 255, 247, 188}, {0.35, 254, 196, 79}, {0.7, 236, 112, 20}, {1, 153, 52, 4}};
  for (std::size_t i = 1; i < std::size(stops); ++i)
    if (f <= stops[i].at) {
      const Stop &a = stops[i - 1], &b = stops[i];
      const double t = (f - a.at) / (b.at - a.at);
      auto mix = [t](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * t)); };
      return QColor(mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b));
    }
  return QColor(stops[3].r, stops[3].g, stops[3].b);
}

// Text on a heat colour: white on the dark end.
inline QColor heatText(double fraction) { return std::sqrt(std::max(0.0, fraction)) > 0.75 ? Qt::white : Qt::black; }

}  // namespace xab::view
