// The exported scheduler is optimal: the DTMC it induces has the MDP's optimal value
// in every state, for Pmin, Pmax, Rmin and Rmax, including the end components where
// the greedy choice is not optimal.
#include "engine/check/reachability.h"
#include "engine/check/rewards.h"
#include "engine/explore/model_builder.h"
#include "engine/check/property_checker.h"
#include "engine/check/scheduler.h"
#include "io/property_parser.h"
#include "graph/qualitative.h"
#include "graph/search_backend.h"
#include "random_mdps.h"
#include "test_models.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <random>

namespace mdpvi {
namespace {

using test::make_mdp;
using test::states_of;

constexpr double kTolerance = 1e-9;

SolverOptions tight() {
  SolverOptions options;
  options.stop.epsilon = 1e-12;
  options.stop.criterion = ConvergenceCriterion::absolute;
  options.stop.max_sweeps = 10000000;
  return options;
}

// The query's values on mdp: probabilities of phi U target, or rewards to target.
StateNumbers values_of(const SparseMdp& mdp, const ReachabilityQuery& query) {
  auto graph = graph::build_choice_predecessor_graph(mdp);
  auto search = graph::make_search_backend(mdp, graph, graph::SearchKind::reference);
  if (query.rewards) {
    return compute_reachability_reward(mdp, *search, query.direction, *query.rewards, *query.target, tight()).values;
  }
  const StateSet all = ~StateSet(mdp.num_states());
  return compute_until_probabilities(mdp, *search, query.direction, query.phi ? *query.phi : all, *query.target, tight())
      .values;
}

// The values of the DTMC the exported scheduler induces, and the MDP's.
struct Compared {
  StateNumbers optimal, induced;
};

Compared compare_induced(const SparseMdp& mdp, ReachabilityQuery query) {
  Compared c;
  c.optimal = values_of(mdp, query);
  const Scheduler scheduler = optimal_scheduler(mdp, query, c.optimal, kTolerance);
  const SparseMdp dtmc = induced_dtmc(mdp, scheduler);
  check_invariants(dtmc);
  if (query.rewards) query.rewards = &dtmc.rewards.front();
  c.induced = values_of(dtmc, query);
  return c;
}

void expect_same_values(const Compared& c) {
  ASSERT_EQ(c.optimal.size(), c.induced.size());
  for (std::size_t s = 0; s < c.optimal.size(); ++s) {
    if (std::isinf(c.optimal[s])) {
      EXPECT_TRUE(std::isinf(c.induced[s])) << "state " << s << ": induced " << c.induced[s];
    } else {
      EXPECT_NEAR(c.induced[s], c.optimal[s], 1e-8) << "state " << s;
    }
  }
}

RewardStructure state_rewards(const std::vector<double>& per_state) {
  RewardStructure r;
  r.state_rewards.plain().assign(per_state.begin(), per_state.end());
  return r;
}

// States 0 and 1 form an end component in which staying is as good as leaving: the
// greedy choice at 1 (back to 0) never reaches the target 2.
SparseMdp end_component_with_exit() {
  return make_mdp({{{{0, 1.0}}, {{1, 1.0}}},             // 0: stay, or go to 1
                   {{{0, 1.0}}, {{2, 0.5}, {3, 0.5}}},   // 1: back to 0, or try for the target
                   {{{2, 1.0}}},                         // 2: target
                   {{{3, 1.0}}}},                        // 3: missed
                  {{"goal", {2}}});
}

TEST(OptimalScheduler, PmaxLeavesAnEndComponentOfEqualValues) {
  SparseMdp mdp = end_component_with_exit();
  const StateSet goal = states_of(4, {2});
  const Compared c = compare_induced(mdp, {Optimization::maximize, nullptr, &goal, nullptr});
  EXPECT_NEAR(c.optimal[0], 0.5, 1e-10);
  expect_same_values(c);
}

TEST(OptimalScheduler, RminLeavesAZeroRewardEndComponent) {
  // 0: a free self-loop, or pay 1 to reach the target 1.
  SparseMdp mdp = make_mdp({{{{0, 1.0}}, {{1, 1.0}}}, {{{1, 1.0}}}}, {});
  mdp.rewards.push_back(state_rewards({0.0, 0.0}));
  mdp.rewards[0].choice_rewards.plain().assign({0.0, 1.0, 0.0});
  const StateSet goal = states_of(2, {1});
  const Compared c = compare_induced(mdp, {Optimization::minimize, nullptr, &goal, &mdp.rewards[0]});
  EXPECT_NEAR(c.optimal[0], 1.0, 1e-10);
  expect_same_values(c);
}

TEST(OptimalScheduler, RmaxInfiniteStatesMissTheTarget) {
  // 0: to the target 1, or to 2, which may fall into the trap 3 (never the target).
  SparseMdp mdp = make_mdp({{{{1, 1.0}}, {{2, 1.0}}}, {{{1, 1.0}}}, {{{1, 0.5}, {3, 0.5}}}, {{{3, 1.0}}}}, {});
  mdp.rewards.push_back(state_rewards({1.0, 0.0, 1.0, 1.0}));
  const StateSet goal = states_of(4, {1});
  const Compared c = compare_induced(mdp, {Optimization::maximize, nullptr, &goal, &mdp.rewards[0]});
  EXPECT_TRUE(std::isinf(c.optimal[0]));
  expect_same_values(c);
}

TEST(OptimalScheduler, PminTakesTheLeastChoice) {
  SparseMdp mdp = end_component_with_exit();
  const StateSet goal = states_of(4, {2});
  const Compared c = compare_induced(mdp, {Optimization::minimize, nullptr, &goal, nullptr});
  EXPECT_EQ(c.optimal[0], 0.0);
  expect_same_values(c);
}

TEST(OptimalScheduler, UntilKeepsToPhi) {
  SparseMdp mdp = end_component_with_exit();
  const StateSet goal = states_of(4, {2}), through = states_of(4, {0, 2});
  const Compared c = compare_induced(mdp, {Optimization::maximize, &through, &goal, nullptr});
  EXPECT_EQ(c.optimal[0], 0.0);  // 1 is not phi
  expect_same_values(c);
}

// Random MDPs (chains back to the start, self-loops, 40-choice states, absorbing
// states: end components of equal values abound), with rewards that are often 0.
class OptimalSchedulerOnRandomMdps : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(OptimalSchedulerOnRandomMdps, InducedDtmcHasTheOptimalValues) {
  const std::uint32_t seed = GetParam();
  for (std::uint32_t n : {1u, 7u, 60u, 333u}) {
    SparseMdp mdp = test::random_mdp(n, seed);
    const StateSet target = test::random_set(n, 0.05, seed + 1);
    const StateSet phi = test::random_set(n, 0.9, seed + 2);
    std::mt19937 rng(seed);
    std::vector<double> rewards(n);
    for (double& r : rewards) r = rng() % 3 == 0 ? 1.5 : 0.0;
    mdp.rewards.push_back(state_rewards(rewards));
    for (Optimization direction : {Optimization::minimize, Optimization::maximize}) {
      SCOPED_TRACE(::testing::Message() << "n " << n << (direction == Optimization::maximize ? " max" : " min"));
      expect_same_values(compare_induced(mdp, {direction, &phi, &target, nullptr}));
      expect_same_values(compare_induced(mdp, {direction, nullptr, &target, &mdp.rewards[0]}));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, OptimalSchedulerOnRandomMdps, ::testing::Values(1u, 2u, 3u, 4u, 5u, 6u));

TEST(InducedDtmc, KeepsTheChosenRowsWithTheirRewardsAndActions) {
  SparseMdp mdp = end_component_with_exit();
  mdp.rewards.push_back(state_rewards({1, 2, 3, 4}));
  mdp.rewards[0].choice_rewards.plain().assign({10, 20, 30, 40, 50, 60});
  mdp.actions.emplace();
  mdp.actions->names = {"", "stay", "go"};
  mdp.actions->of_choice.assign({1, 2, 0, 2, 0, 0});
  const SparseMdp dtmc = induced_dtmc(mdp, Scheduler{{1, 1, 0, 0}});
  check_invariants(dtmc);
  EXPECT_EQ(dtmc.type, ModelType::dtmc);
  EXPECT_EQ(std::vector<std::uint32_t>(dtmc.columns.begin(), dtmc.columns.end()), (std::vector<std::uint32_t>{1, 2, 3, 2, 3}));
  EXPECT_EQ(dtmc.rewards[0].choice_rewards, (CompactValues{20, 40, 50, 60}));
  EXPECT_EQ(std::vector<std::uint32_t>(dtmc.actions->of_choice.begin(), dtmc.actions->of_choice.end()),
            (std::vector<std::uint32_t>{2, 2, 0, 0}));
  EXPECT_EQ(dtmc.labels.size(), 1u);
}

// A sender picks a channel for each of 3 tries: reliable (loses 0.1, costs 5) or
// cheap (loses 0.3, costs 1).
constexpr const char* kResend = R"(mdp
module sender
  tries : [0..3];
  delivered : bool;
  [reliable] !delivered & tries<3 -> 0.9 : (delivered'=true) & (tries'=tries+1) + 0.1 : (tries'=tries+1);
  [cheap] !delivered & tries<3 -> 0.7 : (delivered'=true) & (tries'=tries+1) + 0.3 : (tries'=tries+1);
  [done] delivered | tries=3 -> true;
endmodule
rewards "cost"
  [reliable] true : 5;
  [cheap] true : 1;
endrewards
)";

// The actions the scheduler of a property chooses in the states still trying.
std::set<std::string> chosen_actions(const SparseMdp& mdp, const std::string& property) {
  const io::PropertyEntry entry = io::parse_property(property, "p");
  auto graph = graph::build_choice_predecessor_graph(mdp);
  auto search = graph::make_search_backend(mdp, graph, graph::SearchKind::reference);
  CheckContext context{mdp, *search, PropertyScope{"p", {}, {}, {}}, tight(), {SolverKind::cpu}};
  context.keep_scheduler = true;
  const PropertyResult result = check_property(*entry.formula, context);
  EXPECT_TRUE(result.scheduler) << result.no_scheduler;
  std::set<std::string> actions;
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    if (mdp.row_group_starts[s + 1] - mdp.row_group_starts[s] > 1) {
      actions.insert(mdp.actions->names[mdp.actions->of_choice[result.scheduler->row(mdp, s)]]);
    }
  }
  return actions;
}

TEST(OptimalScheduler, NamesTheBuildersActions) {
  BuildOptions options;
  options.keep_actions = true;
  const SparseMdp mdp = build_model(resolve_model(io::parse_model(io::TextFile::from_string("resend.nm", kResend)), {}),
                                    options).mdp;
  ASSERT_TRUE(mdp.actions);
  EXPECT_EQ(chosen_actions(mdp, "Pmax=? [ F delivered ]"), std::set<std::string>{"reliable"});
  EXPECT_EQ(chosen_actions(mdp, "Pmin=? [ F delivered ]"), std::set<std::string>{"cheap"});
  EXPECT_EQ(chosen_actions(mdp, "Rmin=? [ F delivered | tries=3 ]"), std::set<std::string>{"cheap"});
  EXPECT_EQ(chosen_actions(mdp, "Rmax=? [ F delivered | tries=3 ]"), std::set<std::string>{"reliable"});
}

TEST(OptimalScheduler, NoneForABoundedProperty) {
  const SparseMdp mdp = end_component_with_exit();
  const io::PropertyEntry entry = io::parse_property("Pmax=? [ F<=3 \"goal\" ]", "p");
  auto graph = graph::build_choice_predecessor_graph(mdp);
  auto search = graph::make_search_backend(mdp, graph, graph::SearchKind::reference);
  CheckContext context{mdp, *search, PropertyScope{"p", {}, {}, {}}, tight(), {SolverKind::cpu}};
  context.keep_scheduler = true;
  const PropertyResult result = check_property(*entry.formula, context);
  EXPECT_FALSE(result.scheduler);
  EXPECT_NE(result.no_scheduler.find("unbounded"), std::string::npos);
}

}  // namespace
}  // namespace mdpvi
