// LTL through limit-deterministic automata (engine/automata/ltl_automaton.h) and the
// product (engine/check/ltl.h), against brute force:
// - on lasso words u v^w, written as deterministic chains, E [ path ] and P [ path ]
//   against LTL's semantics evaluated on the lasso, for random formulas;
// - on random DTMCs, P [ path ] + P [ !path ] = 1 (an automaton unfit for the
//   product's maximum would fall short of it);
// - on random MDPs, F a equals the reachability pipeline's, and Pmax (Pmin) is at least
//   (at most) every memoryless deterministic scheduler's;
// - and by hand: a property that needs memory, and the parser's readings.
#include "engine/automata/ltl_automaton.h"
#include "engine/automata/ltl_simplify.h"
#include "engine/automata/step_bounds.h"
#include "engine/check/ltl.h"
#include "engine/check/ltl_acceptance.h"
#include "engine/check/ltl_product.h"
#include "engine/check/multi_objective.h"
#include "engine/check/property_checker.h"
#include "engine/check/recurrence.h"
#include "engine/check/reachability.h"
#include "engine/check/scheduler.h"
#include "gpu/device_solver.h"
#include "io/parse_error.h"
#include "io/property_parser.h"
#include "random_mdps.h"
#include "search_backends.h"
#include "test_models.h"

#include <oneapi/tbb/global_control.h>

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>

namespace mdpvi {
namespace {

using P = PathFormula;
constexpr SolverOptions kSound{Method::optimistic_value_iteration, {ConvergenceCriterion::absolute, 1e-10, 1000000}};
const DeviceOptions kCpu{SolverKind::cpu};

PathFormula random_formula(std::mt19937& rng, int depth, std::uint32_t atoms) {
  const int kinds = depth == 0 ? 1 : 10;
  switch (rng() % kinds) {
    case 0: return P::atom(rng() % atoms);
    case 1: return P::unary(P::Op::negation, random_formula(rng, depth - 1, atoms));
    case 2: return P::binary(P::Op::conjunction, random_formula(rng, depth - 1, atoms), random_formula(rng, depth - 1, atoms));
    case 3: return P::binary(P::Op::disjunction, random_formula(rng, depth - 1, atoms), random_formula(rng, depth - 1, atoms));
    case 4: return P::unary(P::Op::next, random_formula(rng, depth - 1, atoms));
    case 5: return P::unary(P::Op::eventually, random_formula(rng, depth - 1, atoms));
    case 6: return P::unary(P::Op::always, random_formula(rng, depth - 1, atoms));
    case 7: return P::binary(P::Op::until, random_formula(rng, depth - 1, atoms), random_formula(rng, depth - 1, atoms));
    case 8: return P::binary(P::Op::release, random_formula(rng, depth - 1, atoms), random_formula(rng, depth - 1, atoms));
    default:
      return P::binary(P::Op::weak_until, random_formula(rng, depth - 1, atoms), random_formula(rng, depth - 1, atoms));
  }
}

// A lasso: positions 0..n-1, each to the next, the last back to loop_start.
struct Lasso {
  std::vector<std::uint64_t> letters;
  std::uint32_t loop_start;
  std::uint32_t next(std::uint32_t i) const { return i + 1 < letters.size() ? i + 1 : loop_start; }
};

// LTL's semantics at position i of the lasso.
bool holds(const PathFormula& f, const Lasso& w, std::uint32_t i) {
  const auto sub = [&](std::size_t k, std::uint32_t at) { return holds(f.operands[k], w, at); };
  // a U b from i: b before a first fails, within one round of the lasso.
  const auto until = [&](const std::function<bool(std::uint32_t)>& a, const std::function<bool(std::uint32_t)>& b) {
    std::uint32_t j = i;
    for (std::size_t steps = 0; steps <= w.letters.size(); ++steps, j = w.next(j)) {
      if (b(j)) return true;
      if (!a(j)) return false;
    }
    return false;
  };
  const auto always_true = [](std::uint32_t) { return true; };
  switch (f.op) {
    case P::Op::state: return (w.letters[i] >> f.state) & 1;
    case P::Op::negation: return !sub(0, i);
    case P::Op::conjunction: return sub(0, i) && sub(1, i);
    case P::Op::disjunction: return sub(0, i) || sub(1, i);
    case P::Op::next: return sub(0, w.next(i));
    case P::Op::eventually: return until(always_true, [&](std::uint32_t j) { return sub(0, j); });
    case P::Op::always: return !until(always_true, [&](std::uint32_t j) { return !sub(0, j); });
    case P::Op::until: return until([&](std::uint32_t j) { return sub(0, j); }, [&](std::uint32_t j) { return sub(1, j); });
    case P::Op::release:  // !(!a U !b)
      return !until([&](std::uint32_t j) { return !sub(0, j); }, [&](std::uint32_t j) { return !sub(1, j); });
    case P::Op::weak_until:  // (a U b) | G a
      return until([&](std::uint32_t j) { return sub(0, j); }, [&](std::uint32_t j) { return sub(1, j); }) ||
             !until(always_true, [&](std::uint32_t j) { return !sub(0, j); });
  }
  return false;
}

std::vector<StateSet> atom_sets(const std::vector<std::uint64_t>& letters, std::uint32_t atoms) {
  std::vector<StateSet> sets(atoms, StateSet(letters.size()));
  for (std::size_t s = 0; s < letters.size(); ++s) {
    for (std::uint32_t a = 0; a < atoms; ++a) {
      if ((letters[s] >> a) & 1) sets[a].set(s);
    }
  }
  return sets;
}

SparseMdp lasso_chain(const Lasso& w) {
  std::vector<test::StateChoices> states;
  for (std::uint32_t i = 0; i < w.letters.size(); ++i) states.push_back({{{w.next(i), 1.0}}});
  return test::make_mdp(states, {});
}

// A lasso of 1 to most positions, each letter drawn by letter().
template <typename Letter>
Lasso random_lasso(std::mt19937& rng, std::uint32_t most, const Letter& letter) {
  Lasso w;
  const std::uint32_t length = 1 + rng() % most;
  for (std::uint32_t i = 0; i < length; ++i) w.letters.push_back(letter());
  w.loop_start = rng() % length;
  return w;
}

TEST(Ltl, LassoWordsAgreeWithTheSemantics) {
  std::mt19937 rng(7);
  int accepted = 0, rejected = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const PathFormula f = random_formula(rng, 1 + trial % 4, 2);
    const Lasso w = random_lasso(rng, 5, [&] { return rng() % 4; });
    const SparseMdp chain = lasso_chain(w);
    const std::vector<StateSet> atoms = atom_sets(w.letters, 2);
    const bool expected = holds(f, w, 0);
    (expected ? accepted : rejected)++;
    EXPECT_EQ(exists_ltl_path(chain, f, atoms).test(0), expected) << "trial " << trial;
    const NumericResult p = compute_ltl_probabilities(chain, Optimization::maximize, f, atoms, kSound, kCpu);
    EXPECT_NEAR(p.values[0], expected ? 1.0 : 0.0, 1e-9) << "trial " << trial;
  }
  EXPECT_GT(accepted, 50);  // both answers are exercised
  EXPECT_GT(rejected, 50);
}

// Where atom a's positions lie within atom b's on the lasso.
automata::AtomImplies lasso_implies(const std::vector<StateSet>& atoms) {
  return [&atoms](std::uint32_t a, std::uint32_t b) { return atoms[a].is_subset_of(atoms[b]); };
}

using automata::path_nodes;

// The rewriting keeps the paths that satisfy a formula: on random lassos (each a model
// whose paths are its suffixes) over three atoms drawn so that one often lies within
// another, the rewritten formula holds at every position where the formula does. And
// the rewriting is exercised: it shrinks many of them.
TEST(LtlSimplify, RandomFormulasKeepTheirMeaningOnLassos) {
  std::mt19937 rng(11);
  int shrunk = 0, by_atoms = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const PathFormula f = random_formula(rng, 2 + trial % 4, 3);
    const Lasso w = random_lasso(rng, 6, [&] {
      const std::uint64_t letter = rng() % 8;
      return trial % 2 == 0 && (letter & 4) ? letter | 1 : letter;  // atom 2 within atom 0
    });
    const auto length = static_cast<std::uint32_t>(w.letters.size());
    const std::vector<StateSet> atoms = atom_sets(w.letters, 3);
    const PathFormula g = automata::simplified(f, lasso_implies(atoms));
    const PathFormula g_alone = automata::simplified(f, [](std::uint32_t a, std::uint32_t b) { return a == b; });
    shrunk += path_nodes(g_alone) < path_nodes(f);
    by_atoms += path_nodes(g) < path_nodes(g_alone);
    for (std::uint32_t i = 0; i < length; ++i) {
      ASSERT_EQ(holds(g, w, i), holds(f, w, i)) << "trial " << trial << ", position " << i;
      ASSERT_EQ(holds(g_alone, w, i), holds(f, w, i)) << "trial " << trial << ", position " << i;
    }
  }
  EXPECT_GT(shrunk, 300);
  EXPECT_GT(by_atoms, 30);
}

