#pragma once
// A path formula of LTL over state formulas: what P [ ... ] and E/A [ ... ] hold where
// the path is more than one temporal operator over state formulas (io/property.h keeps
// those simpler paths in their own form). The state formulas are numbered by the
// owner (a property's operands); engine/automata/ turns the tree into an automaton.
#include <cstdint>
#include <utility>
#include <vector>

namespace mdpvi {

struct PathFormula {
  enum class Op { state, negation, conjunction, disjunction, next, until, weak_until, release, eventually, always };
  static constexpr std::int32_t kNoBound = -1;

  Op op = Op::state;
  std::uint32_t state = 0;  // Op::state: the state formula's number
  std::vector<PathFormula> operands;
  // F, G, U, W and R: step bounds, each the number of a bound the owner keeps (PRISM's
  // discrete-time reading: U[a,b] has psi at some step j in [a, b] and phi before it).
  std::int32_t lower_bound = kNoBound, upper_bound = kNoBound;

  static PathFormula atom(std::uint32_t state) { return {Op::state, state, {}}; }
  static PathFormula unary(Op op, PathFormula a) { return {op, 0, {std::move(a)}}; }
  static PathFormula binary(Op op, PathFormula a, PathFormula b) { return {op, 0, {std::move(a), std::move(b)}}; }
  bool bounded() const { return lower_bound != kNoBound || upper_bound != kNoBound; }
};

}  // namespace mdpvi
