#include "engine/automata/ltl_automaton.h"

#include <algorithm>
#include <string>

namespace mdpvi::automata {

namespace {

// Guessing is exponential in the temporal subformulas of a state's formula: at most this
// many guesses a state, and this many mu- or nu-subformulas.
constexpr std::size_t kMostGuessed = std::size_t{1} << 16;
constexpr std::size_t kMostGuessedEach = 20;
// A formula whose automaton passes this (a step bound nested in G can) is refused.
constexpr std::size_t kMostStates = 1000000;

bool contains(const std::vector<std::uint32_t>& sorted, std::uint32_t x) {
  return std::binary_search(sorted.begin(), sorted.end(), x);
}

// The subsets of items whose bits are set in bits.
std::vector<std::uint32_t> subset(const std::vector<std::uint32_t>& items, std::uint64_t bits) {
  std::vector<std::uint32_t> chosen;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if ((bits >> i) & 1) chosen.push_back(items[i]);
  }
  return chosen;
}

}  // namespace

LtlAutomaton::LtlAutomaton(const PathFormula& formula, std::uint32_t atoms) : atoms_(atoms) {
  if (atoms > 64) throw AutomatonTooLarge("an LTL formula over more than 64 state formulas");
  states_.emplace_back();  // kRejecting: ff, no jumps
  states_[kRejecting].jumps_made = true;
  StateData start;
  start.formula = normal_form(formula, false);
  initial_ = intern(std::move(start));
}

// Negation normal form, as a BDD whose variables are the literals (0..atoms-1) and the
// temporal subformulas. F a = tt U a, G a = ff R a; negation swaps U/R and W/M.
BddRef LtlAutomaton::normal_form(const PathFormula& f, bool negated) {
  using P = PathFormula::Op;
  const auto sub = [&](std::size_t i, bool neg) { return normal_form(f.operands[i], neg); };
  switch (f.op) {
    case P::state: {
      const BddRef v = bdd_.variable(f.state);
      return negated ? bdd_.negation(v) : v;
    }
    case P::negation: return sub(0, !negated);
    case P::conjunction:
      return negated ? bdd_.disjunction(sub(0, true), sub(1, true)) : bdd_.conjunction(sub(0, false), sub(1, false));
    case P::disjunction:
      return negated ? bdd_.conjunction(sub(0, true), sub(1, true)) : bdd_.disjunction(sub(0, false), sub(1, false));
    case P::next: return temporal(Op::next, sub(0, negated));
    case P::eventually: return negated ? temporal(Op::release, kFalse, sub(0, true)) : temporal(Op::until, kTrue, sub(0, false));
    case P::always: return negated ? temporal(Op::until, kTrue, sub(0, true)) : temporal(Op::release, kFalse, sub(0, false));
    case P::until:
      return negated ? temporal(Op::release, sub(0, true), sub(1, true)) : temporal(Op::until, sub(0, false), sub(1, false));
    case P::release:
      return negated ? temporal(Op::until, sub(0, true), sub(1, true)) : temporal(Op::release, sub(0, false), sub(1, false));
    case P::weak_until:  // !(a W b) = (!a) M (!b)
      return negated ? temporal(Op::strong_release, sub(0, true), sub(1, true))
                     : temporal(Op::weak_until, sub(0, false), sub(1, false));
    case P::automaton:  // automaton_for gives these their own automaton
      throw std::invalid_argument("a HOA file's automaton inside an LTL formula");
  }
  return kFalse;
}

// The variable of a temporal subformula (one per distinct subformula), or what it
// equals where an operand is a constant that decides it.
BddRef LtlAutomaton::temporal(Op op, BddRef left, BddRef right) {
  switch (op) {
    case Op::next:
      if (bdd_.is_constant(left)) return left;
      right = kFalse;
      break;
    case Op::until:       // a U tt = tt, a U ff = ff, ff U b = b
    case Op::weak_until:  // a W tt = tt, ff W b = b; tt W b = tt
      if (op == Op::weak_until && left == kTrue) return kTrue;
      if (right == kTrue || left == kFalse || (op == Op::until && right == kFalse)) return right;
      break;
    case Op::release:         // a R ff = ff, a R tt = tt, tt R b = b
    case Op::strong_release:  // a M ff = ff, tt M b = b; ff M b = ff
      if (op == Op::strong_release && left == kFalse) return kFalse;
      if (right == kFalse || left == kTrue || (op == Op::release && right == kTrue)) return right;
      break;
  }
  auto [it, added] = node_numbers_.try_emplace({op, left, right}, atoms_ + static_cast<std::uint32_t>(nodes_.size()));
  if (added) nodes_.push_back({op, left, right});
  return bdd_.variable(it->second);
}