TEST(LtlSimplify, ByHandRedundantPartsGoAndRecurrencesAppear) {
  const std::vector<StateSet> atoms = atom_sets({0b011, 0b010, 0b110, 0b000}, 3);  // atom 0 within atom 1
  const automata::AtomImplies implies = lasso_implies(atoms);
  const auto F = [](P f) { return P::unary(P::Op::eventually, std::move(f)); };
  const auto G = [](P f) { return P::unary(P::Op::always, std::move(f)); };
  const auto X = [](P f) { return P::unary(P::Op::next, std::move(f)); };
  const auto no = [](P f) { return P::unary(P::Op::negation, std::move(f)); };
  const auto both = [](P a, P b) { return P::binary(P::Op::conjunction, std::move(a), std::move(b)); };
  const auto either = [](P a, P b) { return P::binary(P::Op::disjunction, std::move(a), std::move(b)); };
  const P a = P::atom(0), b = P::atom(1), c = P::atom(2);
  const auto same = [&](const P& f, const P& expected) {
    return automata::implies(f, expected, implies) && automata::implies(expected, f, implies) &&
           path_nodes(f) == path_nodes(expected);
  };

  // (G F a) & (F a) is G F a: a recurrence, answered without a product.
  const P gf_and_f = both(G(F(a)), F(a));
  EXPECT_FALSE(recurrence_of(gf_and_f, atoms));
  const P gf = automata::simplified(gf_and_f, implies);
  EXPECT_TRUE(same(gf, G(F(a))));
  EXPECT_TRUE(recurrence_of(gf, atoms));
  // Its negation's disjunction: (G !a) | (F G !a) is F G !a.
  EXPECT_TRUE(same(automata::simplified(either(G(no(a)), F(G(no(a)))), implies), F(G(no(a)))));
  // F F, G G, F G F, X of a recurrence; double negation.
  EXPECT_TRUE(same(automata::simplified(F(F(c)), implies), F(c)));
  EXPECT_TRUE(same(automata::simplified(G(G(c)), implies), G(c)));
  EXPECT_TRUE(same(automata::simplified(F(G(F(c))), implies), G(F(c))));
  EXPECT_TRUE(same(automata::simplified(X(F(G(c))), implies), F(G(c))));
  EXPECT_TRUE(same(automata::simplified(no(no(X(c))), implies), X(c)));
  // Merged: F a | F c = F (a | c), G a & G c = G (a & c), X a & X c = X (a & c), and the
  // recurrences G F a | G F c, F G a & F G c.
  EXPECT_EQ(automata::simplified(either(F(a), F(c)), implies).op, P::Op::eventually);
  EXPECT_EQ(automata::simplified(both(G(a), G(c)), implies).op, P::Op::always);
  EXPECT_EQ(automata::simplified(both(X(a), X(c)), implies).op, P::Op::next);
  EXPECT_TRUE(recurrence_of(automata::simplified(either(G(F(a)), G(F(c))), implies), atoms));
  EXPECT_TRUE(recurrence_of(automata::simplified(both(F(G(a)), F(G(c))), implies), atoms));
  // Through the atoms: a's states lie within b's, so F a & F b is F a, G a | G b is G b.
  EXPECT_TRUE(same(automata::simplified(both(F(a), F(b)), implies), F(a)));
  EXPECT_TRUE(same(automata::simplified(either(G(a), G(b)), implies), G(b)));
  // Nothing to take: c U a & F !c stays (but a U c implies b, so a U c & F b is a U c).
  const P kept = both(P::binary(P::Op::until, c, a), F(no(c)));
  EXPECT_TRUE(same(automata::simplified(both(P::binary(P::Op::until, a, c), F(b)), implies), P::binary(P::Op::until, a, c)));
  EXPECT_EQ(path_nodes(automata::simplified(kept, implies)), path_nodes(kept));
  // A step bound is the automaton's to unfold: F<=k F a keeps both.
  P bounded = F(F(a));
  bounded.lower_bound = 0;
  EXPECT_EQ(path_nodes(automata::simplified(bounded, implies)), 3u);
}

