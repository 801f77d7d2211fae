#include "engine/automata/ltl_simplify.h"

#include <cstddef>
#include <utility>
#include <vector>

namespace mdpvi::automata {

namespace {

using Op = PathFormula::Op;

bool same(const PathFormula& a, const PathFormula& b) {
  if (a.op != b.op || a.state != b.state || a.lower_bound != b.lower_bound || a.upper_bound != b.upper_bound ||
      a.automaton != b.automaton || a.operands.size() != b.operands.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.operands.size(); ++i) {
    if (!same(a.operands[i], b.operands[i])) return false;
  }
  return true;
}

// An unbounded temporal node of op (a bounded one is left to the automaton as it is).
bool is(const PathFormula& f, Op op) { return f.op == op && !f.bounded(); }

// True at every position of a word or at none: G F and F G of anything, and their
// boolean combinations.
bool suffix_invariant(const PathFormula& f) {
  if (f.bounded()) return false;
  switch (f.op) {
    case Op::always: return is(f.operands[0], Op::eventually) || suffix_invariant(f.operands[0]);
    case Op::eventually: return is(f.operands[0], Op::always) || suffix_invariant(f.operands[0]);
    case Op::next: return suffix_invariant(f.operands[0]);
    case Op::negation: return suffix_invariant(f.operands[0]);
    case Op::conjunction:
    case Op::disjunction: return suffix_invariant(f.operands[0]) && suffix_invariant(f.operands[1]);
    default: return false;
  }
}

// The operands of a chain of op (a & (b & c) gives a, b, c), in order.
void flatten(PathFormula&& f, Op op, std::vector<PathFormula>& out) {
  if (f.op != op) {
    out.push_back(std::move(f));
    return;
  }
  flatten(std::move(f.operands[0]), op, out);
  flatten(std::move(f.operands[1]), op, out);
}

PathFormula chained(std::vector<PathFormula>&& parts, Op op) {
  PathFormula f = std::move(parts[0]);
  for (std::size_t i = 1; i < parts.size(); ++i) f = PathFormula::binary(op, std::move(f), std::move(parts[i]));
  return f;
}

bool state_negation(const PathFormula& f) { return f.op == Op::negation && f.operands[0].op == Op::state; }

// Somenzi and Bloem's syntactic implication, with a budget of steps: its rules branch,
// and over deep untils their calls could multiply; past the budget it answers "cannot
// tell" (false), which keeps the rewriting sound.
class Implication {
 public:
  Implication(const AtomImplies& atoms, std::size_t steps) : atoms_(atoms), steps_left_(steps) {}
  bool holds(const PathFormula& psi, const PathFormula& phi);

 private:
  const AtomImplies& atoms_;
  std::size_t steps_left_;
};

// Steps of one rewriting's implication checks, all together.
constexpr std::size_t kMostImplicationSteps = 1000000;

class Simplifier {
 public:
  explicit Simplifier(const AtomImplies& atoms) : implies_(atoms, kMostImplicationSteps) {}

  PathFormula run(PathFormula f) {
    for (PathFormula& o : f.operands) o = run(std::move(o));
    return rewritten(std::move(f));
  }

 private:
  // f with its operands already rewritten.
  PathFormula rewritten(PathFormula f) {
    if (f.bounded() || f.op == Op::automaton || f.op == Op::state) return f;
    switch (f.op) {
      case Op::negation:
        if (f.operands[0].op == Op::negation) return std::move(f.operands[0].operands[0]);
        return f;
      case Op::next:
        if (suffix_invariant(f.operands[0])) return std::move(f.operands[0]);
        return f;
      case Op::eventually:
      case Op::always:
        if (is(f.operands[0], f.op) || suffix_invariant(f.operands[0])) return std::move(f.operands[0]);
        return f;
      case Op::conjunction:
      case Op::disjunction: return junction(std::move(f));
      default: return f;
    }
  }

  // The parts of a conjunction or a disjunction merged where their shapes distribute
  // over it; then the parts that others make redundant dropped.
  PathFormula junction(PathFormula f) {
    const Op op = f.op;
    std::vector<PathFormula> parts;
    flatten(std::move(f), op, parts);
    merge_shapes(parts, op);
    std::vector<bool> dropped(parts.size(), false);
    for (std::size_t i = 0; i < parts.size(); ++i) {
      for (std::size_t j = 0; j < parts.size() && !dropped[i]; ++j) {
        if (j == i || dropped[j]) continue;
        // A conjunct another implies adds nothing; a disjunct implying another neither.
        dropped[i] = op == Op::conjunction ? implies_.holds(parts[j], parts[i]) : implies_.holds(parts[i], parts[j]);
      }
    }
    std::vector<PathFormula> kept;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (!dropped[i]) kept.push_back(std::move(parts[i]));
    }
    return chained(std::move(kept), op);
  }

  // The parts of one shape into one: shape(a) op shape(b) = shape(a op b), for the
  // shapes that distribute over op (inner gives the operand under the shape, or null).
  template <typename Inner, typename Wrap>
  void merge(std::vector<PathFormula>& parts, Op op, const Inner& inner_of, const Wrap& wrap) {
    std::vector<PathFormula> inner, rest;
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (inner_of(parts[i])) at.push_back(i);
    }
    if (at.size() < 2) return;
    for (std::size_t i = 0, k = 0; i < parts.size(); ++i) {
      if (k < at.size() && at[k] == i) {
        inner.push_back(std::move(*inner_of(parts[i])));
        ++k;
      } else {
        rest.push_back(std::move(parts[i]));
      }
    }
    rest.push_back(wrap(rewritten(chained(std::move(inner), op))));
    parts = std::move(rest);
  }

