#pragma once
// A path formula of LTL over state formulas: what P [ ... ] and E/A [ ... ] hold where
// the path is more than one temporal operator over state formulas (io/property.h keeps
// those simpler paths in their own form). The state formulas are numbered by the
// owner (a property's operands); engine/automata/ turns the tree into an automaton.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace mdpvi {

struct HoaAutomaton;

struct PathFormula {
  // automaton: a deterministic automaton read from a HOA file (PRISM's HOA: {...}), its
  // operands the state formulas of its propositions, in the automaton's order.
  enum class Op { state, negation, conjunction, disjunction, next, until, weak_until, release, eventually, always,
                  automaton };
  static constexpr std::int32_t kNoBound = -1;

  Op op = Op::state;
  std::uint32_t state = 0;  // Op::state: the state formula's number
  std::vector<PathFormula> operands;
  // F, G, U, W and R: step bounds, each the number of a bound the owner keeps (PRISM's
  // discrete-time reading: U[a,b] has psi at some step j in [a, b] and phi before it).
  std::int32_t lower_bound = kNoBound, upper_bound = kNoBound;
  std::shared_ptr<const HoaAutomaton> automaton;  // Op::automaton

  static PathFormula atom(std::uint32_t state) {
    PathFormula f;
    f.state = state;
    return f;
  }
  static PathFormula unary(Op op, PathFormula a) {
    PathFormula f;
    f.op = op;
    f.operands.push_back(std::move(a));
    return f;
  }
  static PathFormula binary(Op op, PathFormula a, PathFormula b) {
    PathFormula f = unary(op, std::move(a));
    f.operands.push_back(std::move(b));
    return f;
  }
  bool bounded() const { return lower_bound != kNoBound || upper_bound != kNoBound; }
  // The formula below any negations at its root; negated says whether an odd number of them is there.
  const PathFormula& under_negations(bool& negated) const {
    const PathFormula* f = this;
    for (negated = false; f->op == Op::negation; f = &f->operands[0]) negated = !negated;
    return *f;
  }
  // Whether an automaton (Op::automaton) lies anywhere in the tree.
  bool names_automaton() const {
    if (op == Op::automaton) return true;
    for (const PathFormula& o : operands) {
      if (o.names_automaton()) return true;
    }
    return false;
  }
};

}  // namespace mdpvi