// The position k steps after i on the lasso.
std::uint32_t advance(const Lasso& w, std::uint32_t i, std::uint64_t k) {
  for (std::uint64_t step = 0; step < k; ++step) i = w.next(i);
  return i;
}

// LTL's semantics with PRISM's step bounds (steps: the bounds the nodes number): phi
// U[a,b] psi has psi at some step j in [a, b] and phi at every step before it; F, G, W
// and R by their definitions over U.
bool holds_bounded(const PathFormula& f, const std::vector<std::uint64_t>& steps, const Lasso& w, std::uint32_t i) {
  if (!f.bounded()) {
    if (f.op == P::Op::state) return (w.letters[i] >> f.state) & 1;
    const auto sub = [&](std::size_t k, std::uint32_t at) { return holds_bounded(f.operands[k], steps, w, at); };
    switch (f.op) {
      case P::Op::negation: return !sub(0, i);
      case P::Op::conjunction: return sub(0, i) && sub(1, i);
      case P::Op::disjunction: return sub(0, i) || sub(1, i);
      case P::Op::next: return sub(0, w.next(i));
      default: break;
    }
  }
  const std::uint64_t first = f.lower_bound == P::kNoBound ? 0 : steps[static_cast<std::size_t>(f.lower_bound)];
  const std::uint64_t last = f.upper_bound == P::kNoBound ? first + 2 * w.letters.size() + 2
                                                             : steps[static_cast<std::size_t>(f.upper_bound)];
  const auto until = [&](const std::function<bool(std::uint32_t)>& a, const std::function<bool(std::uint32_t)>& b) {
    for (std::uint64_t j = 0; j <= last; ++j) {
      const std::uint32_t at = advance(w, i, j);
      if (j >= first && b(at)) return true;
      if (!a(at)) return false;
    }
    return false;
  };
  const auto sub = [&](std::size_t k) { return [&, k](std::uint32_t at) { return holds_bounded(f.operands[k], steps, w, at); }; };
  const auto is_true = [](std::uint32_t) { return true; };
  switch (f.op) {
    case P::Op::eventually: return until(is_true, sub(0));
    case P::Op::always: return !until(is_true, [&](std::uint32_t at) { return !sub(0)(at); });
    case P::Op::until: return until(sub(0), sub(1));
    case P::Op::release: return !until([&](std::uint32_t at) { return !sub(0)(at); }, [&](std::uint32_t at) { return !sub(1)(at); });
    case P::Op::weak_until:
      return !until([&](std::uint32_t at) { return !sub(1)(at); }, [&](std::uint32_t at) { return !sub(0)(at) && !sub(1)(at); });
    default: return false;
  }
}

// Each state's letter has bit i where atom i holds, as a loop over the states says:
// odd sizes around a word's 64 states, no atoms, an atom that holds nowhere or
// everywhere, 64 atoms.
TEST(Ltl, LettersAreEachStatesAtomsAsBits) {
  std::mt19937 rng(7);
  for (std::uint32_t n : {0u, 1u, 63u, 64u, 65u, 1000u, 70001u}) {
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{64}}) {
      std::vector<StateSet> atoms(count, StateSet(n));
      for (std::size_t i = 0; i < count; ++i) {
        for (std::uint32_t s = 0; s < n; ++s) atoms[i][s] = i == 1 ? true : i == 2 ? false : rng() % 3 == 0;
      }
      const std::vector<std::uint64_t> letters = letters_of(n, atoms);
      ASSERT_EQ(letters.size(), n);
      for (std::uint32_t s = 0; s < n; ++s) {
        std::uint64_t expected = 0;
        for (std::size_t i = 0; i < count; ++i) expected |= std::uint64_t{atoms[i].test(s)} << i;
        ASSERT_EQ(letters[s], expected) << n << " states, " << count << " atoms, state " << s;
      }
    }
  }
}

TEST(Ltl, StepBoundsUnfoldToTheBoundedSemantics) {
  std::mt19937 rng(13);
  const std::vector<std::uint64_t> steps{0, 1, 2, 3, 5};
  int accepted = 0, rejected = 0;
  for (int trial = 0; trial < 300; ++trial) {
    PathFormula f = random_formula(rng, 1 + trial % 3, 2);
    // Bound the top operator where it takes bounds: [a, b], >= a or <= b.
    if (f.op == P::Op::eventually || f.op == P::Op::always || f.op == P::Op::until || f.op == P::Op::release ||
        f.op == P::Op::weak_until) {
      const std::int32_t a = static_cast<std::int32_t>(rng() % 3), b = 2 + static_cast<std::int32_t>(rng() % 3);
      const int form = static_cast<int>(rng() % 3);
      if (form != 2) f.lower_bound = a;
      if (form != 1) f.upper_bound = b;
    }
    const Lasso w = random_lasso(rng, 5, [&] { return rng() % 4; });
    const bool expected = holds_bounded(f, steps, w, 0);
    (expected ? accepted : rejected)++;
    const PathFormula unfolded = automata::unfold_step_bounds(f, steps);
    EXPECT_EQ(exists_ltl_path(lasso_chain(w), unfolded, atom_sets(w.letters, 2)).test(0), expected) << "trial " << trial;
  }
  EXPECT_GT(accepted, 40);
  EXPECT_GT(rejected, 40);
  PathFormula empty = P::unary(P::Op::eventually, P::atom(0));
  empty.lower_bound = 3;  // [3, 1]
  empty.upper_bound = 1;
  EXPECT_THROW(automata::unfold_step_bounds(empty, steps), std::invalid_argument);
  // Nested bounds multiply: G<=1000 G<=1000 G<=1000 a would be 10^9 operators.
  PathFormula nested = P::atom(0);
  for (int level = 0; level < 3; ++level) {
    nested = P::unary(P::Op::always, std::move(nested));
    nested.upper_bound = 0;
  }
  EXPECT_THROW(automata::unfold_step_bounds(nested, {1000}), std::invalid_argument);
  EXPECT_NO_THROW(automata::unfold_step_bounds(nested, {20}));  // 20^3: fits
}

