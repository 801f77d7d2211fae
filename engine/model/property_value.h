#pragma once
// What a property answers: the single value reported for it, and its text.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mdpvi {

struct PropertyValue {
  enum class Kind { boolean, number, range, pareto };
  Kind kind = Kind::number;
  bool truth = false;   // Kind::boolean
  double number = 0.0;  // Kind::number; the lower end of a range
  double upper = 0.0;   // the upper end of a range
  // Interval iteration (Kind::number): the truth lies in [lower_bound, upper_bound].
  std::optional<double> lower_bound, upper_bound;
  std::string scope;    // what the value is of: "value in the initial state", "max over 12 states", ...
  std::string listing;  // print, printall, argmin, argmax: one "index:(valuation)=value" per line
  // Kind::pareto: a multi-objective query's Pareto curve, its vertices in the order of
  // the first objective, each one value per objective.
  std::vector<std::vector<double>> points;
};

// The shortest text that reads back as the same double ("Infinity" for +inf).
std::string format_number(double value);
// A finite number written as a decimal or as a fraction (1/3; 1/1/3 divides from the
// left), as PRISM's command lines and RESULT comments write them; none otherwise.
std::optional<double> read_number(std::string_view text);
// "true", "0.5", "[0.25, 0.5]", "0.5 (+/- 1e-07)", "Pareto curve: (0, 1), (0.6, 0.4)".
std::string to_text(const PropertyValue& value);

}  // namespace mdpvi
