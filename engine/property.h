#pragma once
// The properties the checker answers, as trees built by io/'s property parser.
#include <string>
#include <vector>

namespace mdpvi {

// A Boolean combination of labels: what PRISM calls a state formula.
struct StateFormula {
  enum class Kind { constant, label, negation, conjunction, disjunction, implication, equivalence };
  Kind kind = Kind::constant;
  bool constant = true;                // Kind::constant
  std::string label;                   // Kind::label
  std::vector<StateFormula> operands;  // one for negation, two for the binary kinds

  static StateFormula truth(bool value) { return {Kind::constant, value, {}, {}}; }
  static StateFormula named(std::string name) { return {Kind::label, false, std::move(name), {}}; }
  static StateFormula unary(Kind kind, StateFormula operand) { return {kind, false, {}, {std::move(operand)}}; }
  static StateFormula binary(Kind kind, StateFormula left, StateFormula right) {
    return {kind, false, {}, {std::move(left), std::move(right)}};
  }
};

enum class Optimization { minimize, maximize };

// Pmin=? [ left U right ] or Pmax=? [ left U right ]; "F right" is "true U right".
struct ReachabilityQuery {
  Optimization direction = Optimization::minimize;
  StateFormula left = StateFormula::truth(true);
  StateFormula right;
};

}  // namespace mdpvi