std::vector<std::uint64_t> random_letters(std::uint32_t n, std::mt19937& rng) {
  std::vector<std::uint64_t> letters(n);
  for (auto& l : letters) l = rng() % 4;
  return letters;
}

TEST(Ltl, AChainsPathAndItsNegationSumToOne) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 150; ++trial) {
    const SparseMdp chain = test::small_random_mdp(3 + trial % 5, true, rng);
    const std::vector<StateSet> atoms = atom_sets(random_letters(chain.num_states(), rng), 2);
    const PathFormula f = random_formula(rng, 2 + trial % 3, 2);
    const NumericResult yes = compute_ltl_probabilities(chain, Optimization::minimize, f, atoms, kSound, kCpu);
    const NumericResult no =
        compute_ltl_probabilities(chain, Optimization::minimize, P::unary(P::Op::negation, f), atoms, kSound, kCpu);
    for (std::uint32_t s = 0; s < chain.num_states(); ++s) {
      EXPECT_NEAR(yes.values[s] + no.values[s], 1.0, 1e-8) << "trial " << trial << " state " << s;
    }
  }
}

// A result's bounds at s; its value where it has none (every value exact).
double lower_at(const NumericResult& r, std::uint32_t s) { return r.lower.empty() ? r.values[s] : r.lower[s]; }
double upper_at(const NumericResult& r, std::uint32_t s) { return r.upper.empty() ? r.values[s] : r.upper[s]; }

using Searched = test::ReferenceSearch;

TEST(Ltl, EventuallyEqualsTheReachabilityPipeline) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 40; ++trial) {
    const SparseMdp mdp = test::small_random_mdp(4 + trial % 6, false, rng);
    const std::vector<StateSet> atoms = atom_sets(random_letters(mdp.num_states(), rng), 2);
    const Searched searched(mdp);
    for (Optimization direction : {Optimization::minimize, Optimization::maximize}) {
      const NumericResult ltl =
          compute_ltl_probabilities(mdp, direction, P::unary(P::Op::eventually, P::atom(0)), atoms, kSound, kCpu);
      const NumericResult reach = compute_until_probabilities(mdp, *searched.search, direction,
                                                              all_states(mdp.num_states()), atoms[0], kSound, kCpu);
      for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
        EXPECT_NEAR(ltl.values[s], reach.values[s], 1e-8) << "trial " << trial << " state " << s;
        EXPECT_LE(lower_at(ltl, s), reach.values[s] + 1e-8);
        EXPECT_GE(upper_at(ltl, s), reach.values[s] - 1e-8);
      }
    }
  }
}

TEST(Ltl, MdpBoundsHoldEveryMemorylessScheduler) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 30; ++trial) {
    const SparseMdp mdp = test::small_random_mdp(3 + trial % 3, false, rng);
    const std::vector<StateSet> atoms = atom_sets(random_letters(mdp.num_states(), rng), 2);
    const PathFormula f = random_formula(rng, 2 + trial % 2, 2);
    const NumericResult most = compute_ltl_probabilities(mdp, Optimization::maximize, f, atoms, kSound, kCpu);
    const NumericResult least = compute_ltl_probabilities(mdp, Optimization::minimize, f, atoms, kSound, kCpu);
    const std::uint32_t n = mdp.num_states();
    Scheduler scheduler{std::vector<std::uint32_t>(n, 0)};
    for (std::uint32_t s = 0; s < n;) {
      const SparseMdp chain = induced_dtmc(mdp, scheduler);
      const NumericResult p = compute_ltl_probabilities(chain, Optimization::minimize, f, atoms, kSound, kCpu);
      for (std::uint32_t t = 0; t < n; ++t) {
        EXPECT_GE(upper_at(most, t), p.values[t] - 1e-8) << "trial " << trial;
        EXPECT_LE(lower_at(least, t), p.values[t] + 1e-8) << "trial " << trial;
      }
      for (s = 0; s < n; ++s) {  // the next scheduler, a mixed-radix counter
        if (++scheduler.choice[s] < mdp.row_group_starts[s + 1] - mdp.row_group_starts[s]) break;
        scheduler.choice[s] = 0;
      }
    }
  }
}