// af(f, letter): literals by the letter; X a is a; a U b is af(b) | (af(a) & a U b); a W
// b likewise; a R b is af(b) & (af(a) | a R b); a M b likewise.
BddRef LtlAutomaton::after(BddRef f, std::uint64_t letter) {
  if (bdd_.is_constant(f)) return f;
  if (auto it = after_cache_.find({f, letter}); it != after_cache_.end()) return it->second;
  const BddRef result = bdd_.compose(f, [&](std::uint32_t v) -> BddRef {
    if (!is_temporal(v)) return (letter >> v) & 1 ? kTrue : kFalse;
    const Temporal t = node(v);
    if (t.op == Op::next) return t.left;
    const BddRef self = bdd_.variable(v);
    const BddRef left = after(t.left, letter), right = after(t.right, letter);
    if (t.op == Op::until || t.op == Op::weak_until) {  // right or (left and self)
      return bdd_.disjunction(right, bdd_.conjunction(left, self));
    }
    return bdd_.conjunction(right, bdd_.disjunction(left, self));  // release and strong release
  });
  after_cache_.emplace(std::pair{f, letter}, result);
  return result;
}

BddRef LtlAutomaton::weakened(BddRef f, const std::vector<std::uint32_t>& mu) {
  return bdd_.compose(f, [&](std::uint32_t v) -> BddRef {
    if (!is_temporal(v)) return bdd_.variable(v);
    const Temporal t = node(v);
    const BddRef left = weakened(t.left, mu), right = weakened(t.right, mu);
    switch (t.op) {
      case Op::next: return temporal(Op::next, left);
      case Op::until: return contains(mu, v) ? temporal(Op::weak_until, left, right) : kFalse;
      case Op::strong_release: return contains(mu, v) ? temporal(Op::release, left, right) : kFalse;
      case Op::release:
      case Op::weak_until: return temporal(t.op, left, right);
    }
    return kFalse;
  });
}

BddRef LtlAutomaton::strengthened(BddRef f, const std::vector<std::uint32_t>& nu) {
  return bdd_.compose(f, [&](std::uint32_t v) -> BddRef {
    if (!is_temporal(v)) return bdd_.variable(v);
    const Temporal t = node(v);
    const BddRef left = strengthened(t.left, nu), right = strengthened(t.right, nu);
    switch (t.op) {
      case Op::next: return temporal(Op::next, left);
      case Op::release: return contains(nu, v) ? kTrue : temporal(Op::strong_release, left, right);
      case Op::weak_until: return contains(nu, v) ? kTrue : temporal(Op::until, left, right);
      case Op::until:
      case Op::strong_release: return temporal(t.op, left, right);
    }
    return kFalse;
  });
}

void LtlAutomaton::subformulas(BddRef f, std::vector<std::uint32_t>& mu, std::vector<std::uint32_t>& nu) const {
  for (std::uint32_t v : bdd_.support(f)) {
    if (!is_temporal(v)) continue;
    const Temporal& t = node(v);
    if (t.op != Op::next) {
      std::vector<std::uint32_t>& into = is_mu(t.op) ? mu : nu;
      if (contains(into, v)) continue;
      into.insert(std::upper_bound(into.begin(), into.end(), v), v);
    }
    subformulas(t.left, mu, nu);
    subformulas(t.right, mu, nu);
  }
}

LtlAutomaton::State LtlAutomaton::intern(StateData data) {
  std::vector<std::uint32_t> key{data.accepting, data.formula, data.restarted, data.marks,
                                 static_cast<std::uint32_t>(data.trackers.size())};
  key.insert(key.end(), data.trackers.begin(), data.trackers.end());
  key.insert(key.end(), data.pending.begin(), data.pending.end());
  auto [it, added] = state_numbers_.try_emplace(std::move(key), static_cast<State>(states_.size()));
  if (added && states_.size() >= kMostStates) {
    throw AutomatonTooLarge("the LTL formula's automaton passes " + std::to_string(kMostStates) + " states");
  }
  if (added) states_.push_back(std::move(data));
  return it->second;
}

LtlAutomaton::State LtlAutomaton::accepting_state(const Guess& guess, BddRef safety, std::vector<BddRef> pending,
                                                  std::uint32_t marks) {
  if (safety == kFalse) return kRejecting;
  StateData data;
  data.accepting = true;
  data.formula = safety;
  data.restarted = guess.restarted;
  data.trackers = guess.trackers;
  data.pending = std::move(pending);
  data.marks = marks;
  data.jumps_made = true;
  return intern(std::move(data));
}

std::uint32_t LtlAutomaton::guess_of(std::vector<std::uint32_t> mu, std::vector<std::uint32_t> nu) {
  auto [it, added] = guess_numbers_.try_emplace({mu, nu}, static_cast<std::uint32_t>(guesses_.size()));
  if (!added) return it->second;
  Guess g;
  for (std::uint32_t v : mu) {
    const BddRef tracker = strengthened(bdd_.variable(v), nu);
    if (tracker != kTrue) g.trackers.push_back(tracker);
  }
  g.stay = g.restarted = kTrue;
  for (std::uint32_t v : nu) {
    const BddRef conjunct = weakened(bdd_.variable(v), mu);
    g.stay = bdd_.conjunction(g.stay, conjunct);
    if (!is_always(conjunct)) g.restarted = bdd_.conjunction(g.restarted, conjunct);
  }
  guesses_.push_back(std::move(g));
  return it->second;
}

