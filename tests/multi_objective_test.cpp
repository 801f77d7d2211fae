// Multi-objective queries (engine/check/multi_objective.h): by hand (randomising
// schedulers trade one target for another), one objective against the reachability
// pipeline on random MDPs, and a numerical query against the achievability of values
// just below and above it.
#include "engine/check/multi_objective.h"
#include "engine/check/property_checker.h"
#include "engine/check/reachability.h"
#include "io/property_parser.h"
#include "search_backends.h"
#include "random_mdps.h"
#include "test_models.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace mdpvi {
namespace {

constexpr SolverOptions kSound{Method::optimistic_value_iteration, {ConvergenceCriterion::absolute, 1e-10, 1000000}};

using Searched = test::ReferenceSearch;

PropertyValue checked(const SparseMdp& mdp, const std::string& text) {
  io::PropertyEntry entry = io::parse_property(text, "p");
  EXPECT_TRUE(entry.formula) << entry.error;
  const Searched searched(mdp);
  CheckContext context{mdp, *searched.search, PropertyScope{"p", {}, {}, {}}, kSound, {SolverKind::cpu}};
  return check_property(*entry.formula, context).value;
}

// 0 chooses: to 1 ("A"), to 2 ("B"), or a coin between 1 and 3; the others stay.
SparseMdp three_ways() {
  SparseMdp mdp = test::make_mdp(
      {{{{1, 1.0}}, {{2, 1.0}}, {{1, 0.5}, {3, 0.5}}}, {{{1, 1.0}}}, {{{2, 1.0}}}, {{{3, 1.0}}}},
      {{"A", {1}}, {"B", {2}}});
  mdp.rewards.push_back({"cost", {}, {1.0, 2.0, 0.5, 0.0, 0.0, 0.0}});  // one per choice
  return mdp;
}

TEST(MultiObjective, ByHandRandomisingTradesOneTargetForAnother) {
  const SparseMdp mdp = three_ways();
  EXPECT_NEAR(checked(mdp, "multi(Pmax=? [ F \"A\" ], P>=0.4 [ F \"B\" ])").number, 0.6, 1e-9);
  EXPECT_TRUE(checked(mdp, "multi(P>=0.5 [ F \"A\" ], P>=0.5 [ F \"B\" ])").truth);
  EXPECT_FALSE(checked(mdp, "multi(P>=0.6 [ F \"A\" ], P>=0.5 [ F \"B\" ])").truth);
  EXPECT_NEAR(checked(mdp, "multi(R{\"cost\"}min=? [ C ], P>=0.75 [ F \"A\" ])").number, 0.75, 1e-9);
  EXPECT_NEAR(checked(mdp, "multi(R{\"cost\"}max=? [ C ], P<=0.5 [ F \"B\" ])").number, 1.5, 1e-9);  // b half
  EXPECT_NEAR(checked(mdp, "multi(Pmax=? [ G !\"A\" ], P>=0.3 [ F \"B\" ])").number, 1.0, 1e-9);
  EXPECT_NEAR(checked(mdp, "multi(Pmin=? [ !\"B\" U \"A\" ], P<=0.5 [ F \"B\" ])").number, 0.25, 1e-9);  // c and b
}

// Two =?: the Pareto curve's vertices. "A" against "B": a to b, a straight trade. "A"
// against the least cost: c (half "A" for 0.5) and a (all "A" for 1); b (cost 2, no "A")
// is dominated. With at least 0.3 of "B", the trade stops at 0.7 of "A".
TEST(MultiObjective, ParetoCurvesByHand) {
  const SparseMdp mdp = three_ways();
  const auto curve = [&](const std::string& text) {
    const PropertyValue value = checked(mdp, text);
    EXPECT_EQ(value.kind, PropertyValue::Kind::pareto) << text;
    return value.points;
  };
  const auto near = [](const std::vector<std::vector<double>>& got, const std::vector<std::vector<double>>& expected) {
    if (got.size() != expected.size()) return false;
    for (std::size_t i = 0; i < got.size(); ++i) {
      for (std::size_t j = 0; j < 2; ++j) {
        if (std::abs(got[i][j] - expected[i][j]) > 1e-9) return false;
      }
    }
    return true;
  };
  EXPECT_TRUE(near(curve("multi(Pmax=? [ F \"A\" ], Pmax=? [ F \"B\" ])"), {{0, 1}, {1, 0}}));
  EXPECT_TRUE(near(curve("multi(Pmax=? [ F \"A\" ], R{\"cost\"}min=? [ C ])"), {{0.5, 0.5}, {1, 1}}));
  EXPECT_TRUE(near(curve("multi(Pmax=? [ F \"A\" ], Pmax=? [ F \"B\" ], P>=0.3 [ F \"B\" ])"), {{0, 1}, {0.7, 0.3}}));
}

// Three =?: the front's vertices in three dimensions. "A", "B" and the least cost: a
// (all "A" for 1), b (all "B" for 2) and c (half "A" for 0.5), none dominated.
TEST(MultiObjective, ParetoFrontsOfThreeObjectivesByHand) {
  const SparseMdp mdp = three_ways();
  const PropertyValue front =
      checked(mdp, "multi(Pmax=? [ F \"A\" ], Pmax=? [ F \"B\" ], R{\"cost\"}min=? [ C ])");
  ASSERT_EQ(front.kind, PropertyValue::Kind::pareto);
  const std::vector<std::vector<double>> expected{{0, 1, 2}, {0.5, 0, 0.5}, {1, 0, 1}};
  ASSERT_EQ(front.points.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    for (std::size_t j = 0; j < 3; ++j) EXPECT_NEAR(front.points[i][j], expected[i][j], 1e-9) << i << ", " << j;
  }
  // With "A" queried twice the points lie in a plane: a and b (c is below a).
  const PropertyValue twice = checked(mdp, "multi(Pmax=? [ F \"A\" ], Pmax=? [ F \"B\" ], Pmax=? [ F \"A\" ])");
  ASSERT_EQ(twice.points.size(), 2u);
  EXPECT_NEAR(twice.points[0][1], 1.0, 1e-9);
  EXPECT_NEAR(twice.points[1][0], 1.0, 1e-9);
  EXPECT_NEAR(twice.points[1][2], 1.0, 1e-9);
}

// Co-safe and safety LTL objectives: tracked by the automaton's deterministic first part
// (a safety path by its co-safe negation, flipped). "A" and "B" absorb, so F ("A" & X "A")
// is F "A"; G (!"A" & X !"A") is G !"A".
TEST(MultiObjective, CoSafeAndSafetyLtlObjectives) {
  const SparseMdp mdp = three_ways();
  EXPECT_NEAR(checked(mdp, "multi(Pmax=? [ F (\"A\" & X \"A\") ], P>=0.4 [ F \"B\" ])").number, 0.6, 1e-9);
  EXPECT_NEAR(checked(mdp, "multi(Pmax=? [ G (!\"A\" & X !\"A\") ], P>=0.3 [ F \"B\" ])").number, 1.0, 1e-9);
  EXPECT_NEAR(checked(mdp, "multi(Pmin=? [ (F \"A\") | (F \"B\") ], P>=0.25 [ F \"A\" ])").number, 0.5, 1e-9);
  EXPECT_TRUE(checked(mdp, "multi(P>=0.5 [ (F \"A\") & X true ], P>=0.5 [ F \"B\" ])").truth);
}

// 0 goes to 1 or to 3; 1 ("A") stays or goes to 2 ("B"), which goes back to 1; 3 ("A")
// stays. Its end components: {1, 2}, where a scheduler can visit "A" and "B" forever,
// and {3}, only "A".
SparseMdp a_and_b_forever() {
  return test::make_mdp({{{{1, 1.0}}, {{3, 1.0}}}, {{{1, 1.0}}, {{2, 1.0}}}, {{{1, 1.0}}}, {{{3, 1.0}}}},
                        {{"A", {1, 3}}, {"B", {2}}});
}

// G F objectives (Büchi): met by staying in an end component with such a state, where
// a scheduler visits all of its states forever, so several are met at once. In
// three_ways "A" and "B" absorb: G F is F there.
TEST(MultiObjective, BuchiObjectivesByHand) {
  const SparseMdp three = three_ways();
  EXPECT_NEAR(checked(three, "multi(Pmax=? [ G F \"A\" ], P>=0.4 [ F \"B\" ])").number, 0.6, 1e-9);
  EXPECT_NEAR(checked(three, "multi(Pmax=? [ G F \"A\" ], P>=0.4 [ G F \"B\" ])").number, 0.6, 1e-9);
  EXPECT_FALSE(checked(three, "multi(P>=0.6 [ G F \"A\" ], P>=0.5 [ G F \"B\" ])").truth);
  const SparseMdp both = a_and_b_forever();
  EXPECT_NEAR(checked(both, "multi(Pmax=? [ G F \"B\" ], P>=1 [ G F \"A\" ])").number, 1.0, 1e-9);
  EXPECT_TRUE(checked(both, "multi(P>=1 [ G F \"A\" ], P>=1 [ G F (\"B\" & !\"A\") ])").truth);
  // With "B" at most a half, "A" is still certain: 3 for the rest.
  EXPECT_NEAR(checked(both, "multi(Pmax=? [ G F \"A\" ], P>=0.5 [ G F \"B\" ])").number, 1.0, 1e-9);
  // A co-safe objective beside it: reaching "B" at all.
  EXPECT_NEAR(checked(both, "multi(Pmax=? [ G F \"A\" ], P>=1 [ F \"B\" ])").number, 1.0, 1e-9);
}

// F G objectives (co-Büchi: the scheduler commits to stay among phi states), and G F and
// F G to minimise or bounded from above (tracked as the other over !phi, flipped).
TEST(MultiObjective, CoBuchiAndMinimisedLimitObjectivesByHand) {
  const SparseMdp both = a_and_b_forever();
  // Only "A" forever ({1} or {3}) against visiting "B" forever ({1, 2}): a trade.
  EXPECT_NEAR(checked(both, "multi(Pmax=? [ F G \"A\" ], P>=0.5 [ G F \"B\" ])").number, 0.5, 1e-9);
  EXPECT_NEAR(checked(both, "multi(Pmax=? [ F G \"A\" ], P>=1 [ F \"B\" ])").number, 1.0, 1e-9);  // back to 1, stay
  EXPECT_NEAR(checked(both, "multi(Pmin=? [ G F \"B\" ], P>=1 [ F \"B\" ])").number, 0.0, 1e-9);
  EXPECT_NEAR(checked(both, "multi(Pmax=? [ G F \"B\" ], P<=0.25 [ F G \"A\" ])").number, 1.0, 1e-9);
  EXPECT_FALSE(checked(both, "multi(P>=0.5 [ F G \"A\" ], P>=0.6 [ G F \"B\" ])").truth);
  const SparseMdp three = three_ways();
  // At most 0.2 of "A": c 0.4 (half "A") and b 0.6, so "B" forever at least 0.6.
  EXPECT_NEAR(checked(three, "multi(Pmin=? [ G F \"B\" ], P<=0.2 [ F \"A\" ])").number, 0.6, 1e-9);
  EXPECT_NEAR(checked(three, "multi(Pmin=? [ F G \"B\" ], P<=0.2 [ F G \"A\" ])").number, 0.6, 1e-9);
}

// 0 chooses: to 1 ("A", which stays earning 1 a step), to 2 at a cost of 3 ("A", which
// stays for free), or to 3 (no label, stays for free).
SparseMdp costly_stays() {
  SparseMdp mdp = test::make_mdp({{{{1, 1.0}}, {{2, 1.0}}, {{3, 1.0}}}, {{{1, 1.0}}}, {{{2, 1.0}}}, {{{3, 1.0}}}},
                                 {{"A", {1, 2}}});
  mdp.rewards.push_back({"cost", {}, {0.0, 3.0, 0.0, 1.0, 0.0, 0.0}});  // one per choice
  return mdp;
}

// Beside a reward objective, a path met by staying forever is met only where staying
// earns nothing: in 1 the cost is infinite, so "A" forever within a cost of 2 is 2 to 2
// and 1 to 3, and the least cost of "A" forever with probability a half is 1.5.
TEST(MultiObjective, LimitObjectivesBesideRewardsByHand) {
  const SparseMdp mdp = costly_stays();
  EXPECT_NEAR(checked(mdp, "multi(Pmax=? [ G F \"A\" ])").number, 1.0, 1e-9);
  EXPECT_NEAR(checked(mdp, "multi(Pmax=? [ G F \"A\" ], R{\"cost\"}<=2 [ C ])").number, 2.0 / 3.0, 1e-9);
  EXPECT_NEAR(checked(mdp, "multi(Pmax=? [ F G \"A\" ], R{\"cost\"}<=1.5 [ C ])").number, 0.5, 1e-9);
  EXPECT_NEAR(checked(mdp, "multi(R{\"cost\"}min=? [ C ], P>=0.5 [ G F \"A\" ])").number, 1.5, 1e-9);
  EXPECT_NEAR(checked(mdp, "multi(R{\"cost\"}min=? [ C ], P<=0.25 [ F G !\"A\" ])").number, 2.25, 1e-9);
  EXPECT_FALSE(checked(mdp, "multi(P>=0.9 [ G F \"A\" ], R{\"cost\"}<=2 [ C ])").truth);
  // The same through the general automaton: G F "A" & F G "A" is F G "A".
  EXPECT_NEAR(checked(mdp, "multi(Pmax=? [ (G F \"A\") & (F G \"A\") ], R{\"cost\"}<=2 [ C ])").number, 2.0 / 3.0,
              1e-9);
  // A jump of the automaton is no step of the model: 0's state reward is earned once.
  SparseMdp free_in_one = mdp;
  free_in_one.rewards[0] = {"cost", CompactValues{1.0, 0.0, 0.0, 0.0}, CompactValues{0.0, 2.0, 0.0, 0.0, 0.0, 0.0}};
  EXPECT_NEAR(checked(free_in_one, "multi(R{\"cost\"}max=? [ C ], P>=1 [ (G F \"A\") & (F G \"A\") ])").number, 3.0,
              1e-9);
}

// Paths that are neither co-safe, safety, G F nor F G of a state formula go through their
// whole limit-deterministic automata. In a_and_b_forever, {1, 2} visits "A" and "B"
// forever, {1} and {3} only "A".
TEST(MultiObjective, OtherLtlObjectivesByHand) {
  const SparseMdp both = a_and_b_forever();
  EXPECT_NEAR(checked(both, "multi(Pmax=? [ (G F \"A\") & (G F \"B\") ])").number, 1.0, 1e-9);
  EXPECT_NEAR(checked(both, "multi(Pmax=? [ (G F \"A\") & (G F \"B\") ], P>=0.5 [ F G \"A\" ])").number, 0.5, 1e-9);
  EXPECT_NEAR(checked(both, "multi(Pmin=? [ (G F \"A\") & (G F \"B\") ], P>=1 [ F \"B\" ])").number, 0.0, 1e-9);
  EXPECT_NEAR(checked(both, "multi(Pmax=? [ (G (\"B\" => X \"A\")) & (G F \"B\") ], P>=0.3 [ F G \"A\" ])").number,
              0.7, 1e-9);
  EXPECT_TRUE(checked(both, "multi(P>=0.4 [ (G F \"A\") & (G F \"B\") ], P>=0.6 [ F G !\"B\" ])").truth);
  EXPECT_FALSE(checked(both, "multi(P>=0.5 [ (G F \"A\") & (G F \"B\") ], P>=0.6 [ F G !\"B\" ])").truth);
  // Two such paths at once, each with its own guesses.
  EXPECT_NEAR(checked(both, "multi(Pmax=? [ (G F \"B\") & (G F \"A\") ], P>=0.25 [ (F G \"A\") & (G F \"A\") ])").number,
              0.75, 1e-9);
}

// The error checking text on mdp gives; empty where there is none.
std::string error_of(const SparseMdp& mdp, const std::string& text) {
  try {
    checked(mdp, text);
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

TEST(MultiObjective, QuestionsWithoutAnAnswerSaySo) {
  const SparseMdp mdp = three_ways();
  EXPECT_NE(error_of(mdp, "multi(Pmax=? [ F \"A\" ], Pmax=? [ F \"B\" ], P>=0.6 [ F \"A\" ], P>=0.5 [ F \"B\" ])")
                .find("no scheduler meets"),
            std::string::npos);
  EXPECT_NE(error_of(mdp, "multi(P>=0.1 [ F G \"A\" ], P>=0.1 [ F G \"B\" ], P>=0.1 [ F G !\"A\" ], "
                          "P<=0.9 [ G F \"B\" ])")
                .find("more than 3"),
            std::string::npos);
  SparseMdp looping = three_ways();
  looping.rewards[0].state_rewards = CompactValues{0.0, 1.0, 0.0, 0.0};  // earned forever in "A"
  EXPECT_NE(error_of(looping, "multi(R{\"cost\"}max=? [ C ], R{\"cost\"}<=5 [ C ])").find("inside an end component"),
            std::string::npos);
}

// One =? whose other bounds no scheduler meets has no value: NaN, as PRISM answers.
TEST(MultiObjective, UnmetBoundsUnderOneQueryAreNaN) {
  const SparseMdp mdp = three_ways();
  const PropertyValue value = checked(mdp, "multi(Pmax=? [ F \"A\" ], P>=0.5 [ F \"B\" ], P>=0.6 [ F \"A\" ])");
  EXPECT_EQ(value.kind, PropertyValue::Kind::number);
  EXPECT_TRUE(std::isnan(value.number));
  EXPECT_NE(value.scope.find("no scheduler meets"), std::string::npos);
  EXPECT_EQ(to_text(value), "NaN");
}

// 0 chooses a loop that earns "c1" forever (to 1) or one that earns "c2" (to 2); "r"
// is 1 for the first choice, 2 for the second.
SparseMdp two_costly_loops() {
  SparseMdp mdp = test::make_mdp({{{{1, 1.0}}, {{2, 1.0}}}, {{{1, 1.0}}}, {{{2, 1.0}}}}, {});
  mdp.rewards.push_back({"r", {}, {1.0, 2.0, 0.0, 0.0}});
  mdp.rewards.push_back({"c1", {}, {0.0, 0.0, 1.0, 0.0}});
  mdp.rewards.push_back({"c2", {}, {0.0, 0.0, 0.0, 1.0}});
  return mdp;
}

// A least reward that only a stay earning it forever meets the others' bounds with is
// infinite, also where the others are rewards (whose own stays stay costly); bounds
// that no scheduler meets give NaN.
TEST(MultiObjective, LeastRewardsBesideRewardBoundsByHand) {
  const SparseMdp mdp = two_costly_loops();
  EXPECT_TRUE(std::isinf(checked(mdp, "multi(R{\"c1\"}min=? [ C ], R{\"c2\"}<=5 [ C ])").number));
  EXPECT_NEAR(checked(mdp, "multi(R{\"r\"}min=? [ C ], R{\"c1\"}<=5 [ C ])").number, 2.0, 1e-9);
  EXPECT_FALSE(checked(mdp, "multi(R{\"c1\"}<=5 [ C ], R{\"c2\"}<=5 [ C ])").truth);
  EXPECT_TRUE(std::isnan(checked(mdp, "multi(R{\"r\"}min=? [ C ], R{\"c1\"}<=5 [ C ], R{\"c2\"}<=5 [ C ])").number));
}

// A reward to maximise that an end component earns: infinite where a scheduler that
// meets the other bounds enters it with positive probability (it may go round as often
// as it likes, then go on), else what the others allow.
TEST(MultiObjective, MaximaOfRewardsEarnedForever) {
  SparseMdp looping = three_ways();
  looping.rewards[0].state_rewards = CompactValues{0.0, 1.0, 0.0, 0.0};  // earned forever in "A"
  EXPECT_TRUE(std::isinf(checked(looping, "multi(R{\"cost\"}max=? [ C ], P>=0.5 [ F \"B\" ])").number));
  EXPECT_NEAR(checked(looping, "multi(R{\"cost\"}max=? [ C ], P>=1 [ F \"B\" ])").number, 2.0, 1e-9);
}

// 0 ("wait") chooses: wait (a self-loop, cost 1), try (cost 1: "done" or back to 0, a
// coin), or give up ("fail", free). "done" and "fail" absorb, free. A cost earned on a
// cycle: reaching "done" for sure takes two tries on average; half of it, one (each try
// gives half a chance, whatever the order); staying in "wait" forever costs infinitely.
SparseMdp waiting() {
  SparseMdp mdp = test::make_mdp({{{{0, 1.0}}, {{1, 0.5}, {0, 0.5}}, {{2, 1.0}}}, {{{1, 1.0}}}, {{{2, 1.0}}}},
                                 {{"wait", {0}}, {"done", {1}}, {"fail", {2}}});
  mdp.rewards.push_back({"cost", {}, {1.0, 1.0, 0.0, 0.0, 0.0}});  // one per choice
  return mdp;
}

TEST(MultiObjective, CostsEarnedOnCyclesByHand) {
  const SparseMdp mdp = waiting();
  EXPECT_NEAR(checked(mdp, "multi(R{\"cost\"}min=? [ C ], P>=1 [ F \"done\" ])").number, 2.0, 1e-9);
  EXPECT_NEAR(checked(mdp, "multi(R{\"cost\"}min=? [ C ], P>=0.5 [ F \"done\" ])").number, 1.0, 1e-9);
  EXPECT_NEAR(checked(mdp, "multi(R{\"cost\"}min=? [ C ])").number, 0.0, 1e-9);
  EXPECT_NEAR(checked(mdp, "multi(Pmax=? [ F \"done\" ], R{\"cost\"}<=1.5 [ C ])").number, 0.75, 1e-9);
  EXPECT_TRUE(checked(mdp, "multi(R{\"cost\"}<=1 [ C ], P>=0.5 [ F \"done\" ])").truth);
  EXPECT_FALSE(checked(mdp, "multi(R{\"cost\"}<=0.9 [ C ], P>=0.5 [ F \"done\" ])").truth);
  EXPECT_TRUE(std::isinf(checked(mdp, "multi(R{\"cost\"}min=? [ C ], P>=1 [ G \"wait\" ])").number));
  EXPECT_TRUE(std::isinf(checked(mdp, "multi(R{\"cost\"}max=? [ C ], P>=0.5 [ F \"done\" ])").number));
  // Wait as long as one likes, then give up: "fail" for sure, any cost.
  EXPECT_TRUE(std::isinf(checked(mdp, "multi(R{\"cost\"}max=? [ C ], P>=1 [ F \"fail\" ])").number));
}

// One least, or greatest, total reward, earned on random rows of random MDPs
// (self-loops and cycles among them), is the total reward pipeline's: the same number,
// or both infinite.
TEST(MultiObjective, OneTotalRewardIsTheTotalRewardPipelines) {
  std::mt19937 rng(31);
  for (const char* direction : {"min", "max"}) {
    int finite = 0, infinite = 0;
    for (int trial = 0; trial < 60; ++trial) {
      SparseMdp mdp = test::small_random_mdp(2 + trial % 9, false, rng);
      PodVector<double> cost(mdp.num_choices(), 0.0);
      // Rarer for the greatest: a reward earned in any reachable end component makes it infinite.
      const unsigned one_in = std::string(direction) == "min" ? 3 : 12;
      for (double& c : cost) c = rng() % one_in == 0 ? 0.5 * (1 + rng() % 4) : 0.0;
      mdp.rewards.push_back({"cost", {}, CompactValues(std::move(cost))});
      const std::string query = std::string("R{\"cost\"}") + direction + "=? [ C ]";
      const double expected = checked(mdp, query).number;
      const double actual = checked(mdp, "multi(" + query + ")").number;
      if (std::isinf(expected)) {
        ++infinite;
        EXPECT_TRUE(std::isinf(actual)) << direction << ", trial " << trial;
      } else {
        ++finite;
        EXPECT_NEAR(actual, expected, 1e-7 * std::max(1.0, expected)) << direction << ", trial " << trial;
      }
    }
    EXPECT_GT(finite, 8) << direction;
    EXPECT_GT(infinite, 8) << direction;
  }
}

MultiObjective reach(const StateSet& target, std::optional<Optimization> query, std::optional<Comparison> c = {},
                     double threshold = 0.0) {
  MultiObjective o;
  o.phi = all_states(target.size());
  o.psi = target;
  o.query = query;
  o.comparison = c;
  o.threshold = threshold;
  return o;
}

StateSet random_set(std::uint32_t n, std::mt19937& rng) {
  StateSet set(n);
  for (std::uint32_t s = 0; s < n; ++s) {
    if (rng() % 3 == 0) set.set(s);
  }
  return set;
}

TEST(MultiObjective, OneObjectiveIsTheReachabilityPipelines) {
  std::mt19937 rng(17);
  for (int trial = 0; trial < 40; ++trial) {
    const SparseMdp mdp = test::small_random_mdp(3 + trial % 8, false, rng);
    const StateSet target = random_set(mdp.num_states(), rng);
    const Searched searched(mdp);
    for (Optimization direction : {Optimization::maximize, Optimization::minimize}) {
      const NumericResult expected = compute_until_probabilities(mdp, *searched.search, direction,
                                                                 all_states(mdp.num_states()), target, kSound);
      const MultiObjectiveAnswer answer = check_multi_objective(mdp, {reach(target, direction)});
      EXPECT_NEAR(answer.value, expected.values[mdp.initial_states[0]], 1e-8) << "trial " << trial;
    }
  }
}

// On 24 random MDPs (one- to three-choice states, self-loops), each given its labels or
// rewards by decorate, every query alone in multi(...) is the single-objective
// pipeline's value.
template <typename Decorate>
void expect_alone_as_single(unsigned seed, Decorate decorate, const std::vector<std::string>& queries) {
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 24; ++trial) {
    SparseMdp mdp = test::small_random_mdp(2 + trial % 9, false, rng);
    decorate(mdp, rng);
    for (const std::string& query : queries) {
      EXPECT_NEAR(checked(mdp, "multi(" + query + ")").number, checked(mdp, query).number, 1e-8)
          << query << ", trial " << trial;
    }
  }
}

// X and step-bounded paths (and their complements, G<=k) go through the automata of
// co-safe LTL.
TEST(MultiObjective, BoundedAndNextPathsAreTheSingleObjectivePipelines) {
  std::vector<std::string> queries;
  for (const char* path : {"X \"a\"", "F<=3 \"a\"", "\"b\" U<=2 \"a\"", "F[2,4] \"a\"", "F>=2 \"a\"", "G<=3 \"b\"",
                           "\"b\" U>=1 \"a\""}) {
    for (const char* direction : {"min", "max"}) queries.push_back(std::string("P") + direction + "=? [ " + path + " ]");
  }
  expect_alone_as_single(
      41,
      [](SparseMdp& mdp, std::mt19937& rng) {
        mdp.labels.push_back({"a", random_set(mdp.num_states(), rng)});
        mdp.labels.push_back({"b", random_set(mdp.num_states(), rng)});
      },
      queries);
}

// G F and F G alone in multi(...), maximised and minimised, are the LTL pipeline's
// values on random MDPs.
TEST(MultiObjective, OneLimitObjectiveIsTheLtlPipeline) {
  expect_alone_as_single(
      53,
      [](SparseMdp& mdp, std::mt19937& rng) {
        mdp.labels.push_back({"a", random_set(mdp.num_states(), rng)});
        mdp.labels.push_back({"b", random_set(mdp.num_states(), rng)});
      },
      {"Pmax=? [ G F \"a\" ]", "Pmax=? [ G F (\"a\" | !\"b\") ]", "Pmax=? [ G F (\"a\" & \"b\") ]",
       "Pmin=? [ G F \"a\" ]", "Pmin=? [ G F (\"a\" | !\"b\") ]", "Pmax=? [ F G \"a\" ]",
       "Pmax=? [ F G (\"a\" | \"b\") ]", "Pmin=? [ F G \"a\" ]", "Pmin=? [ F G !\"b\" ]"});
}

// Any other LTL path alone in multi(...), maximised and minimised, is the LTL pipeline's
// value on random MDPs.
TEST(MultiObjective, OneOtherLtlObjectiveIsTheLtlPipeline) {
  std::vector<std::string> queries;
  for (const char* path : {"(G F \"a\") & (F G \"b\")", "(G F \"a\") | (F G \"b\")", "G (\"a\" => F \"b\")",
                           "G F (\"a\" & X \"b\")", "\"a\" U (G \"b\")", "(G F \"a\") & (G F \"b\")",
                           "F G (\"a\" | X \"b\")"}) {
    for (const char* direction : {"min", "max"}) queries.push_back(std::string("P") + direction + "=? [ " + path + " ]");
  }
  expect_alone_as_single(
      67,
      [](SparseMdp& mdp, std::mt19937& rng) {
        mdp.labels.push_back({"a", random_set(mdp.num_states(), rng)});
        mdp.labels.push_back({"b", random_set(mdp.num_states(), rng)});
      },
      queries);
}

// R [ C<=k ] counts the steps in the product: alone, it is the cumulative reward
// pipeline's value, state and choice rewards alike, k = 0 included.
TEST(MultiObjective, OneBoundedCumulativeRewardIsTheCumulativePipeline) {
  std::vector<std::string> queries;
  for (const char* direction : {"min", "max"}) {
    for (int k : {0, 1, 4}) queries.push_back(std::string("R{\"cost\"}") + direction + "=? [ C<=" + std::to_string(k) + " ]");
  }
  expect_alone_as_single(
      43,
      [](SparseMdp& mdp, std::mt19937& rng) {
        PodVector<double> cost(mdp.num_choices()), per_state(mdp.num_states());
        for (double& c : cost) c = 0.5 * (rng() % 4);
        for (double& c : per_state) c = 0.25 * (rng() % 3);
        mdp.rewards.push_back({"cost", CompactValues(std::move(per_state)), CompactValues(std::move(cost))});
      },
      queries);
}

// Beside another objective, by hand. From 0, "A" is reached in one step for sure (the
// first choice, cost 1) or with a half (the coin, cost 0.5): at most 0.4 of the runs may
// take the first choice where P(F "B") >= 0.6 must hold, 0.5 where 0.5. P(F "A") >= 0.75
// needs half of the runs on the first choice: 0.5 * 1 + 0.5 * 0.5 = 0.75 in one step.
TEST(MultiObjective, NextAndStepBoundedObjectivesBesideAnotherByHand) {
  const SparseMdp mdp = three_ways();
  const std::pair<const char*, double> answers[] = {
      {"multi(Pmax=? [ X \"A\" ], P>=0.6 [ F \"B\" ])", 0.4},
      {"multi(Pmax=? [ F<=1 \"A\" ], P>=0.5 [ F \"B\" ])", 0.5},
      {"multi(R{\"cost\"}min=? [ C<=1 ], P>=0.75 [ F \"A\" ])", 0.75},
      {"multi(R{\"cost\"}min=? [ C<=0 ], P>=0.75 [ F \"A\" ])", 0.0},
  };
  for (const auto& [query, value] : answers) EXPECT_NEAR(checked(mdp, query).number, value, 1e-9) << query;
}

// v = max P(F a) subject to P(F b) >= x: v - 1e-6 with x is achievable, v + 1e-6 not.
TEST(MultiObjective, ANumericalQueryIsTheEdgeOfAchievability) {
  std::mt19937 rng(23);
  int tight = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const SparseMdp mdp = test::small_random_mdp(3 + trial % 8, false, rng);
    const StateSet a = random_set(mdp.num_states(), rng), b = random_set(mdp.num_states(), rng);
    const double x = 0.1 * static_cast<double>(rng() % 10);
    const MultiObjective at_least_x = reach(b, std::nullopt, Comparison::greater_equal, x);
    const MultiObjectiveAnswer v = check_multi_objective(mdp, {reach(a, Optimization::maximize), at_least_x});
    EXPECT_EQ(v.bounds_unmet, std::isnan(v.value));
    if (v.bounds_unmet) {  // no scheduler reaches b with x: neither does any below
      EXPECT_FALSE(check_multi_objective(mdp, {reach(a, std::nullopt, Comparison::greater_equal, 0.0), at_least_x})
                       .achievable);
      continue;
    }
    ++tight;
    EXPECT_TRUE(check_multi_objective(
                    mdp, {reach(a, std::nullopt, Comparison::greater_equal, v.value - 1e-6), at_least_x})
                    .achievable)
        << "trial " << trial;
    EXPECT_FALSE(check_multi_objective(
                     mdp, {reach(a, std::nullopt, Comparison::greater_equal, v.value + 1e-6), at_least_x})
                     .achievable)
        << "trial " << trial << " v " << v.value << " x " << x;
  }
  EXPECT_GT(tight, 15);
}

// n states: the last two absorbing ("a" and "b": reaching one forgoes the other), the
// others with 1 to 3 random rows.
SparseMdp two_ends(std::uint32_t n, std::mt19937& rng) {
  std::vector<test::StateChoices> states(n);
  for (std::uint32_t s = 0; s + 2 < n; ++s) {
    const std::uint32_t rows = 1 + rng() % 3;
    for (std::uint32_t r = 0; r < rows; ++r) {
      test::Choice row;
      const std::uint32_t length = 1 + rng() % 3;
      for (std::uint32_t k = 0; k < length; ++k) row.emplace_back(rng() % n, 1.0 / length);
      states[s].push_back(row);
    }
  }
  states[n - 2] = {{{n - 2, 1.0}}};
  states[n - 1] = {{{n - 1, 1.0}}};
  return test::make_mdp(states, {});
}

// With three targets, each vertex of the front is achievable, and no vertex pushed past
// the others by a millionth in every objective is.
TEST(MultiObjective, ParetoVerticesOfThreeObjectivesAreAchievable) {
  std::mt19937 rng(31);
  int vertices = 0;
  for (int trial = 0; trial < 20; ++trial) {
    SparseMdp mdp = two_ends(5 + trial % 6, rng);
    const std::uint32_t n = mdp.num_states();
    const StateSet a = test::states_of(n, {n - 2}), b = test::states_of(n, {n - 1}), c = test::states_of(n, {n - 3});
    const MultiObjectiveAnswer front = check_multi_objective(
        mdp, {reach(a, Optimization::maximize), reach(b, Optimization::maximize), reach(c, Optimization::maximize)});
    ASSERT_FALSE(front.pareto.empty());
    const auto achievable = [&](const std::vector<double>& p, double by) {
      return check_multi_objective(mdp, {reach(a, std::nullopt, Comparison::greater_equal, p[0] + by),
                                         reach(b, std::nullopt, Comparison::greater_equal, p[1] + by),
                                         reach(c, std::nullopt, Comparison::greater_equal, p[2] + by)})
          .achievable;
    };
    for (const std::vector<double>& p : front.pareto) {
      EXPECT_TRUE(achievable(p, -1e-7)) << "trial " << trial;
      EXPECT_FALSE(achievable(p, 1e-6)) << "trial " << trial;
      ++vertices;
    }
  }
  EXPECT_GT(vertices, 30);
}

// Each vertex of a random MDP's Pareto curve is achievable, and the middle of each edge
// pushed outwards by a millionth is not.
TEST(MultiObjective, ParetoVerticesAreAchievableAndTheirEdgesTheFront) {
  std::mt19937 rng(29);
  int edges = 0;
  for (int trial = 0; trial < 30; ++trial) {
    const SparseMdp mdp = two_ends(4 + trial % 8, rng);
    const std::uint32_t n = mdp.num_states();
    const StateSet a = test::states_of(n, {n - 2}), b = test::states_of(n, {n - 1});
    const MultiObjectiveAnswer curve =
        check_multi_objective(mdp, {reach(a, Optimization::maximize), reach(b, Optimization::maximize)});
    ASSERT_FALSE(curve.pareto.empty());
    const auto achievable = [&](double x, double y) {
      return check_multi_objective(mdp, {reach(a, std::nullopt, Comparison::greater_equal, x),
                                         reach(b, std::nullopt, Comparison::greater_equal, y)})
          .achievable;
    };
    for (const std::vector<double>& p : curve.pareto) EXPECT_TRUE(achievable(p[0] - 1e-7, p[1] - 1e-7)) << "trial " << trial;
    for (std::size_t i = 0; i + 1 < curve.pareto.size(); ++i, ++edges) {
      const double x = (curve.pareto[i][0] + curve.pareto[i + 1][0]) / 2, y = (curve.pareto[i][1] + curve.pareto[i + 1][1]) / 2;
      EXPECT_FALSE(achievable(x + 1e-6, y + 1e-6)) << "trial " << trial;
    }
  }
  EXPECT_GT(edges, 5);
}

}  // namespace
}  // namespace mdpvi