// A plain, sequential product: the pairs reached from every model state's starting pair
// (one sink for every rejecting one), numbered by (automaton state, model state); each
// pair's model rows with the successors' pairs (equal ones summed), then its jumps.
LtlProduct reference_product(const SparseMdp& mdp, automata::LtlAutomaton& a, const std::vector<StateSet>& atoms,
                             ProductChoices choices) {
  using Key = std::pair<std::uint32_t, std::uint32_t>;  // (automaton state, model state)
  const std::vector<std::uint64_t> letters = letters_of(mdp.num_states(), atoms);
  const auto key = [&](std::uint32_t q, std::uint32_t s) { return q == 0 ? Key{0, 0} : Key{q, s}; };
  const auto jumps = [&](std::uint32_t q) {
    const bool jumping = choices != ProductChoices::model_only && q != 0 && !a.in_accepting_component(q);
    return jumping ? a.jumps(q) : std::vector<std::uint32_t>{};
  };
  std::set<Key> found{{0, 0}};
  std::vector<Key> queue;
  std::vector<Key> start;
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    start.push_back(key(a.step(a.initial(), letters[s]), s));
    if (found.insert(start.back()).second) queue.push_back(start.back());
  }
  for (std::size_t i = 0; i < queue.size(); ++i) {
    const auto [q, s] = queue[i];
    const auto visit = [&](Key k) {
      if (found.insert(k).second) queue.push_back(k);
    };
    for (std::uint64_t k = mdp.row_starts[mdp.row_group_starts[s]]; k < mdp.row_starts[mdp.row_group_starts[s + 1]]; ++k) {
      visit(key(a.step(q, letters[mdp.columns[k]]), mdp.columns[k]));
    }
    for (std::uint32_t j : jumps(q)) visit({j, s});
  }
  const std::vector<Key> order(found.begin(), found.end());  // sorted: (q, s)
  const auto number = [&](Key k) {
    return static_cast<std::uint32_t>(std::lower_bound(order.begin(), order.end(), k) - order.begin());
  };
  LtlProduct p;
  PodVector<double> values;
  p.mdp.row_group_starts.push_back(0);
  p.mdp.row_starts.push_back(0);
  const auto add_row = [&](std::map<std::uint32_t, double> row) {
    for (const auto& [column, probability] : row) {
      p.mdp.columns.push_back(column);
      values.push_back(probability);
    }
    p.mdp.row_starts.push_back(p.mdp.columns.size());
  };
  for (std::uint32_t i = 0; i < order.size(); ++i) {
    const auto [q, s] = order[i];
    if (q == 0) {
      add_row({{i, 1.0}});
    } else {
      for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
        std::map<std::uint32_t, double> row;
        for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
          row[number(key(a.step(q, letters[mdp.columns[k]]), mdp.columns[k]))] += mdp.values[k];
        }
        add_row(row);
      }
      for (std::uint32_t j : jumps(q)) add_row({{number({j, s}), 1.0}});
    }
    p.mdp.row_group_starts.push_back(p.mdp.row_starts.size() - 1);
  }
  p.mdp.values = CompactValues(std::move(values));
  for (const Key& k : start) p.start.push_back(number(k));
  return p;
}

// The product on all cores against the plain one, on random MDPs with one-choice and
// 40-choice states, rows longer than a warp, self-loops and long chains, and on odd
// sizes down to one state; the model's values plain and indexed (the product's then
// indexed too, with the sums of successors that meet in the sink in its table).
TEST(Ltl, TheProductIsEquivalentToRef) {
  for (std::uint32_t n : {1u, 2u, 7u, 333u, 2049u}) {
    const SparseMdp plain = test::random_mdp(n, n);
    SparseMdp indexed = plain;
    ASSERT_TRUE(indexed.values.compress());
    std::mt19937 rng(n);
    const std::vector<StateSet> atoms = atom_sets(random_letters(n, rng), 2);
    for (int trial = 0; trial < 8; ++trial) {
      const PathFormula f = random_formula(rng, 2 + trial % 2, 2);
      const SparseMdp& mdp = trial % 2 == 0 ? plain : indexed;
      for (ProductChoices choices : {ProductChoices::model_and_jumps, ProductChoices::model_only}) {
        // One automaton for both: its states are numbered as they are first met.
        automata::LtlAutomaton automaton(f, 2);
        const LtlProduct got = build_ltl_product(mdp, automaton, atoms, choices);
        const LtlProduct expected = reference_product(mdp, automaton, atoms, choices);
        ASSERT_EQ(got.mdp.num_states(), expected.mdp.num_states()) << "n " << n << " trial " << trial;
        EXPECT_TRUE(got.mdp.row_group_starts == expected.mdp.row_group_starts) << "n " << n << " trial " << trial;
        EXPECT_TRUE(got.mdp.row_starts == expected.mdp.row_starts) << "n " << n << " trial " << trial;
        EXPECT_TRUE(got.mdp.columns == expected.mdp.columns) << "n " << n << " trial " << trial;
        for (std::uint64_t k = 0; k < expected.mdp.num_transitions(); ++k) {
          ASSERT_EQ(got.mdp.values[k], expected.mdp.values[k]) << "n " << n << " entry " << k;
        }
        EXPECT_EQ(got.start, expected.start) << "n " << n << " trial " << trial;
      }
    }
  }
}

// The product is numbered by (automaton state, model state), whatever the threads did:
// built on one thread and on all cores, on random MDPs with long chains and rows
// longer than a warp, it is the same.
TEST(Ltl, TheProductIsTheSameOnOneThreadAndOnAll) {
  for (std::uint32_t seed = 1; seed <= 4; ++seed) {
    const SparseMdp mdp = test::random_mdp(3001 + seed * 517, seed);
    std::mt19937 rng(seed);
    const std::vector<StateSet> atoms = atom_sets(random_letters(mdp.num_states(), rng), 2);
    const PathFormula f = P::binary(P::Op::disjunction, P::unary(P::Op::always, P::unary(P::Op::eventually, P::atom(0))),
                                    P::unary(P::Op::eventually, P::binary(P::Op::conjunction, P::atom(1),
                                                                           P::unary(P::Op::next, P::atom(0)))));
    for (ProductChoices choices : {ProductChoices::model_and_jumps, ProductChoices::edges_and_jumps}) {
      automata::LtlAutomaton one_automaton(f, 2), all_automaton(f, 2);
      LtlProduct one;
      {
        oneapi::tbb::global_control single(oneapi::tbb::global_control::max_allowed_parallelism, 1);
        one = build_ltl_product(mdp, one_automaton, atoms, choices);
      }
      const LtlProduct all = build_ltl_product(mdp, all_automaton, atoms, choices);
      EXPECT_GT(all.mdp.num_states(), mdp.num_states()) << "seed " << seed;
      EXPECT_TRUE(one.mdp.row_group_starts == all.mdp.row_group_starts) << "seed " << seed;
      EXPECT_TRUE(one.mdp.row_starts == all.mdp.row_starts) << "seed " << seed;
      EXPECT_TRUE(one.mdp.columns == all.mdp.columns) << "seed " << seed;
      EXPECT_TRUE(one.mdp.values == all.mdp.values) << "seed " << seed;
      EXPECT_EQ(one.start, all.start);
      EXPECT_EQ(one.model_state, all.model_state);
      EXPECT_TRUE(one.accepting_part == all.accepting_part);
      EXPECT_NO_THROW(check_invariants(all.mdp));
    }
  }
}

