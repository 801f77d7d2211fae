#pragma once
// Answers a property (engine/property.h) on a built model: every sub-formula is
// evaluated in all states, bottom-up, and the filter (or PRISM's default one over
// the initial states) makes the single value that is reported.
#include "engine/reachability.h"
#include "engine/state_formula.h"

#include <optional>
#include <string>

namespace mdpvi {

struct PropertyValue {
  enum class Kind { boolean, number, range };
  Kind kind = Kind::number;
  bool truth = false;   // Kind::boolean
  double number = 0.0;  // Kind::number; the lower end of a range
  double upper = 0.0;   // the upper end of a range
  // Interval iteration (Kind::number): the truth lies in [lower_bound, upper_bound].
  std::optional<double> lower_bound, upper_bound;
  std::string scope;    // what the value is of: "value in the initial state", "max over 12 states", ...
  std::string listing;  // print, printall, argmin, argmax: one "index:(valuation)=value" per line
};

// The shortest text that reads back as the same double ("Infinity" for +inf).
std::string format_number(double value);
// "true", "0.5", "[0.25, 0.5]", "0.5 (+/- 1e-07)".
std::string to_text(const PropertyValue& value);

struct CheckContext {
  const SparseMdp& mdp;
  const graph::ChoicePredecessorGraph& graph;
  PropertyScope scope;
  SolverOptions solver;
  DeviceOptions device;
  std::optional<ReachabilityResult> detail = std::nullopt;  // the last numerical computation's
};

// Throws LocatedError for type errors, unknown names, missing reward structures and
// P=?/R=? without min or max on an MDP; std::runtime_error from the solvers.
PropertyValue check_property(const Formula& property, CheckContext& context);

}  // namespace mdpvi
