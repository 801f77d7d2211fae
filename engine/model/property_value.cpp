#include "engine/model/property_value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace mdpvi {

std::string format_number(double value) {
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (std::isnan(value)) return "NaN";  // PRISM's word (to_chars writes "nan")
  char buffer[64];
  // + 0.0 turns -0 (ceil(-0.5), -x of x = 0) into 0.
  auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value + 0.0);
  return std::string(buffer, end);
}

std::optional<double> read_number(std::string_view text) {
  double value = 0.0;
  const char* at = text.data();
  const char* const stop = text.data() + text.size();
  for (bool first = true;; first = false) {
    double part = 0.0;
    const auto [end, error] = std::from_chars(at, stop, part);
    if (error != std::errc()) return std::nullopt;
    value = first ? part : value / part;
    if (end == stop) break;
    if (*end != '/') return std::nullopt;
    at = end + 1;
  }
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

std::string to_text(const PropertyValue& value) {
  switch (value.kind) {
    case PropertyValue::Kind::boolean: return value.truth ? "true" : "false";
    case PropertyValue::Kind::number:
      if (value.lower_bound) {
        // Equal ends are 0 apart, Infinity too (whose difference would be NaN).
        const auto apart = [](double a, double b) { return a == b ? 0.0 : a - b; };
        double radius = std::max(apart(*value.upper_bound, value.number), apart(value.number, *value.lower_bound));
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.3g", radius);
        return format_number(value.number) + " (+/- " + buffer + ")";
      }
      return format_number(value.number);
    case PropertyValue::Kind::range: return "[" + format_number(value.number) + ", " + format_number(value.upper) + "]";
    case PropertyValue::Kind::pareto: {
      // Of two objectives a curve; of more, a front of facets.
      const bool curve = value.points.empty() || value.points[0].size() <= 2;
      std::string text = curve ? "Pareto curve:" : "Pareto front:";
      for (std::size_t i = 0; i < value.points.size(); ++i) {
        text += i == 0 ? " (" : ", (";
        for (std::size_t j = 0; j < value.points[i].size(); ++j) text += (j ? ", " : "") + format_number(value.points[i][j]);
        text += ")";
      }
      return text;
    }
  }
  return "";
}

}  // namespace mdpvi