class LtlAcceptanceIsEquivalentToRef : public ::testing::TestWithParam<graph::SearchKind> {
 protected:
  void SetUp() override {
    if (GetParam() == graph::SearchKind::gpu && !gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  }
};

// The almost-surely accepted pairs (Prob1E rounds, on each search backend) against the
// reference's accepting end components (maximal end components, the reference search):
// they hold every accepting end component, and from each of them the reference's
// components are reached almost surely (Prob1E), so Pmax is the same. On random MDPs of
// odd sizes down to one state, with one-choice and 40-choice states, self-loops, rows
// longer than a warp and long chains, random paths over two atoms, and both
// products whose acceptance is looked for (with the model's rows, and with edges).
TEST_P(LtlAcceptanceIsEquivalentToRef, OnRandomProducts) {
  int larger = 0, nonempty = 0;
  for (std::uint32_t n : {1u, 2u, 7u, 60u, 333u}) {
    for (std::uint32_t seed = 1; seed <= 3; ++seed) {
      const SparseMdp mdp = n < 60 && seed == 3 ? [&] {
        std::mt19937 rng(seed * n);
        return test::small_random_mdp(n, false, rng);
      }() : test::random_mdp(n, seed * 7 + n);
      std::mt19937 rng(seed + 100 * n);
      const std::vector<StateSet> atoms = atom_sets(random_letters(n, rng), 2);
      for (int trial = 0; trial < 12; ++trial) {
        const PathFormula f = random_formula(rng, 2 + trial % 3, 2);
        for (ProductChoices choices : {ProductChoices::model_and_jumps, ProductChoices::edges_and_jumps}) {
          automata::LtlAutomaton automaton(f, 2);
          const LtlProduct product = build_ltl_product(mdp, automaton, atoms, choices);
          const test::ReferenceSearch reference(product.mdp);
          const auto search = graph::make_search_backend(product.mdp, GetParam());
          const StateSet got = almost_surely_accepted(product, *search);
          const StateSet components = accepting_end_components(product, *reference.search);
          const std::string where = "n " + std::to_string(n) + " seed " + std::to_string(seed) + " trial " +
                                    std::to_string(trial);
          ASSERT_TRUE(components.is_subset_of(got)) << where;
          ASSERT_TRUE(got.is_subset_of(product.accepting_part | product.universal)) << where;
          const StateSet all = all_states(product.mdp.num_states());
          const StateSet reaching = graph::prob1e(*reference.search, all, components,
                                                  graph::prob0a(*reference.search, all, components));
          ASSERT_TRUE(got.is_subset_of(reaching)) << where;
          larger += got != components;
          nonempty += got.any();
        }
      }
    }
  }
  EXPECT_GT(larger, 20) << "pairs that reach an accepting end component, not in one";
  EXPECT_GT(nonempty, 100);
}

INSTANTIATE_TEST_SUITE_P(Backends, LtlAcceptanceIsEquivalentToRef, test::every_search_backend(),
                         test::search_backend_name);

// multi(...) of one co-safe or safety path equals its probability by the LTL pipeline,
// both ways, on random MDPs (other paths it refuses).
TEST(Ltl, MultiObjectiveOfOnePathIsItsProbability) {
  std::mt19937 rng(31);
  int compared = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const SparseMdp mdp = test::small_random_mdp(3 + trial % 5, false, rng);
    const std::vector<StateSet> atoms = atom_sets(random_letters(mdp.num_states(), rng), 2);
    const PathFormula f = random_formula(rng, 1 + trial % 3, 2);
    for (Optimization direction : {Optimization::maximize, Optimization::minimize}) {
      MultiObjective objective;
      objective.ltl = f;
      objective.atoms = atoms;
      objective.query = direction;
      const MultiObjectiveAnswer answer = check_multi_objective(mdp, {objective});
      const NumericResult expected = compute_ltl_probabilities(mdp, direction, f, atoms, kSound, kCpu);
      EXPECT_NEAR(answer.value, expected.values[mdp.initial_states[0]], 1e-8) << "trial " << trial;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 120);  // every path, whatever its kind
}

// The property's value; what the parser refuses is thrown, with its message.
auto value_of(const SparseMdp& mdp, const std::string& text) {
  io::PropertyEntry entry = io::parse_property(text, "p");
  if (!entry.formula) throw std::runtime_error(entry.error);
  const Searched searched(mdp);
  CheckContext context{mdp, *searched.search, PropertyScope{"p", {}, {}, {}}, kSound, kCpu};
  return check_property(*entry.formula, context).value;
}

double number(const SparseMdp& mdp, const std::string& text) { return value_of(mdp, text).number; }

bool truth(const SparseMdp& mdp, const std::string& text) { return value_of(mdp, text).truth; }

// 0 chooses to visit 1 ("a") or 2 ("b"), both of which return. Seeing both infinitely
// often needs a scheduler that alternates: no memoryless one does.
TEST(Ltl, ByHandAPropertyThatNeedsMemory) {
  const SparseMdp mdp =
      test::make_mdp({{{{1, 1.0}}, {{2, 1.0}}}, {{{0, 1.0}}}, {{{0, 1.0}}}}, {{"a", {1}}, {"b", {2}}});
  EXPECT_NEAR(number(mdp, "Pmax=? [ (G F \"a\") & (G F \"b\") ]"), 1.0, 1e-9);
  EXPECT_NEAR(number(mdp, "Pmin=? [ (G F \"a\") & (G F \"b\") ]"), 0.0, 1e-9);
  EXPECT_NEAR(number(mdp, "Pmin=? [ (G F \"a\") | (G F \"b\") ]"), 1.0, 1e-9);
  EXPECT_TRUE(truth(mdp, "E [ (G F \"a\") & (G F \"b\") ]"));
  EXPECT_FALSE(truth(mdp, "A [ G F \"a\" ]"));
  EXPECT_TRUE(truth(mdp, "A [ G (\"a\" => X !\"a\") ]"));
}

// Rewards until a co-safe path holds, one per step. The chain: 0 tosses a coin for 1
// ("a") or 2 ("b"), both of which return to 0, so seeing both is a coupon collector's
// wait: the first at step 1, then 2 steps a try, 2 tries expected: 5. The MDP: 0 chooses,
// so a tour 0, 1, 0, 2 takes 3 steps at least, and a scheduler may never see "b".
// Paths that are plain untils once rewritten ((F a) | (F b) is F (a | b), (G a) & (G b)
// is G (a & b)) take the reachability pipeline: on random MDPs, their P and R through
// the checker equal the product's answers for the paths as written.
TEST(Ltl, PlainUntilsAfterTheRewritingEqualTheProducts) {
  std::mt19937 rng(5);
  const auto F = [](P f) { return P::unary(P::Op::eventually, std::move(f)); };
  const P written = P::binary(P::Op::disjunction, F(P::atom(0)), F(P::atom(1)));
  const P until = P::binary(P::Op::conjunction, P::binary(P::Op::until, P::atom(0), P::atom(1)),
                            P::binary(P::Op::until, P::atom(0), P::atom(1)));
  const P safety = P::binary(P::Op::conjunction, P::unary(P::Op::always, P::atom(0)),
                             P::unary(P::Op::always, P::unary(P::Op::negation, P::atom(1))));
  for (int trial = 0; trial < 40; ++trial) {
    SparseMdp mdp = test::small_random_mdp(4 + trial % 7, trial % 3 == 0, rng);
    const std::vector<StateSet> atoms = atom_sets(random_letters(mdp.num_states(), rng), 2);
    mdp.labels = {{"a", atoms[0]}, {"b", atoms[1]}};
    mdp.rewards.push_back({"steps", CompactValues(PodVector<double>(mdp.num_states(), 1.0)), {}});
    for (const Optimization dir : {Optimization::minimize, Optimization::maximize}) {
      const std::string m = dir == Optimization::minimize ? "min" : "max";
      const double by_product = compute_ltl_probabilities(mdp, dir, written, atoms, kSound, kCpu).values[0];
      EXPECT_NEAR(number(mdp, "P" + m + "=? [ (F \"a\") | (F \"b\") ]"), by_product, 1e-8) << "trial " << trial;
      const double until_by_product = compute_ltl_probabilities(mdp, dir, until, atoms, kSound, kCpu).values[0];
      EXPECT_NEAR(number(mdp, "P" + m + "=? [ (\"a\" U \"b\") & (\"a\" U \"b\") ]"), until_by_product, 1e-8)
          << "trial " << trial;
      const double safety_by_product = compute_ltl_probabilities(mdp, dir, safety, atoms, kSound, kCpu).values[0];
      EXPECT_NEAR(number(mdp, "P" + m + "=? [ (G \"a\") & (G !\"b\") ]"), safety_by_product, 1e-8) << "trial " << trial;
      for (const auto& [path, text] : {std::pair{written, "(F \"a\") | (F \"b\")"},
                                       std::pair{until, "(\"a\" U \"b\") & (\"a\" U \"b\")"}}) {
        const double reward = compute_ltl_reward(mdp, dir, mdp.rewards[0], path, atoms, kSound, kCpu).values[0];
        const double checked = number(mdp, "R" + m + "=? [ " + text + " ]");
        if (std::isinf(reward)) {
          EXPECT_TRUE(std::isinf(checked)) << "trial " << trial << ", " << text;
        } else {
          EXPECT_NEAR(checked, reward, 1e-7 * std::max(1.0, reward)) << "trial " << trial << ", " << text;
        }
      }
    }
  }
  // Only unbounded F, U and G over state formulas are plain.
  const std::vector<StateSet> atoms = atom_sets({1, 2, 3}, 2);
  EXPECT_TRUE(plain_until_of(F(P::atom(0)), atoms));
  EXPECT_TRUE(plain_until_of(P::binary(P::Op::until, P::atom(0), P::atom(1)), atoms));
  EXPECT_FALSE(plain_until_of(F(F(P::atom(0))), atoms));
  const std::optional<PlainUntil> always = plain_until_of(P::unary(P::Op::always, P::atom(0)), atoms);
  ASSERT_TRUE(always);  // G a: 1 - F !a
  EXPECT_TRUE(always->complemented);
  EXPECT_EQ(always->psi, ~atoms[0]);
  P bounded = F(P::atom(0));
  bounded.upper_bound = 0;
  EXPECT_FALSE(plain_until_of(bounded, atoms));
}

TEST(Ltl, ByHandRewardsUntilACoSafePath) {
  SparseMdp chain =
      test::make_mdp({{{{1, 0.5}, {2, 0.5}}}, {{{0, 1.0}}}, {{{0, 1.0}}}}, {{"a", {1}}, {"b", {2}}});
  chain.rewards.push_back({"steps", CompactValues{1.0, 1.0, 1.0}, {}});
  EXPECT_NEAR(number(chain, "R=? [ (F \"a\") & (F \"b\") ]"), 5.0, 1e-8);
  EXPECT_NEAR(number(chain, "R=? [ X (\"a\" | \"b\") ]"), 1.0, 1e-12);
  SparseMdp mdp = test::make_mdp({{{{1, 1.0}}, {{2, 1.0}}}, {{{0, 1.0}}}, {{{0, 1.0}}}}, {{"a", {1}}, {"b", {2}}});
  mdp.rewards.push_back({"steps", CompactValues{1.0, 1.0, 1.0}, {}});
  EXPECT_NEAR(number(mdp, "Rmin=? [ (F \"a\") & (F \"b\") ]"), 3.0, 1e-8);
  EXPECT_EQ(number(mdp, "Rmax=? [ (F \"a\") & (F \"b\") ]"), std::numeric_limits<double>::infinity());
  EXPECT_THROW(number(mdp, "Rmin=? [ G F \"a\" ]"), std::runtime_error);
  // A bare state formula is a co-safe path too (PRISM's dtmc_rewards cosafety tests):
  // met at the first state, for nothing, or never, for an infinite reward.
  EXPECT_EQ(number(chain, "R=? [ !\"a\" ]"), 0.0);
  EXPECT_EQ(number(chain, "R=? [ \"a\" ]"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(number(mdp, "Rmax=? [ true ]"), 0.0);
}

// Eight G F conjuncts (a generalised Büchi condition, 16 temporal subformulas): each
// state of a ring either moves on by a coin or resets to 0. Moving on visits all (Pmax
// 1); resetting forever sees only 0 (Pmin 0). Guessing X first keeps one of 2^8 sets.
TEST(Ltl, ByHandEightInfinitelyOftens) {
  std::vector<test::StateChoices> states(8);
  for (std::uint32_t s = 0; s < 8; ++s) states[s] = {{{(s + 1) % 8, 0.5}, {s, 0.5}}, {{0, 1.0}}};
  const SparseMdp ring = test::make_mdp(states, {});
  std::vector<StateSet> atoms;
  PathFormula all = P::unary(P::Op::always, P::unary(P::Op::eventually, P::atom(0)));
  for (std::uint32_t i = 0; i < 8; ++i) {
    atoms.push_back(test::states_of(8, {i}));
    if (i > 0) {
      all = P::binary(P::Op::conjunction, std::move(all), P::unary(P::Op::always, P::unary(P::Op::eventually, P::atom(i))));
    }
  }
  EXPECT_NEAR(compute_ltl_probabilities(ring, Optimization::maximize, all, atoms, kSound, kCpu).values[0], 1.0, 1e-9);
  EXPECT_NEAR(compute_ltl_probabilities(ring, Optimization::minimize, all, atoms, kSound, kCpu).values[0], 0.0, 1e-9);
}

// Knuth and Yao's die: the first toss decides between {1,2,3} (heads) and {4,5,6}.
TEST(Ltl, ByHandADiesPaths) {
  const SparseMdp die = test::knuth_yao_die();
  EXPECT_NEAR(number(die, "P=? [ F G \"six\" ]"), 1.0 / 6, 1e-9);
  EXPECT_NEAR(number(die, "P=? [ (F \"one\") | (F \"two\") ]"), 1.0 / 3, 1e-9);
  EXPECT_NEAR(number(die, "P=? [ X X X \"one\" ]"), 1.0 / 8, 1e-9);  // 0, 1, 3, 7
  EXPECT_NEAR(number(die, "P=? [ !\"done\" U (\"done\" & X \"done\") ]"), 1.0, 1e-9);
  EXPECT_TRUE(truth(die, "P>=1 [ G (\"done\" => G \"done\") ]"));
}

TEST(Ltl, TheParserReadsNestedPathsAsLtlAndKeepsTheSimpleForms) {
  using Path = TemporalOperator::Path;
  const auto path_of = [](const std::string& text) {
    const io::PropertyEntry entry = io::parse_property(text, "p");
    if (!entry.formula) ADD_FAILURE() << text << ": " << entry.error;
    return entry.formula ? entry.formula->temporal.path : Path::next;
  };
  EXPECT_EQ(path_of("P=? [ G F \"a\" ]"), Path::ltl);
  EXPECT_EQ(path_of("P=? [ (F \"a\") & (F \"b\") ]"), Path::ltl);
  EXPECT_EQ(path_of("P=? [ F \"a\" U \"b\" ]"), Path::ltl);
  EXPECT_EQ(path_of("P=? [ \"a\" U (\"b\" U \"c\") ]"), Path::ltl);
  EXPECT_EQ(io::parse_property("P=? [ \"a\" U (\"b\" V \"c\") ]", "p").error, "p:1:18: expected ')', found 'V'");
  EXPECT_EQ(path_of("Pmax=? [ G (\"a\" => F \"b\") ]"), Path::ltl);
  EXPECT_EQ(path_of("A [ X X \"a\" ]"), Path::ltl);
  EXPECT_EQ(path_of("P=? [ \"a\" U \"b\" ]"), Path::until);
  EXPECT_EQ(path_of("P=? [ (\"a\") U \"b\" ]"), Path::until);
  EXPECT_EQ(path_of("E [ G F \"a\" ]"), Path::always_eventually);
  // A reward's path whose first parentheses hold a U: LTL too, not a state formula.
  EXPECT_EQ(path_of("R=? [ (\"a\" U \"b\") & (F \"c\") ]"), Path::ltl);
  EXPECT_EQ(path_of("R=? [ \"a\" U \"b\" ]"), Path::reachability_reward);
  EXPECT_EQ(io::parse_property("R=? [ \"a\" V \"b\" ]", "p").error,
            "p:1:11: expected F, C, C<=k, I=k, S or phi U psi, found 'V'");
  // ... but not a bounded F, which PRISM refuses in a reward too.
  const io::PropertyEntry bounded_reward = io::parse_property("R=? [ F<=3 \"a\" ]", "p");
  EXPECT_TRUE(bounded_reward.unsupported);
  EXPECT_EQ(bounded_reward.error,
            "p:1:8: not supported yet: a bounded F or U in a reward (C<=k sums the first k steps' rewards)");
  // (F a) & (F b): two state formulas, each an atom.
  const io::PropertyEntry entry = io::parse_property("P=? [ (F \"a\") & (F x>1 & P>0.5 [ F \"b\" ]) ]", "p");
  EXPECT_EQ(entry.formula->operands.size(), 2u);
  EXPECT_EQ(entry.formula->operands[1].operands.size(), 1u);  // the nested P, renumbered
  const io::PropertyEntry bounded = io::parse_property("P=? [ G F[1,3] \"a\" ]", "p");  // bounds inside
  ASSERT_TRUE(bounded.formula) << bounded.error;
  EXPECT_EQ(bounded.formula->temporal.path, Path::ltl);
  EXPECT_EQ(bounded.formula->temporal.ltl_bounds.size(), 2u);
  EXPECT_EQ(bounded.formula->temporal.ltl->operands[0].lower_bound, 0);
  EXPECT_EQ(bounded.formula->temporal.ltl->operands[0].upper_bound, 1);
  const io::PropertyEntry sum = io::parse_property("P=? [ (F \"a\") + 1 ]", "p");
  EXPECT_FALSE(sum.unsupported);
  EXPECT_NE(sum.error.find("p:1:15: expected a Boolean combination of paths"), std::string::npos) << sum.error;
}

}  // namespace
}  // namespace mdpvi
