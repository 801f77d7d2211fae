#include "engine/automata/step_bounds.h"

#include <optional>
#include <string>

namespace mdpvi::automata {

namespace {

using P = PathFormula;

P negated(P a) { return P::unary(P::Op::negation, std::move(a)); }
P both(P a, P b) { return P::binary(P::Op::conjunction, std::move(a), std::move(b)); }
P either(P a, P b) { return P::binary(P::Op::disjunction, std::move(a), std::move(b)); }

std::size_t size_of(const P& f) {
  std::size_t n = 1;
  for (const P& operand : f.operands) n += size_of(operand);
  return n;
}

// The unfolded formula's size so far: refused past kMostUnfoldedNodes (nested bounds
// multiply: G<=1000 G<=1000 G<=1000 a would be 10^9 nodes).
class Budget {
 public:
  void spend(std::size_t nodes) {
    spent_ += nodes;
    if (spent_ > kMostUnfoldedNodes) {
      throw std::invalid_argument("not supported yet: step bounds inside a path that unfold to more than " +
                                  std::to_string(kMostUnfoldedNodes) + " operators");
    }
  }

 private:
  std::size_t spent_ = 0;
};

P next_times(std::uint64_t k, P a, Budget& budget) {
  budget.spend(k);
  for (std::uint64_t i = 0; i < k; ++i) a = P::unary(P::Op::next, std::move(a));
  return a;
}

// phi held at steps 0..k.
P always_within(std::uint64_t k, const P& phi, Budget& budget) {
  budget.spend(k * (size_of(phi) + 2));
  P result = phi;
  for (std::uint64_t i = 0; i < k; ++i) result = both(phi, P::unary(P::Op::next, std::move(result)));
  return result;
}

// phi U<=k psi; phi none: F<=k psi.
P until_within(std::uint64_t k, const std::optional<P>& phi, const P& psi, Budget& budget) {
  budget.spend(k * (size_of(psi) + (phi ? size_of(*phi) : 0) + 3));
  P result = psi;
  for (std::uint64_t i = 0; i < k; ++i) {
    P later = P::unary(P::Op::next, std::move(result));
    result = either(psi, phi ? both(*phi, std::move(later)) : std::move(later));
  }
  return result;
}

struct Window {
  std::uint64_t first = 0;
  std::optional<std::uint64_t> last;
};

// phi U[first, last] psi (phi none: F); unbounded above where last is none.
P until_in(const Window& w, const std::optional<P>& phi, const P& psi, Budget& budget) {
  P rest = w.last ? until_within(*w.last - w.first, phi, psi, budget)
                  : (phi ? P::binary(P::Op::until, *phi, psi) : P::unary(P::Op::eventually, psi));
  rest = next_times(w.first, std::move(rest), budget);
  if (!phi || w.first == 0) return rest;
  return both(always_within(w.first - 1, *phi, budget), std::move(rest));
}

class Unfolder {
 public:
  explicit Unfolder(const std::vector<std::uint64_t>& steps) : steps_(steps) {}

  P operator()(const P& f) {
    P out = f;
    for (P& operand : out.operands) operand = (*this)(operand);
    if (!f.bounded()) return out;
    const Window w = window(f);
    const std::vector<P>& o = out.operands;
    switch (f.op) {
      case P::Op::eventually: return until_in(w, std::nullopt, o[0], budget_);
      case P::Op::always: {  // G[a,b] phi = X^a G<=(b-a) phi
        P rest = w.last ? always_within(*w.last - w.first, o[0], budget_) : P::unary(P::Op::always, o[0]);
        return next_times(w.first, std::move(rest), budget_);
      }
      case P::Op::until: return until_in(w, o[0], o[1], budget_);
      case P::Op::weak_until:
        return negated(until_in(w, negated(o[1]), both(negated(o[0]), negated(o[1])), budget_));
      case P::Op::release: return negated(until_in(w, negated(o[0]), negated(o[1]), budget_));
      default: return out;
    }
  }

 private:
  Window window(const P& f) const {
    Window w;
    if (f.lower_bound != P::kNoBound) w.first = checked(steps_.at(static_cast<std::size_t>(f.lower_bound)));
    if (f.upper_bound != P::kNoBound) w.last = checked(steps_.at(static_cast<std::size_t>(f.upper_bound)));
    if (w.last && *w.last < w.first) {
      throw std::invalid_argument("the step interval [" + std::to_string(w.first) + ", " + std::to_string(*w.last) +
                                  "] inside the path is empty");
    }
    return w;
  }

  static std::uint64_t checked(std::uint64_t k) {
    if (k > kMostUnfoldedSteps) {
      throw std::invalid_argument("not supported yet: a step bound above " + std::to_string(kMostUnfoldedSteps) +
                                  " inside a nested path (found " + std::to_string(k) + ")");
    }
    return k;
  }

  const std::vector<std::uint64_t>& steps_;
  Budget budget_;
};

}  // namespace

PathFormula unfold_step_bounds(const PathFormula& formula, const std::vector<std::uint64_t>& steps) {
  return Unfolder(steps)(formula);
}

}  // namespace mdpvi::automata