  // G a & G b = G (a & b), F a | F b = F (a | b), X a op X b = X (a op b); and the
  // recurrences: F G a & F G b = F G (a & b), G F a | G F b = G F (a | b).
  void merge_shapes(std::vector<PathFormula>& parts, Op op) {
    const Op distributes = op == Op::conjunction ? Op::always : Op::eventually;
    const Op outer = op == Op::conjunction ? Op::eventually : Op::always;
    const auto one = [&](Op temporal) {
      return [this, temporal](PathFormula p) { return rewritten(PathFormula::unary(temporal, std::move(p))); };
    };
    // (Not G F a & G F b, nor F G a | F G b: merged as recurrences below, which need no product.)
    merge(
        parts, op,
        [&](PathFormula& p) { return is(p, distributes) && !suffix_invariant(p) ? &p.operands[0] : nullptr; },
        one(distributes));
    merge(parts, op, [](PathFormula& p) { return is(p, Op::next) ? &p.operands[0] : nullptr; }, one(Op::next));
    merge(
        parts, op,
        [&](PathFormula& p) {
          return is(p, outer) && is(p.operands[0], distributes) ? &p.operands[0].operands[0] : nullptr;
        },
        [&](PathFormula p) { return one(outer)(one(distributes)(std::move(p))); });
  }

  Implication implies_;
};

bool Implication::holds(const PathFormula& psi, const PathFormula& phi) {
  if (steps_left_ == 0) return false;  // cannot tell: sound, and no rewriting hangs
  --steps_left_;
  if (same(psi, phi)) return true;
  if (psi.op == Op::state && phi.op == Op::state) return atoms_(psi.state, phi.state);
  if (state_negation(psi) && state_negation(phi)) return atoms_(phi.operands[0].state, psi.operands[0].state);
  // The junctions: phi's first (psi => a | b where it implies either), then psi's.
  if (phi.op == Op::disjunction && (holds(psi, phi.operands[0]) || holds(psi, phi.operands[1]))) {
    return true;
  }
  if (phi.op == Op::conjunction) return holds(psi, phi.operands[0]) && holds(psi, phi.operands[1]);
  if (psi.op == Op::disjunction) return holds(psi.operands[0], phi) && holds(psi.operands[1], phi);
  if (psi.op == Op::conjunction && (holds(psi.operands[0], phi) || holds(psi.operands[1], phi))) {
    return true;
  }
  const auto operand = [](const PathFormula& f, std::size_t i) -> const PathFormula& { return f.operands[i]; };
  // What holds now holds eventually; what holds always holds now.
  if (is(phi, Op::eventually) && holds(psi, operand(phi, 0))) return true;
  if (is(psi, Op::always) && holds(operand(psi, 0), phi)) return true;
  // The same operator on both sides, over implied operands.
  for (const Op unary : {Op::eventually, Op::always, Op::next}) {
    if (is(psi, unary) && is(phi, unary) && holds(operand(psi, 0), operand(phi, 0))) return true;
  }
  // F G a implies G F b where a implies b.
  if (is(psi, Op::eventually) && is(operand(psi, 0), Op::always) && is(phi, Op::always) &&
      is(operand(phi, 0), Op::eventually) && holds(operand(operand(psi, 0), 0), operand(operand(phi, 0), 0))) {
    return true;
  }
  // a U b, a W b: b implies them; a R b: a & b does, and G b.
  if ((is(phi, Op::until) || is(phi, Op::weak_until)) && holds(psi, operand(phi, 1))) return true;
  if (is(phi, Op::until) && is(psi, Op::until) && holds(operand(psi, 0), operand(phi, 0)) &&
      holds(operand(psi, 1), operand(phi, 1))) {
    return true;
  }
  if (is(phi, Op::weak_until) && is(psi, Op::always) && holds(operand(psi, 0), operand(phi, 0))) return true;
  if (is(phi, Op::release)) {
    if (is(psi, Op::always) && holds(operand(psi, 0), operand(phi, 1))) return true;
    if (holds(psi, operand(phi, 0)) && holds(psi, operand(phi, 1))) return true;
  }
  // a U b and a W b hold now only where a or b does; a R b only where b does.
  if ((is(psi, Op::until) || is(psi, Op::weak_until)) && holds(operand(psi, 0), phi) &&
      holds(operand(psi, 1), phi)) {
    return true;
  }
  return is(psi, Op::release) && holds(operand(psi, 1), phi);
}

}  // namespace

std::size_t path_nodes(const PathFormula& formula) {
  std::size_t n = 1;
  for (const PathFormula& o : formula.operands) n += path_nodes(o);
  return n;
}

bool implies(const PathFormula& psi, const PathFormula& phi, const AtomImplies& atoms) {
  return Implication(atoms, kMostImplicationSteps).holds(psi, phi);
}

PathFormula simplified(const PathFormula& formula, const AtomImplies& implies) {
  if (path_nodes(formula) > kMostSimplifiedNodes) return formula;
  return Simplifier(implies).run(formula);
}

}  // namespace mdpvi::automata