bool LtlAutomaton::universal(State q) const {
  const StateData& d = states_[q];
  return d.accepting && d.formula == kTrue && d.restarted == kTrue && d.trackers.empty();
}

// G chi as a BDD: the variable of a release whose left operand is ff.
bool LtlAutomaton::is_always(BddRef f) const {
  if (bdd_.is_constant(f) || bdd_.high(f) != kTrue || bdd_.low(f) != kFalse) return false;
  const std::uint32_t v = bdd_.top_variable(f);
  return is_temporal(v) && node(v).op == Op::release && node(v).left == kFalse;
}

bool LtlAutomaton::co_safe() const {
  std::vector<std::uint32_t> mu, nu;
  subformulas(states_[initial_].formula, mu, nu);
  return nu.empty();
}

std::uint32_t LtlAutomaton::all_marks(State q) const {
  if (!states_[q].accepting) return 0;
  return static_cast<std::uint32_t>((std::uint64_t{1} << states_[q].trackers.size()) - 1);
}

LtlAutomaton::State LtlAutomaton::step(State q, std::uint64_t letter) {
  if (q == kRejecting) return kRejecting;
  if (auto it = step_cache_.find({q, letter}); it != step_cache_.end()) return it->second;
  State next;
  if (!states_[q].accepting) {
    const BddRef f = after(states_[q].formula, letter);
    if (f == kFalse) {
      next = kRejecting;
    } else if (f == kTrue) {  // every continuation is accepted: nothing left to guess
      next = accepting_state(guesses_[guess_of({}, {})], kTrue, {}, 0);
    } else {
      StateData data;
      data.formula = f;
      next = intern(std::move(data));
    }
  } else {
    const StateData now = states_[q];  // a copy: interning may grow states_
    const BddRef safety = bdd_.conjunction(after(now.formula, letter), now.restarted);
    std::vector<BddRef> pending(now.pending.size());
    std::uint32_t marks = 0;
    for (std::size_t k = 0; k < pending.size(); ++k) {
      const BddRef met = after(now.pending[k], letter);
      if (met == kTrue) marks |= 1u << k;
      pending[k] = met == kTrue ? now.trackers[k] : bdd_.disjunction(met, now.trackers[k]);
    }
    Guess same{now.trackers, kTrue, now.restarted};
    next = accepting_state(same, safety, std::move(pending), marks);
  }
  step_cache_.emplace(std::pair{q, letter}, next);
  return next;
}

// The guesses X first, each kept only where (1)'s safety formula is not ff already, then
// Y for each: a conjunction of G F a_i asks every F a_i in X, so of 2^k sets of
// mu-subformulas one is left, and only its 2^k sets of nu-subformulas are tried.
const std::vector<LtlAutomaton::State>& LtlAutomaton::jumps(State q) {
  if (states_[q].jumps_made) return states_[q].jumps;
  const BddRef f = states_[q].formula;
  std::vector<std::uint32_t> mu, nu;
  subformulas(f, mu, nu);
  const auto too_large = [&] {
    return AutomatonTooLarge("an LTL formula with " + std::to_string(mu.size()) + " mu- and " +
                             std::to_string(nu.size()) + " nu-subformulas to guess over (at most " +
                             std::to_string(kMostGuessed) + " sets of them)");
  };
  if (mu.size() > kMostGuessedEach || nu.size() > kMostGuessedEach) throw too_large();
  std::vector<std::pair<std::vector<std::uint32_t>, BddRef>> kept;  // X and f[X]nu
  for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << mu.size()); ++bits) {
    std::vector<std::uint32_t> x = subset(mu, bits);
    const BddRef weak = weakened(f, x);
    if (weak != kFalse) kept.emplace_back(std::move(x), weak);
  }
  if (kept.size() * (std::uint64_t{1} << nu.size()) > kMostGuessed) throw too_large();
  std::vector<State> targets;
  for (const auto& [x, weak] : kept) {
    for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << nu.size()); ++bits) {
      const Guess g = guesses_[guess_of(x, subset(nu, bits))];  // a copy: guess_of grows guesses_
      if (std::find(g.trackers.begin(), g.trackers.end(), kFalse) != g.trackers.end()) continue;  // GF ff
      const State target = accepting_state(g, bdd_.conjunction(weak, g.stay), g.trackers, 0);
      if (target != kRejecting) targets.push_back(target);
    }
  }
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  states_[q].jumps = std::move(targets);
  states_[q].jumps_made = true;
  return states_[q].jumps;
}

}  // namespace mdpvi::automata
