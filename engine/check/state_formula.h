#pragma once
// The values of a property's state expressions in every state: Boolean ones as a set
// of states, numeric ones as a vector.
#include "engine/explore/compiled_expression.h"
#include "io/property.h"
#include "engine/explore/resolved_model.h"
#include "engine/model/sparse_mdp.h"
#include "engine/model/state_numbers.h"

#include <functional>
#include <map>

namespace mdpvi {

// What a property's names may refer to besides the model's labels and variables.
struct PropertyScope {
  std::string source;  // file name for error messages
  ConstantValues constants;  // the model's and the properties file's
  std::map<std::string, Expression> formulas;  // the model's, expanded
  std::map<std::string, StateSet> labels;      // the properties file's, before the model's
};

// A value per state: a truth value or a number.
struct StateValues {
  bool boolean = true;
  StateSet truth;               // when boolean
  StateNumbers numbers;  // otherwise
  // Interval iteration: per state, the truth lies in [lower, upper]; empty otherwise.
  StateNumbers lower, upper;
  // Numbers computed exactly (no iteration: graph answers, acyclic systems, step
  // bounds) under a sound method: their own bounds, kept once (lower and upper empty).
  bool exact = false;

  double number(std::uint32_t s) const { return boolean ? (truth.test(s) ? 1.0 : 0.0) : numbers[s]; }
  static StateValues of_truth(StateSet t) { return {true, std::move(t), {}, {}, {}}; }
  static StateValues of_numbers(StateNumbers n) { return {false, {}, std::move(n), {}, {}}; }
  bool has_bounds() const { return exact || !lower.empty(); }
  // The bounds, where has_bounds().
  const StateNumbers& lower_numbers() const { return exact ? numbers : lower; }
  const StateNumbers& upper_numbers() const { return exact ? numbers : upper; }
};

// Resolves Expression::Kind::nested atoms; nullptr where there are none.
using NestedResolver = std::function<NestedValues(std::size_t)>;

// Throws LocatedError for unknown names and type errors.
StateValues evaluate_state_expression(const Expression& expression, const SparseMdp& mdp, const PropertyScope& scope,
                                      const NestedResolver& nested = nullptr);

// As above, and throws LocatedError when the expression is not Boolean.
StateSet evaluate_state_formula(const Expression& formula, const SparseMdp& mdp, const PropertyScope& scope,
                                const NestedResolver& nested = nullptr);

}  // namespace mdpvi
