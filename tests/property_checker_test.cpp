// Whole properties on models small enough to answer by hand: step bounds, rewards
// (with Infinity and zero-reward end components), bounds, filters, and the errors.
#include "engine/check/ctl.h"
#include "engine/check/property_checker.h"
#include "engine/check/reachability.h"
#include "graph/qualitative.h"
#include "graph/search_backend.h"
#include "io/property_parser.h"
#include "io/property_references.h"
#include "test_models.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>

namespace mdpvi {
namespace {

using test::make_mdp;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

constexpr SolverOptions kTight{Method::value_iteration, {ConvergenceCriterion::absolute, 1e-12, 1000000}};

// The property's whole result: its value and its computation's stages.
PropertyResult check_result(const SparseMdp& mdp, const std::string& text, SolverOptions solver = kTight) {
  io::PropertyEntry entry = io::parse_property(text, "p");
  if (!entry.formula) throw std::runtime_error(entry.error);
  graph::ChoicePredecessorGraph graph = graph::build_choice_predecessor_graph(mdp);
  auto search = graph::make_search_backend(mdp, graph, graph::SearchKind::reference);
  CheckContext context{mdp, *search, PropertyScope{"p", {}, {}, {}}, solver, {SolverKind::cpu}};
  return check_property(*entry.formula, context);
}

PropertyValue check(const SparseMdp& mdp, const std::string& text, SolverOptions solver = kTight) {
  return check_result(mdp, text, solver).value;
}

double number(const SparseMdp& mdp, const std::string& text) {
  PropertyValue value = check(mdp, text);
  EXPECT_EQ(value.kind, PropertyValue::Kind::number) << text;
  return value.number;
}

bool truth(const SparseMdp& mdp, const std::string& text) {
  PropertyValue value = check(mdp, text);
  EXPECT_EQ(value.kind, PropertyValue::Kind::boolean) << text;
  return value.truth;
}

std::string error(const SparseMdp& mdp, const std::string& text) {
  try {
    check(mdp, text);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

// The die with a reward of 1 per toss (a choice reward) and 1 per tossing state.
SparseMdp die_with_rewards() {
  SparseMdp die = test::knuth_yao_die();
  PodVector<double> tossing(die.num_states(), 0.0);
  for (std::uint32_t s = 0; s < 7; ++s) tossing[s] = 1.0;
  die.rewards.push_back({"tosses", {}, CompactValues(tossing)});  // one row per state: rows are states
  die.rewards.push_back({"tossing", CompactValues(tossing), {}});
  return die;
}

TEST(StepBounded, DieFacesWithinKSteps) {
  SparseMdp die = test::knuth_yao_die();
  // After 3 tosses: 0-1-3-7 is face one; 6 of the 8 paths have ended.
  EXPECT_EQ(number(die, "P=? [ F<=2 \"one\" ]"), 0.0);
  EXPECT_NEAR(number(die, "P=? [ F<=3 \"one\" ]"), 0.125, 1e-15);
  EXPECT_NEAR(number(die, "P=? [ F<4 \"one\" ]"), 0.125, 1e-15);
  EXPECT_NEAR(number(die, "P=? [ F<=5 \"one\" ]"), 0.125 + 1.0 / 32, 1e-15);  // 0-1-3-1-3-7
  EXPECT_NEAR(number(die, "P=? [ true U<=3 \"done\" ]"), 0.75, 1e-15);
  EXPECT_EQ(number(die, "P=? [ F<=0 \"done\" ]"), 0.0);
}

// Lower step bounds count only the steps they name: face one is absorbing, so
// F>=k and F[a,b] of it are about reaching it in time; state 3 is passed at steps 2,
// 4, 6..., so a visit at step 2 does not satisfy F>=3.
TEST(StepBounded, LowerAndIntervalBounds) {
  SparseMdp die = test::knuth_yao_die();
  die.labels.push_back({"s1", test::states_of(13, {1})});
  die.labels.push_back({"s3", test::states_of(13, {3})});
  EXPECT_NEAR(number(die, "P=? [ F=3 \"one\" ]"), 0.125, 1e-15);
  EXPECT_NEAR(number(die, "P=? [ F=3 \"done\" ]"), 0.75, 1e-15);
  EXPECT_NEAR(number(die, "P=? [ F[4,5] \"one\" ]"), 0.125 + 1.0 / 32, 1e-15);
  EXPECT_NEAR(number(die, "P=? [ F>=4 \"one\" ]"), 1.0 / 6, 1e-10);
  EXPECT_NEAR(number(die, "P=? [ F>3 \"one\" ]"), 1.0 / 6, 1e-10);
  EXPECT_NEAR(number(die, "P=? [ F=2 \"s3\" ]"), 0.25, 1e-15);
  EXPECT_NEAR(number(die, "P=? [ F>=3 \"s3\" ]"), 1.0 / 16, 1e-10);  // 0-1-3-1-3
  EXPECT_NEAR(number(die, "P=? [ F[3,4] \"s3\" ]"), 1.0 / 16, 1e-15);
  EXPECT_EQ(number(die, "P=? [ F[3,3] \"s3\" ]"), 0.0);
  EXPECT_EQ(number(die, "P=? [ !\"s1\" U>=3 \"one\" ]"), 0.0);  // every way to one passes 1
  EXPECT_NEAR(number(die, "P=? [ !\"s3\" U[0,2] \"s1\" ]"), 0.5, 1e-15);
  EXPECT_EQ(error(die, "P=? [ F[3,2] \"one\" ]"), "p:1:11: the step interval [3, 2] is empty");
}

// G, W and R through their complements, on the die and on an MDP whose min and max
// differ (state 0 may stay forever or go to the goal).
TEST(PathOperators, GloballyWeakUntilAndRelease) {
  SparseMdp die = test::knuth_yao_die();
  EXPECT_NEAR(number(die, "P=? [ G !\"one\" ]"), 5.0 / 6, 1e-10);
  EXPECT_EQ(number(die, "P=? [ G<=2 !\"done\" ]"), 1.0);
  EXPECT_NEAR(number(die, "P=? [ G<=3 !\"done\" ]"), 0.25, 1e-15);
  EXPECT_NEAR(number(die, "P=? [ !\"done\" W \"one\" ]"), 1.0 / 6, 1e-10);  // U, and G !done is 0
  EXPECT_NEAR(number(die, "P=? [ \"done\" R !\"one\" ]"), 5.0 / 6, 1e-10);
  EXPECT_EQ(number(die, "P=? [ !\"done\" W<=2 \"one\" ]"), 1.0);  // G<=2 !done holds
  SparseMdp mdp = make_mdp({{{{0, 1.0}}, {{1, 1.0}}}, {{{1, 1.0}}}}, {{"goal", {1}}});
  EXPECT_EQ(number(mdp, "Pmax=? [ G !\"goal\" ]"), 1.0);
  EXPECT_EQ(number(mdp, "Pmin=? [ G !\"goal\" ]"), 0.0);
  EXPECT_EQ(number(mdp, "Pmin=? [ true W \"goal\" ]"), 1.0);
  EXPECT_EQ(number(mdp, "Pmin=? [ \"goal\" R false ]"), 0.0);  // G false: never
  EXPECT_TRUE(truth(mdp, "P<=1 [ G !\"goal\" ]"));
  EXPECT_FALSE(truth(mdp, "P>0 [ G !\"goal\" ]"));  // for every scheduler: not the one that leaves
  // The sound default keeps its bound through the complement.
  PropertyValue sound = check(die, "P=? [ G !\"one\" ]", SolverOptions{});
  EXPECT_NEAR(sound.number, 5.0 / 6, 1e-6);
}

// Long-run values of DTMCs, by hand: a two-state chain (pi = b/(a+b), a/(a+b)); a
// periodic one, where the lazy chain still settles; and a transient state choosing
// between two bottom SCCs.
TEST(SteadyState, LongRunProbabilitiesAndRewards) {
  SparseMdp two = make_mdp({{{{0, 0.7}, {1, 0.3}}}, {{{0, 0.6}, {1, 0.4}}}}, {{"one", {1}}});
  EXPECT_NEAR(number(two, "S=? [ \"one\" ]"), 1.0 / 3, 1e-9);
  EXPECT_NEAR(number(two, "S=? [ !\"one\" ]"), 2.0 / 3, 1e-9);
  EXPECT_TRUE(truth(two, "S<0.5 [ \"one\" ]"));
  SparseMdp periodic = make_mdp({{{{1, 1.0}}}, {{{0, 1.0}}}}, {{"one", {1}}});
  EXPECT_NEAR(number(periodic, "S=? [ \"one\" ]"), 0.5, 1e-9);
  // 0 goes to 1 (absorbing, "a", reward 1) or to the cycle 2-3 (3 is "a"; 2 pays 4).
  SparseMdp split = make_mdp({{{{1, 0.25}, {2, 0.75}}}, {{{1, 1.0}}}, {{{3, 1.0}}}, {{{2, 1.0}}}}, {{"a", {1, 3}}});
  split.rewards.push_back({"r", {7.0, 1.0, 4.0, 0.0}, {}});
  EXPECT_NEAR(number(split, "S=? [ \"a\" ]"), 0.25 + 0.75 * 0.5, 1e-9);
  EXPECT_NEAR(number(split, "R=? [ S ]"), 0.25 * 1 + 0.75 * 2, 1e-9);  // 0's own 7 is paid once: no long-run share
  EXPECT_NEAR(number(split, "filter(max, S=? [ \"a\" ])"), 1.0, 1e-9);
  PropertyValue sound = check(split, "S=? [ \"a\" ]", SolverOptions{});  // the default method: a value, no bound
  EXPECT_NEAR(sound.number, 0.625, 1e-6);
  EXPECT_FALSE(sound.lower_bound.has_value());
  SparseMdp mdp = make_mdp({{{{0, 1.0}}, {{1, 1.0}}}, {{{1, 1.0}}}}, {{"goal", {1}}});
  // An MDP's long-run values need min or max (tests/long_run_mdp_test.cpp has them).
  EXPECT_EQ(error(mdp, "S=? [ \"goal\" ]"), "p:1:1: S=? needs min or max for an MDP (Smin=? or Smax=?)");
  EXPECT_NEAR(number(mdp, "Smin=? [ \"goal\" ]"), 0.0, 1e-9);  // 0 may loop forever
  EXPECT_NEAR(number(mdp, "Smax=? [ \"goal\" ]"), 1.0, 1e-9);
  const PropertyValue share = check(mdp, "Smax=? [ \"goal\" ]", SolverOptions{});  // sound: bounds within [0, 1]
  EXPECT_LE(share.number, 1.0);
  ASSERT_TRUE(share.upper_bound.has_value());
  EXPECT_LE(*share.upper_bound, 1.0);
}

// With --method bicgstab a bottom SCC's stationary distribution is a linear system:
// a reflecting random walk on 0..9 (right 0.3, left 0.7, staying at the ends) has
// pi_i proportional to (3/7)^i, reached in a few Krylov iterations (the power
// iteration, the fallback, would take hundreds of sweeps), whatever the method.
TEST(SteadyState, ByBicgstabAsALinearSystem) {
  std::vector<std::vector<std::vector<std::pair<std::uint32_t, double>>>> walk;
  for (std::uint32_t i = 0; i < 10; ++i) {
    walk.push_back({{{i == 9 ? 9 : i + 1, 0.3}, {i == 0 ? 0 : i - 1, 0.7}}});
  }
  SparseMdp mdp = make_mdp(walk, {{"top", {9}}, {"low", {0, 1, 2}}});
  double total = 0.0;
  for (int i = 0; i < 10; ++i) total += std::pow(3.0 / 7, i);
  const SolverOptions krylov{Method::bicgstab, kTight.stop};
  const PropertyResult by_krylov = check_result(mdp, "S=? [ \"top\" ]", krylov);
  EXPECT_NEAR(by_krylov.value.number, std::pow(3.0 / 7, 9) / total, 1e-12);
  EXPECT_NEAR(check(mdp, "S=? [ \"low\" ]", krylov).number, (1 + 3.0 / 7 + 9.0 / 49) / total, 1e-12);
  const PropertyResult by_default = check_result(mdp, "S=? [ \"top\" ]", kTight);
  EXPECT_NEAR(by_default.value.number, by_krylov.value.number, 1e-12);
  ASSERT_TRUE(by_krylov.computation && by_default.computation);
  EXPECT_LE(by_krylov.computation->solve.stats.iterations, 20u);  // 9 unknowns
  EXPECT_LE(by_default.computation->solve.stats.iterations, 20u);
}

// A sound result prints its bound's radius; an infinite one, whose ends are both
// Infinity, a radius of 0 (it printed "-nan").
TEST(Reports, BoundsPrintTheirRadiusAndInfinityHasNone) {
  PropertyValue finite;
  finite.number = 0.5;
  finite.lower_bound = 0.4;
  finite.upper_bound = 0.6;
  EXPECT_EQ(to_text(finite), "0.5 (+/- 0.1)");
  PropertyValue infinite;
  infinite.number = kInfinity;
  infinite.lower_bound = kInfinity;
  infinite.upper_bound = kInfinity;
  EXPECT_EQ(to_text(infinite), "Infinity (+/- 0)");
  SparseMdp mdp = make_mdp({{{{0, 1.0}}, {{1, 1.0}}}, {{{1, 1.0}}}}, {{"goal", {1}}});
  mdp.rewards.push_back({"r", {}, {1.0, 1.0, 0.0}});
  EXPECT_EQ(to_text(check(mdp, "Rmax=? [ C ]", SolverOptions{})), "Infinity (+/- 0)");
  PropertyValue negative_zero;  // ceil(-0.5), as PRISM prints it
  negative_zero.number = -0.0;
  EXPECT_EQ(to_text(negative_zero), "0");
}

// CTL: E and A quantify over paths, probability aside: a loop of probability 0 keeps
// A [ F goal ] false where P>=1 [ F goal ] holds.
// An exact answer (here the graph's: no state is left to iterate; on the GPU also an
// acyclic system's) under a sound method is its own bound: reported with +/- 0 and its
// filters bounded, the model-sized numbers kept once (no copies for the bounds).
TEST(Reports, ExactValuesAreTheirOwnBoundsKeptOnce) {
  const SparseMdp die = test::make_mdp({{{{1, 1.0}}, {{2, 1.0}}}, {{{3, 1.0}}}, {{{2, 1.0}}}, {{{3, 1.0}}}}, {{"six", {3}}});
  const SolverOptions sound{Method::optimistic_value_iteration, {ConvergenceCriterion::absolute, 1e-9, 100000}};
  io::PropertyEntry entry = io::parse_property("Pmax=? [ F \"six\" ]", "p");
  graph::ChoicePredecessorGraph graph = graph::build_choice_predecessor_graph(die);
  auto search = graph::make_search_backend(die, graph, graph::SearchKind::reference);
  CheckContext context{die, *search, PropertyScope{"p", {}, {}, {}}, sound, {SolverKind::cpu}};
  context.keep_state_values = true;
  const PropertyResult result = check_property(*entry.formula, context);
  ASSERT_TRUE(result.state_values);
  const StateValues& v = *result.state_values;
  EXPECT_TRUE(v.exact);
  EXPECT_TRUE(v.has_bounds());
  EXPECT_TRUE(v.lower.empty());
  EXPECT_TRUE(v.upper.empty());
  EXPECT_EQ(&v.lower_numbers(), &v.numbers);
  ASSERT_TRUE(result.value.lower_bound && result.value.upper_bound);
  EXPECT_EQ(*result.value.lower_bound, result.value.number);
  EXPECT_EQ(*result.value.upper_bound, result.value.number);
  const PropertyValue least = check(die, "filter(min, Pmax=? [ F \"six\" ])", sound);
  ASSERT_TRUE(least.lower_bound);
  EXPECT_EQ(*least.lower_bound, 0.0);  // state 2 never reaches it
  EXPECT_EQ(result.value.number, 1.0);
  EXPECT_FALSE(check(die, "Pmin>=0.5 [ F \"six\" ]", sound).truth);  // bounds decided from the exact values
}

double fair_number(const SparseMdp& mdp, const std::string& text) {
  io::PropertyEntry entry = io::parse_property(text, "p");
  graph::ChoicePredecessorGraph graph = graph::build_choice_predecessor_graph(mdp);
  auto search = graph::make_search_backend(mdp, graph, graph::SearchKind::reference);
  CheckContext context{mdp, *search, PropertyScope{"p", {}, {}, {}}, kTight, {SolverKind::cpu}};
  context.fairness = true;
  return check_property(*entry.formula, context).value.number;
}

// --fair (PRISM's -fair): a scheduler that visits a state infinitely often takes each of
// its choices infinitely often. 0 may spin (a) or enter (b, to "in"): unfair, it spins
// forever; fair, it enters. 2 is a trap (a bottom SCC outside "in"), which a fair
// scheduler may go to and stay in. Pmax is unchanged.
TEST(Fairness, FairSchedulersTakeEveryChoiceOfAStateTheyKeepVisiting) {
  const SparseMdp spin = test::make_mdp({{{{0, 1.0}}, {{1, 1.0}}}, {{{1, 1.0}}}}, {{"in", {1}}});
  EXPECT_EQ(number(spin, "Pmin=? [ F \"in\" ]"), 0.0);
  EXPECT_NEAR(fair_number(spin, "Pmin=? [ F \"in\" ]"), 1.0, 1e-12);
  EXPECT_NEAR(fair_number(spin, "Pmax=? [ F \"in\" ]"), 1.0, 1e-12);
  const SparseMdp trap =
      test::make_mdp({{{{0, 0.5}, {2, 0.5}}, {{1, 1.0}}}, {{{1, 1.0}}}, {{{2, 1.0}}}}, {{"in", {1}}});
  EXPECT_NEAR(fair_number(trap, "Pmin=? [ F \"in\" ]"), 0.0, 1e-12);  // a until the trap: finitely often at 0
  // phi U psi: leaving phi fails it, fair or not; spinning in phi no longer does.
  const SparseMdp leave =
      test::make_mdp({{{{0, 1.0}}, {{1, 0.5}, {2, 0.5}}}, {{{1, 1.0}}}, {{{2, 1.0}}}}, {{"in", {1}}, {"ok", {0, 1}}});
  EXPECT_EQ(number(leave, "Pmin=? [ \"ok\" U \"in\" ]"), 0.0);
  EXPECT_NEAR(fair_number(leave, "Pmin=? [ \"ok\" U \"in\" ]"), 0.5, 1e-12);
  EXPECT_NEAR(fair_number(leave, "Pmax=? [ G !\"in\" ]"), 0.5, 1e-12);  // 1 - the fair Pmin of F "in"
}

// The bottom SCCs of the whole graph (any choice), by brute force: reaches[s][t] from
// a search per state; s is in one when every state it reaches reaches it back, and its
// SCC is then all it reaches.
struct BottomSccs {
  std::vector<std::vector<bool>> reaches;
  std::vector<bool> bottom;
  explicit BottomSccs(const SparseMdp& mdp) : reaches(mdp.num_states(), std::vector<bool>(mdp.num_states())) {
    const std::uint32_t n = mdp.num_states();
    for (std::uint32_t s = 0; s < n; ++s) {
      std::vector<std::uint32_t> stack{s};
      reaches[s][s] = true;
      while (!stack.empty()) {
        const std::uint32_t u = stack.back();
        stack.pop_back();
        for (std::uint64_t k = mdp.row_starts[mdp.row_group_starts[u]]; k < mdp.row_starts[mdp.row_group_starts[u + 1]]; ++k) {
          if (!reaches[s][mdp.columns[k]]) {
            reaches[s][mdp.columns[k]] = true;
            stack.push_back(mdp.columns[k]);
          }
        }
      }
    }
    bottom.assign(n, true);
    for (std::uint32_t s = 0; s < n; ++s) {
      for (std::uint32_t t = 0; t < n; ++t) bottom[s] = bottom[s] && (!reaches[s][t] || reaches[t][s]);
    }
  }
  // The states of bottom SCCs of which some (any) or all (every) states are in set.
  StateSet where(const StateSet& set, bool every) const {
    const std::uint32_t n = static_cast<std::uint32_t>(bottom.size());
    StateSet out(n);
    for (std::uint32_t s = 0; s < n; ++s) {
      if (!bottom[s]) continue;
      bool some = false, all = true;
      for (std::uint32_t t = 0; t < n; ++t) {
        if (!reaches[s][t]) continue;
        some = some || set.test(t);
        all = all && set.test(t);
      }
      if (every ? all : some) out.set(s);
    }
    return out;
  }
};

// G F and F G through the product with their automata, over fair schedulers (--fair),
// against the model's own bottom SCCs: a fair scheduler's run ends in one, and it may
// choose which it reaches with the greatest probability. Pmax of G F a reaches those
// that meet a; of F G a, those inside a; each Pmin is 1 - the Pmax of the negation.
TEST(Fairness, LtlPathsOverFairSchedulersIsEquivalentToRef) {
  std::mt19937 rng(17);
  for (int trial = 0; trial < 60; ++trial) {
    const std::uint32_t n = 2 + trial % 7;
    std::vector<test::StateChoices> states(n);
    std::vector<std::uint32_t> a_states;
    StateSet a(n);
    for (std::uint32_t s = 0; s < n; ++s) {
      for (std::uint32_t c = 0, choices = 1 + rng() % 3; c < choices; ++c) {
        const std::uint32_t x = rng() % n, y = rng() % n;
        states[s].push_back(x == y ? test::Choice{{x, 1.0}} : test::Choice{{x, 0.5}, {y, 0.5}});
      }
      if (rng() % 2) {
        a_states.push_back(s);
        a.set(s);
      }
    }
    const SparseMdp mdp = make_mdp(states, {{"a", a_states}});
    graph::ChoicePredecessorGraph g = graph::build_choice_predecessor_graph(mdp);
    const auto search = graph::make_search_backend(mdp, g, graph::SearchKind::reference);
    const auto reach = [&](const StateSet& target) {
      return compute_until_probabilities(mdp, *search, Optimization::maximize, all_states(n), target, kTight,
                                         {SolverKind::cpu})
          .values[0];
    };
    const BottomSccs bottom(mdp);
    const StateSet not_a = ~a;
    EXPECT_NEAR(fair_number(mdp, "Pmax=? [ G F \"a\" ]"), reach(bottom.where(a, false)), 1e-9) << "trial " << trial;
    EXPECT_NEAR(fair_number(mdp, "Pmax=? [ F G \"a\" ]"), reach(bottom.where(a, true)), 1e-9) << "trial " << trial;
    EXPECT_NEAR(fair_number(mdp, "Pmin=? [ G F \"a\" ]"), 1 - reach(bottom.where(not_a, true)), 1e-9) << "trial " << trial;
    EXPECT_NEAR(fair_number(mdp, "Pmin=? [ F G \"a\" ]"), 1 - reach(bottom.where(not_a, false)), 1e-9) << "trial " << trial;
  }
}

TEST(Ctl, PathQuantifiersOverAllPaths) {
  SparseMdp chain = make_mdp({{{{0, 0.5}, {1, 0.5}}}, {{{1, 1.0}}}}, {{"goal", {1}}});
  EXPECT_TRUE(truth(chain, "P>=1 [ F \"goal\" ]"));
  EXPECT_FALSE(truth(chain, "A [ F \"goal\" ]"));
  EXPECT_TRUE(truth(chain, "E [ F \"goal\" ]"));
  EXPECT_TRUE(truth(chain, "E [ G !\"goal\" ]"));
  EXPECT_FALSE(truth(chain, "A [ G !\"goal\" ]"));
  EXPECT_TRUE(truth(chain, "E [ X \"goal\" ]"));
  EXPECT_FALSE(truth(chain, "A [ X \"goal\" ]"));
  EXPECT_TRUE(truth(chain, "E [ F=2 \"goal\" ]"));
  EXPECT_FALSE(truth(chain, "E [ F<=0 \"goal\" ]"));
  EXPECT_TRUE(truth(chain, "filter(forall, \"goal\" => A [ G \"goal\" ])"));
  // 0: a fair coin to 1 (goal) or 2, or stay; 1 and 2 absorbing.
  SparseMdp mdp = make_mdp({{{{1, 0.5}, {2, 0.5}}, {{0, 1.0}}}, {{{1, 1.0}}}, {{{2, 1.0}}}}, {{"goal", {1}}});
  EXPECT_TRUE(truth(mdp, "E [ F \"goal\" ]"));
  EXPECT_FALSE(truth(mdp, "A [ F \"goal\" ]"));
  EXPECT_TRUE(truth(mdp, "E [ X !\"goal\" ]"));
  EXPECT_FALSE(truth(mdp, "A [ X !\"goal\" ]"));  // choice a may reach the goal
  EXPECT_TRUE(truth(mdp, "filter(forall, !\"goal\" => A [ G !\"goal\" ] | E [ F \"goal\" ])"));
  SparseMdp die = test::knuth_yao_die();
  EXPECT_FALSE(truth(die, "A [ F \"done\" ]"));  // 1-3-1-3... or 2-6-2-6... forever
  EXPECT_TRUE(truth(die, "A [ X !\"done\" ]"));
  EXPECT_TRUE(truth(die, "E [ !\"done\" W \"one\" ]"));
  EXPECT_FALSE(truth(die, "A [ !\"done\" W \"one\" ]"));
  EXPECT_TRUE(truth(die, "A [ \"done\" R !\"done\" | true ]"));
  EXPECT_EQ(error(die, "E [ F[2,1] \"one\" ]"), "p:1:9: the step interval [2, 1] is empty");
}

// A bare state formula as the path (issue 42, fix 4): the paths where it holds now,
// for P (and its min, max and bounds), E and A, also in parentheses and filters.
TEST(PathOperators, BareStateFormulaHoldsInTheFirstState) {
  SparseMdp mdp = make_mdp({{{{1, 0.5}, {2, 0.5}}, {{0, 1.0}}}, {{{1, 1.0}}}, {{{2, 1.0}}}}, {{"goal", {1}}});
  EXPECT_EQ(number(mdp, "Pmax=? [ \"goal\" ]"), 0.0);
  EXPECT_EQ(number(mdp, "Pmin=? [ !\"goal\" ]"), 1.0);
  EXPECT_EQ(number(mdp, "Pmax=? [ (\"goal\" | true) ]"), 1.0);
  EXPECT_EQ(number(mdp, "filter(sum, Pmin=? [ \"goal\" ], true)"), 1.0);  // state 1 alone
  EXPECT_FALSE(truth(mdp, "E [ \"goal\" ]"));
  EXPECT_TRUE(truth(mdp, "A [ !\"goal\" ]"));
  EXPECT_TRUE(truth(mdp, "filter(forall, \"goal\" <=> E [ \"goal\" ])"));
  EXPECT_TRUE(truth(mdp, "Pmin>=1 [ !\"goal\" ]"));
  EXPECT_EQ(error(mdp, "Pmax=? [ \"goal\" \"goal\" ]"), "p:1:17: expected 'U', 'W' or 'R', found \"goal\"");
}

// Counted over all states of the die, whose loops are 1-3 and 2-6: A [ F done ] holds
// where neither can be entered (4, 5 and the six faces), E [ G !done ] where one can.
TEST(Ctl, ForallUntilHoldsExactlyWhereNoPathAvoidsTheTarget) {
  SparseMdp die = test::knuth_yao_die();
  PropertyValue all = check(die, "filter(count, A [ F \"done\" ])");
  ASSERT_EQ(all.kind, PropertyValue::Kind::number);
  EXPECT_EQ(all.number, 8.0);
  EXPECT_EQ(check(die, "filter(count, E [ G !\"done\" ])").number, 5.0);  // 0, 1, 2, 3 and 6
  EXPECT_EQ(check(die, "filter(count, A [ F<=1 \"done\" ])").number, 6.0 + 2.0);  // the faces, 4 and 5
}

// A random MDP: 1-3 choices per state, each to 1-40 successors (rows longer than a
// warp, self-loops, some states with one choice), with every tenth state a chain link
// to the next only; and random phi, psi.
SparseMdp random_mdp(std::uint32_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<test::StateChoices> states(n);
  for (std::uint32_t s = 0; s < n; ++s) {
    if (s % 10 == 0) {
      states[s] = {{{(s + 1) % n, 1.0}}};
      continue;
    }
    const int choices = 1 + static_cast<int>(rng() % 3);
    for (int c = 0; c < choices; ++c) {
      const std::uint32_t successors = 1 + static_cast<std::uint32_t>(rng() % 40);
      std::set<std::uint32_t> targets;
      while (targets.size() < std::min(successors, n)) targets.insert(rng() % n);
      test::Choice choice;
      for (std::uint32_t t : targets) choice.push_back({t, 1.0 / static_cast<double>(targets.size())});
      states[s].push_back(choice);
    }
  }
  return make_mdp(states, {});
}

StateSet random_states(std::uint32_t n, std::uint32_t seed, int percent) {
  std::mt19937 rng(seed);
  StateSet set(n);
  for (std::uint32_t s = 0; s < n; ++s) {
    if (static_cast<int>(rng() % 100) < percent) set.set(s);
  }
  return set;
}

// A [ phi U psi ] in linear time against its plain definition, the least fixed point
// Z = psi | (phi & AX Z) iterated to stability; and the bounded forms against as many
// iterations. Odd sizes, one state, long rows, self-loops and chains.
TEST(Ctl, ForallUntilIsEquivalentToRef) {
  for (std::uint32_t n : {1u, 2u, 33u, 1025u}) {
    for (std::uint32_t seed = 0; seed < 4; ++seed) {
      const SparseMdp mdp = random_mdp(n, seed);
      graph::ChoicePredecessorGraph graph = graph::build_choice_predecessor_graph(mdp);
      auto search = graph::make_search_backend(mdp, graph, graph::SearchKind::reference);
      const StateSet phi = random_states(n, seed + 100, 80), psi = random_states(n, seed + 200, 5);
      for (bool forall : {true, false}) {
        StateSet reference = psi, before(n);
        std::uint64_t rounds = 0;
        for (; reference != before; ++rounds) {
          before = reference;
          reference = psi | (phi & ctl_next(mdp, forall, reference));
          if (rounds == 3) {
            EXPECT_EQ(ctl_until(mdp, *search, forall, phi, psi, 0, 4), reference) << n << " " << seed;
          }
        }
        EXPECT_EQ(ctl_until(mdp, *search, forall, phi, psi, 0, std::nullopt), reference) << n << " " << seed;
      }
    }
  }
}

// P=? and R=? inside arithmetic: their numbers, state by state (PRISM's value, without
// a bound of its own).
TEST(Expressions, NumericOperatorsInsideArithmetic) {
  SparseMdp die = die_with_rewards();
  EXPECT_NEAR(number(die, "1 - P=? [ F \"one\" ]"), 5.0 / 6, 1e-10);
  EXPECT_NEAR(number(die, "P=? [ F \"one\" ] + P=? [ F \"two\" ]"), 1.0 / 3, 1e-10);
  EXPECT_NEAR(number(die, "R{\"tosses\"}=? [ F \"done\" ] * 3"), 11.0, 1e-9);
  EXPECT_TRUE(truth(die, "P=? [ F \"one\" ] < 0.2"));
  EXPECT_NEAR(number(die, "filter(max, P=? [ F \"one\" ] * 2)"), 2.0, 1e-10);  // in state 7 itself
}

// Named properties referred to by name, in a file and from --prop; a reference that
// comes back to its own property is an error there, and a label of the file wins.
TEST(Expressions, ReferencesToNamedProperties) {
  SparseMdp die = test::knuth_yao_die();
  io::PropertyFile file = io::parse_properties(io::TextFile::from_string(
      "r.props",
      "\"p1\": P=? [ F \"one\" ]\n\"p2\": P=? [ F \"two\" ]\n\"both\": \"p1\" + \"p2\"\n"
      "\"self\": 1 - \"self\"\n\"ping\": \"pong\"\n\"pong\": \"ping\"\nlabel \"shadow\" = true;\n"
      "\"shadow\": P=? [ F \"six\" ]\nfilter(forall, \"shadow\")\n"));
  ASSERT_EQ(file.properties.size(), 8u);
  std::set<std::string> labels{"shadow"};  // the file's, and the model's: a label wins over a property
  for (const Label& label : die.labels) labels.insert(label.name);
  const std::vector<io::PropertyEntry> named = file.properties;
  io::resolve_property_references(file.properties, named, labels);
  graph::ChoicePredecessorGraph graph = graph::build_choice_predecessor_graph(die);
  auto search = graph::make_search_backend(die, graph, graph::SearchKind::reference);
  PropertyScope scope{"r.props", {}, {}, {}};
  scope.labels["shadow"] = all_states(die.num_states());
  auto value = [&](std::size_t i) {
    EXPECT_TRUE(file.properties[i].formula) << file.properties[i].error;
    CheckContext context{die, *search, scope, {Method::value_iteration, {ConvergenceCriterion::absolute, 1e-12, 100000}},
                         {SolverKind::cpu}};
    return check_property(*file.properties[i].formula, context).value;
  };
  EXPECT_NEAR(value(2).number, 1.0 / 3, 1e-10);
  EXPECT_EQ(file.properties[3].error, "r.props:4:13: the reference to \"self\" leads back to the property it is in");
  EXPECT_EQ(file.properties[4].error.substr(0, 42), "r.props:6:9: the reference to \"ping\" leads");
  EXPECT_TRUE(value(7).truth);  // the label "shadow", true everywhere, not the property
  std::vector<io::PropertyEntry> given{io::parse_property("\"p2\" / \"p1\" + P=? [ F \"one\" ]", "--prop 1")};
  io::resolve_property_references(given, named, labels);
  ASSERT_TRUE(given[0].formula) << given[0].error;
  CheckContext context{die, *search, scope, {Method::value_iteration, {ConvergenceCriterion::absolute, 1e-12, 100000}},
                       {SolverKind::cpu}};
  EXPECT_NEAR(check_property(*given[0].formula, context).value.number, 1.0 + 1.0 / 6, 1e-10);
}

// Arithmetic that PRISM accepts: ^ (right-associative, tighter than unary minus),
// round (halves up) and the older func(name, ...) form.
TEST(Expressions, PowerRoundAndOlderFunctionCalls) {
  SparseMdp die = test::knuth_yao_die();
  EXPECT_EQ(number(die, "-2^2"), -4.0);
  EXPECT_EQ(number(die, "2^3^2"), 512.0);
  EXPECT_EQ(number(die, "2.0^-1"), 0.5);
  EXPECT_EQ(error(die, "2^-1"), "p:1:2: pow of integers with the negative exponent -1 has no integer value (write the base as a double)");
  EXPECT_EQ(number(die, "2*3^2"), 18.0);
  EXPECT_EQ(number(die, "round(2.5)"), 3.0);
  EXPECT_EQ(number(die, "round(-2.5)"), -2.0);
  EXPECT_EQ(number(die, "round(1.49)"), 1.0);
  EXPECT_EQ(number(die, "func(max, 1, 3, 2)"), 3.0);
  EXPECT_EQ(number(die, "func(mod, 7, 3)"), 1.0);
  EXPECT_EQ(number(die, "func(floor, 2.7) + func(ceil, 2.2)"), 5.0);
  EXPECT_EQ(error(die, "func(frob, 1)"), "p:1:6: unknown function 'frob'");
  EXPECT_EQ(error(die, "func(max)"), "p:1:9: expected ',', found ')'");
  EXPECT_EQ(error(die, "func(pow, 2)"), "p:1:6: pow takes 2 arguments, found 1");
}

TEST(StepBounded, NextStep) {
  SparseMdp die = test::knuth_yao_die();
  die.initial_states = {3};  // tosses to 1 or to face one
  EXPECT_EQ(number(die, "P=? [ X \"one\" ]"), 0.5);
  EXPECT_EQ(number(die, "P=? [ X \"two\" ]"), 0.0);
}

TEST(Rewards, ExpectedTossesOfTheDie) {
  SparseMdp die = die_with_rewards();
  EXPECT_NEAR(number(die, "R{\"tosses\"}=? [ F \"done\" ]"), 11.0 / 3, 1e-10);
  EXPECT_NEAR(number(die, "R{2}=? [ F \"done\" ]"), 11.0 / 3, 1e-10);  // state rewards alike
  EXPECT_NEAR(number(die, "R=? [ F \"done\" ]"), 11.0 / 3, 1e-10);     // the first structure
  EXPECT_EQ(number(die, "R=? [ C<=2 ]"), 2.0);
  EXPECT_NEAR(number(die, "R=? [ C<=4 ]"), 1 + 1 + 1 + 0.25, 1e-15);
  EXPECT_NEAR(number(die, "R{\"tossing\"}=? [ I=3 ]"), 0.25, 1e-15);  // still tossing after 3
  EXPECT_EQ(number(die, "R{\"tossing\"}=? [ I=0 ]"), 1.0);
  // Face one is not reached with probability 1: infinite, as in PRISM.
  EXPECT_EQ(number(die, "R=? [ F \"one\" ]"), kInfinity);
}

// State 0: stay (reward 0) or go to the goal (reward 1). Staying forever costs 0 but
// never reaches the goal: Rmin counts only schedulers that reach it, so 1; Rmax is
// infinite because the staying scheduler misses the goal.
TEST(Rewards, ZeroRewardSelfLoopDoesNotMakeRminZero) {
  SparseMdp mdp = make_mdp({{{{0, 1.0}}, {{1, 1.0}}}, {{{1, 1.0}}}}, {{"goal", {1}}});
  mdp.rewards.push_back({"r", {}, {0.0, 1.0, 0.0}});
  EXPECT_NEAR(number(mdp, "Rmin=? [ F \"goal\" ]"), 1.0, 1e-12);
  EXPECT_EQ(number(mdp, "Rmax=? [ F \"goal\" ]"), kInfinity);
}

// States 0 and 1 swap for free; 0 may leave to the goal for 3, 1 pays 1 to go to the
// goal or back to 0 with probability 1/2 each. The component {0, 1} costs
// V = min(3, 1 + V/2) = 2 from either state.
TEST(Rewards, ZeroRewardEndComponentIsCollapsed) {
  SparseMdp mdp = make_mdp({{{{1, 1.0}}, {{2, 1.0}}}, {{{0, 1.0}}, {{2, 0.5}, {0, 0.5}}}, {{{2, 1.0}}}}, {{"goal", {2}}});
  mdp.rewards.push_back({"r", {}, {0.0, 3.0, 0.0, 1.0, 0.0}});
  EXPECT_NEAR(number(mdp, "Rmin=? [ F \"goal\" ]"), 2.0, 1e-10);
  mdp.initial_states = {1};
  EXPECT_NEAR(number(mdp, "Rmin=? [ F \"goal\" ]"), 2.0, 1e-10);
  EXPECT_EQ(number(mdp, "Rmax=? [ F \"goal\" ]"), kInfinity);
}

// State 0 may go to a sink that never reaches the goal (infinite reward) or pay 2 to
// reach it: Rmin leaves the first choice out of the system and answers 2.
TEST(Rewards, ChoicesIntoInfiniteStatesAreLeftOutForRmin) {
  SparseMdp mdp = make_mdp({{{{1, 1.0}}, {{2, 1.0}}}, {{{1, 1.0}}}, {{{2, 1.0}}}}, {{"goal", {2}}});
  mdp.rewards.push_back({"r", {}, {0.0, 2.0, 1.0, 0.0}});
  EXPECT_EQ(number(mdp, "Rmin=? [ F \"goal\" ]"), 2.0);
  EXPECT_EQ(number(mdp, "Rmax=? [ F \"goal\" ]"), kInfinity);
  EXPECT_EQ(number(mdp, "filter(state, Rmin=? [ F \"goal\" ], !\"goal\" & Rmin>1000 [ F \"goal\" ])"), kInfinity);
}

// Total reward R[C]: the die's tosses (its faces collect nothing forever), a DTMC that
// may end in a rewarding loop, and an MDP whose choices make min and max differ.
TEST(Rewards, TotalRewardWithInfinityAndEndComponents) {
  SparseMdp die = die_with_rewards();
  EXPECT_NEAR(number(die, "R{\"tosses\"}=? [ C ]"), 11.0 / 3, 1e-10);
  // 0 goes to 1 or 2; 1 loops collecting 1 per step, 2 loops collecting nothing.
  SparseMdp chain = make_mdp({{{{1, 0.5}, {2, 0.5}}}, {{{1, 1.0}}}, {{{2, 1.0}}}}, {});
  chain.rewards.push_back({"r", {3.0, 1.0, 0.0}, {}});
  EXPECT_EQ(number(chain, "R=? [ C ]"), kInfinity);
  chain.rewards[0].state_rewards.plain()[1] = 0.0;
  EXPECT_EQ(number(chain, "R=? [ C ]"), 3.0);
  // 0: to 1 for 2, or to 2 for 5. 1 and 3 swap for free; 1 may go to 2 for 1, 3 for 4.
  // 2 is absorbing and free. Rmax stays in {1, 3} only to leave from 3: 4 from 1 or 3,
  // 2 + 4 from 0; Rmin may stay in {1, 3} forever: 0 from 1, 2 from 0.
  SparseMdp mdp = make_mdp({{{{1, 1.0}}, {{2, 1.0}}}, {{{3, 1.0}}, {{2, 1.0}}}, {{{2, 1.0}}}, {{{1, 1.0}}, {{2, 1.0}}}}, {});
  mdp.rewards.push_back({"r", {}, {2.0, 5.0, 0.0, 1.0, 0.0, 0.0, 4.0}});
  EXPECT_NEAR(number(mdp, "Rmax=? [ C ]"), 6.0, 1e-10);
  EXPECT_NEAR(number(mdp, "Rmin=? [ C ]"), 2.0, 1e-10);
  mdp.initial_states = {1};
  EXPECT_NEAR(number(mdp, "Rmax=? [ C ]"), 4.0, 1e-10);
  EXPECT_EQ(number(mdp, "Rmin=? [ C ]"), 0.0);
  PropertyValue sound = check(mdp, "Rmax=? [ C ]", SolverOptions{});  // the default: OVI, verified
  EXPECT_NEAR(sound.number, 4.0, 1e-5);
  // 3's free swap now costs 1: staying in {1, 3} is infinite for Rmax; Rmin leaves at once.
  mdp.rewards[0].choice_rewards.plain()[5] = 1.0;
  EXPECT_EQ(number(mdp, "Rmax=? [ C ]"), kInfinity);
  EXPECT_NEAR(number(mdp, "Rmin=? [ C ]"), 1.0, 1e-10);  // 1 to 2 for 1 (3 would cost 1 more, then 4)
  mdp.initial_states = {0};
  EXPECT_EQ(number(mdp, "Rmax=? [ C ]"), kInfinity);
  EXPECT_NEAR(number(mdp, "Rmin=? [ C ]"), 3.0, 1e-10);
  EXPECT_EQ(error(mdp, "R{\"none\"}max=? [ C ]"), "p:1:1: the model has no reward structure \"none\"");
}

// Rewards that do not come from the builder (explicit models) are checked where
// reachability rewards use them: a negative or non-finite one is an error naming it.
TEST(Rewards, ReachabilityRewardsRefuseNegativeAndNonFiniteRewards) {
  SparseMdp mdp = make_mdp({{{{1, 1.0}}}, {{{2, 1.0}}}, {{{2, 1.0}}}}, {{"goal", {2}}});
  mdp.rewards.push_back({"r", {1.0, -1.0, 0.0}, {}});
  auto message_of = [&](const std::string& property) {
    try {
      number(mdp, property);
    } catch (const std::runtime_error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message_of("R=? [ F \"goal\" ]"), "reward structure \"r\": state reward -1 in state 1: reachability rewards "
                                             "(R[F]) need rewards that are finite and not negative");
  mdp.rewards[0] = {"", {}, {0.0, std::numeric_limits<double>::quiet_NaN(), 0.0}};
  EXPECT_EQ(message_of("R=? [ F \"goal\" ]"), "the reward structure: transition reward NaN on choice 1: reachability "
                                             "rewards (R[F]) need rewards that are finite and not negative");
  mdp.rewards[0] = {"", {1.0, 1.0, 0.0}, {}};
  EXPECT_EQ(number(mdp, "R=? [ F \"goal\" ]"), 2.0);
}

// Interval iteration decides a bound only when a state's whole interval lies on one
// side of it: at the default epsilon (1e-6 relative) the die's 1/6 lies within the
// interval around 0.16666667 and 0.1666666, so the solve is refined until it does not.
// A bound exactly on the value is an error, never a guess (unless the interval closes
// on it in double precision).
TEST(Bounds, SoundBoundsRefineUntilDecided) {
  SparseMdp die = die_with_rewards();
  const SolverOptions sound{Method::interval_iteration, {ConvergenceCriterion::relative, 1e-6, 1000000}};
  EXPECT_FALSE(check(die, "P>=0.16666667 [ F \"one\" ]", sound).truth);
  EXPECT_TRUE(check(die, "P>=0.1666666 [ F \"one\" ]", sound).truth);
  EXPECT_TRUE(check(die, "P<0.16666667 [ F \"one\" ]", sound).truth);
  EXPECT_TRUE(check(die, "P>0.1 [ F \"one\" ]", sound).truth);  // decided at once
  // Exactly on the bound: at epsilon 1e-14 the interval is still about 2e-15 wide.
  try {
    check(die, "P>=1/6 [ F \"one\" ]", sound);
    ADD_FAILURE() << "decided a bound the value lies on";
  } catch (const LocatedError& error) {
    EXPECT_NE(std::string(error.what()).find("cannot decide the bound 0.16666666666666666 in state 0: its value lies in"),
              std::string::npos)
        << error.what();
  }
}

TEST(Bounds, ProbabilityAndRewardBounds) {
  SparseMdp die = die_with_rewards();
  EXPECT_FALSE(truth(die, "P>=0.5 [ F \"one\" ]"));
  EXPECT_TRUE(truth(die, "P<0.2 [ F \"one\" ]"));
  EXPECT_TRUE(truth(die, "P>=1 [ F \"done\" ]"));   // graph only
  EXPECT_FALSE(truth(die, "P<1 [ F \"done\" ]"));
  EXPECT_TRUE(truth(die, "P>0 [ F \"six\" ]"));
  EXPECT_FALSE(truth(die, "P<=0 [ F \"six\" ]"));
  EXPECT_TRUE(truth(die, "R<=4 [ F \"done\" ]"));
  EXPECT_FALSE(truth(die, "R>11/3+0.001 [ F \"done\" ]"));
}

// From state 0, choice a reaches the goal surely and choice b never. P>=1 and P>0
// are decided by the minimum over schedulers (b: 0), so both are false; P<1 and
// P<=0 by the maximum (a: 1), so both are false too.
TEST(Bounds, MdpBoundsHoldForAllSchedulers) {
  SparseMdp mdp = make_mdp({{{{1, 1.0}}, {{2, 1.0}}}, {{{1, 1.0}}}, {{{2, 1.0}}}}, {{"goal", {1}}});
  EXPECT_FALSE(truth(mdp, "P>=1 [ F \"goal\" ]"));
  EXPECT_FALSE(truth(mdp, "P>0 [ F \"goal\" ]"));
  EXPECT_FALSE(truth(mdp, "P<1 [ F \"goal\" ]"));
  EXPECT_FALSE(truth(mdp, "P<=0 [ F \"goal\" ]"));
  EXPECT_TRUE(truth(mdp, "P<=1 [ F \"goal\" ]"));
  EXPECT_TRUE(truth(mdp, "Pmax>=1 [ F \"goal\" ]"));
}

TEST(Filters, AllOperators) {
  SparseMdp die = test::knuth_yao_die();
  EXPECT_EQ(number(die, "filter(count, \"done\")"), 6.0);
  EXPECT_TRUE(truth(die, "filter(forall, P>=1 [ F \"done\" ])"));
  EXPECT_TRUE(truth(die, "filter(forall, \"one\" => P>=1 [ F \"one\" ])"));
  EXPECT_FALSE(truth(die, "filter(forall, \"one\", \"done\")"));
  EXPECT_TRUE(truth(die, "filter(exists, \"six\")"));
  EXPECT_NEAR(number(die, "filter(sum, P=? [ F \"one\" ], \"done\")"), 1.0, 1e-12);
  EXPECT_NEAR(number(die, "filter(avg, P=? [ F \"one\" ], \"done\")"), 1.0 / 6, 1e-12);
  EXPECT_NEAR(number(die, "filter(max, P=? [ F \"one\" ], !\"done\")"), 2.0 / 3, 1e-10);  // state 3
  EXPECT_EQ(number(die, "filter(min, P=? [ F \"one\" ])"), 0.0);
  EXPECT_NEAR(number(die, "filter(first, P=? [ F \"one\" ])"), 1.0 / 6, 1e-10);
  EXPECT_EQ(number(die, "filter(state, P=? [ F \"one\" ], \"one\")"), 1.0);
  PropertyValue range = check(die, "filter(range, P=? [ F \"one\" ], \"done\")");
  EXPECT_EQ(range.kind, PropertyValue::Kind::range);
  EXPECT_EQ(range.number, 0.0);
  EXPECT_EQ(range.upper, 1.0);
  PropertyValue arg = check(die, "filter(argmax, P=? [ F \"one\" ], \"done\")");
  EXPECT_EQ(arg.listing, "7:=1\n");
  PropertyValue printed = check(die, "filter(print, P=? [ F<=1 \"one\" ], \"done\" | \"one\")");
  EXPECT_EQ(printed.listing, "7:=1\n");  // print leaves out zeros
  EXPECT_NEAR(printed.number, 0.0, 1e-15);  // the value in the initial state, as without a filter
  EXPECT_EQ(check(die, "P=? [ F \"one\" {\"done\"}{max} ]").number, 1.0);
}

TEST(Filters, SeveralInitialStatesGiveARangeOrForall) {
  SparseMdp die = test::knuth_yao_die();
  die.initial_states = {7, 8};
  PropertyValue range = check(die, "P=? [ F \"one\" ]");
  ASSERT_EQ(range.kind, PropertyValue::Kind::range);
  EXPECT_EQ(range.number, 0.0);
  EXPECT_EQ(range.upper, 1.0);
  EXPECT_TRUE(truth(die, "\"done\""));
  EXPECT_FALSE(truth(die, "\"one\""));
}

TEST(Errors, SayWhatIsWrongAndWhere) {
  SparseMdp mdp = make_mdp({{{{1, 1.0}}, {{0, 1.0}}}, {{{1, 1.0}}}}, {{"goal", {1}}});
  EXPECT_EQ(error(mdp, "P=? [ F \"goal\" ]"), "p:1:1: P=? needs min or max for an MDP (Pmin=? or Pmax=?)");
  EXPECT_EQ(error(mdp, "Rmin=? [ F \"goal\" ]"), "p:1:1: the model has no reward structures");
  mdp.rewards.push_back({"r", {}, {}});
  EXPECT_EQ(error(mdp, "R{\"time\"}min=? [ F \"goal\" ]"), "p:1:1: the model has no reward structure \"time\"");
  EXPECT_EQ(error(mdp, "R{3}min=? [ F \"goal\" ]"), "p:1:3: expected a reward structure index from 1 to 1");
  EXPECT_EQ(error(mdp, "P>=1.5 [ F \"goal\" ]"), "p:1:4: a probability bound must lie in [0, 1]");
  EXPECT_EQ(error(mdp, "filter(state, \"goal\")"), "p:1:1: filter state needs exactly one state, found 2");
  EXPECT_EQ(error(mdp, "filter(max, \"goal\")"), "p:1:1: filter max needs a numeric property, found a Boolean");
  EXPECT_EQ(error(mdp, "filter(min, Pmax=? [ F \"goal\" ], false)"),
            "p:1:1: filter min: no state satisfies the filter's states");
  EXPECT_EQ(error(mdp, "Pmax=? [ F<=2.5 \"goal\" ]").substr(0, 41), "p:1:13: expected an integer step bound, f");
  EXPECT_EQ(error(mdp, "Pmax=? [ F<0 \"goal\" ]"), "p:1:12: a step bound must be at least 0, found -1");
  EXPECT_EQ(error(mdp, "Pmax=? [ F Pmax=? [ F \"goal\" ] ]"), "p:1:12: expected a Boolean state formula, found a number");
  EXPECT_EQ(error(mdp, "Pmax=? [ F 1+2 ]"), "p:1:13: expected a Boolean state formula, found a number");
}

}  // namespace
}  // namespace mdpvi
