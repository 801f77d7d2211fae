// Long-run averages of MDPs (engine/check/long_run_mdp.h) against brute force: on small
// random MDPs, the best and worst of every memoryless deterministic scheduler's
// induced chain (which suffice for long-run averages), each chain's value from its
// stationary distributions; and a hand-solved MDP with a periodic end component.
#include "engine/check/long_run_mdp.h"
#include "engine/check/property_checker.h"
#include "engine/check/scheduler.h"
#include "engine/check/steady_state.h"
#include "engine/pipeline/check_run.h"
#include "graph/qualitative.h"
#include "graph/search_backend.h"
#include "io/property_parser.h"
#include "reference_instances.h"
#include "search_backends.h"
#include "test_models.h"

#include <gtest/gtest.h>

#include <random>

namespace mdpvi {
namespace {

constexpr SolverOptions kSound{Method::optimistic_value_iteration, {ConvergenceCriterion::absolute, 1e-9, 1000000}};

using Searched = test::ReferenceSearch;

// n states, each with 1 to 3 rows of 1 to 3 successors; state rewards 0 to 2 and
// choice rewards 0 to 3, in halves.
SparseMdp random_rewarded_mdp(std::uint32_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<test::StateChoices> states(n);
  for (auto& choices : states) {
    const std::uint32_t rows = 1 + rng() % 3;
    for (std::uint32_t r = 0; r < rows; ++r) {
      std::vector<std::pair<std::uint32_t, double>> row;
      const std::uint32_t length = 1 + rng() % 3;
      for (std::uint32_t k = 0; k < length; ++k) row.emplace_back(rng() % n, 1.0 / length);
      choices.push_back(row);
    }
  }
  SparseMdp mdp = test::make_mdp(states, {});
  PodVector<double> state_rewards(n), choice_rewards(mdp.num_choices());
  for (double& r : state_rewards) r = 0.5 * static_cast<double>(rng() % 5);
  for (double& r : choice_rewards) r = 0.5 * static_cast<double>(rng() % 7);
  mdp.rewards.push_back({"r", CompactValues(state_rewards), CompactValues(choice_rewards)});
  return mdp;
}

// Per state, the best (worst) over all memoryless deterministic schedulers.
std::vector<double> brute_force(const SparseMdp& mdp, Optimization direction) {
  const std::uint32_t n = mdp.num_states();
  std::vector<double> best(n, direction == Optimization::maximize ? -1e300 : 1e300);
  Scheduler scheduler{std::vector<std::uint32_t>(n, 0)};
  while (true) {
    const SparseMdp chain = induced_dtmc(mdp, scheduler);
    StateNumbers per_state(n);
    for (std::uint32_t s = 0; s < n; ++s) per_state[s] = chain.rewards[0].row_reward(s, s);
    const Searched searched(chain);
    const NumericResult values = compute_long_run(chain, *searched.search, per_state, kSound);
    for (std::uint32_t s = 0; s < n; ++s) {
      best[s] = direction == Optimization::maximize ? std::max(best[s], values.values[s]) : std::min(best[s], values.values[s]);
    }
    std::uint32_t s = 0;  // the next scheduler, as a mixed-radix counter
    for (; s < n; ++s) {
      const std::uint64_t rows = mdp.row_group_starts[s + 1] - mdp.row_group_starts[s];
      if (++scheduler.choice[s] < rows) break;
      scheduler.choice[s] = 0;
    }
    if (s == n) return best;
  }
}

TEST(LongRunMdp, BestAndWorstSchedulersOfRandomMdps) {
  for (std::uint32_t seed = 1; seed <= 12; ++seed) {
    const SparseMdp mdp = random_rewarded_mdp(3 + seed % 5, seed);
    const Searched searched(mdp);
    for (Optimization direction : {Optimization::maximize, Optimization::minimize}) {
      const std::vector<double> expected = brute_force(mdp, direction);
      const NumericResult result = compute_long_run_mdp(mdp, *searched.search, direction, mdp.rewards[0], kSound);
      for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
        EXPECT_NEAR(result.values[s], expected[s], 1e-7) << "seed " << seed << " state " << s;
        EXPECT_LE(result.lower[s], expected[s] + 1e-9) << "seed " << seed << " state " << s;
        EXPECT_GE(result.upper[s], expected[s] - 1e-9) << "seed " << seed << " state " << s;
      }
    }
  }
}

double number(const SparseMdp& mdp, const std::string& text) {
  io::PropertyEntry entry = io::parse_property(text, "p");
  const Searched searched(mdp);
  CheckContext context{mdp, *searched.search, PropertyScope{"p", {}, {}, {}}, kSound, {SolverKind::cpu}};
  return check_property(*entry.formula, context).value.number;
}

// From 0, half the runs enter {1, 2}, half {3, 4}. In {1, 2}: 1 must move to 2, which
// goes back (a period of 2: 1 is half the time) or tosses a coin to stay (1 is a third
// of the time). In {3, 4}: each may stay or move.
TEST(LongRunMdp, PeriodicEndComponentsByHand) {
  const SparseMdp mdp = test::make_mdp({{{{1, 0.5}, {3, 0.5}}},
                                         {{{2, 1.0}}},
                                         {{{1, 1.0}}, {{1, 0.5}, {2, 0.5}}},
                                         {{{3, 1.0}}, {{4, 1.0}}},
                                         {{{3, 1.0}}, {{4, 1.0}}}},
                                        {{"one", {1}}, {"three", {3}}});
  EXPECT_NEAR(number(mdp, "Smax=? [ \"one\" ]"), 0.25, 1e-9);
  EXPECT_NEAR(number(mdp, "Smin=? [ \"one\" ]"), 0.5 / 3, 1e-9);
  EXPECT_NEAR(number(mdp, "Smax=? [ \"three\" ]"), 0.5, 1e-9);
  EXPECT_NEAR(number(mdp, "Smin=? [ \"three\" ]"), 0.0, 1e-9);
}

// A share of time lies in [0, 1], and so do its sound bounds: coin4's Smax of
// "finished" (1) came out as 1.0000000678 +/- 1.2e-7 before they were clamped.
TEST(LongRunMdp, AShareOfTimeAndItsBoundsStayWithinZeroAndOne) {
  if (!test::have_shared()) GTEST_SKIP() << "no " << test::kShared << " here";
  pipeline::CheckOptions options;
  options.model_file = (test::kShared / "benchmarks/prism/mdps/consensus/coin4.nm").string();
  options.constants = {{"K", "2"}};
  options.inline_properties = {"Smax=? [ \"finished\" ]"};
  options.device.solver = SolverKind::cpu;
  const pipeline::CheckReport report = pipeline::run_check(options);
  ASSERT_EQ(report.properties.size(), 1u);
  ASSERT_TRUE(report.properties[0].value.has_value()) << report.properties[0].error;
  const PropertyValue& share = *report.properties[0].value;
  EXPECT_NEAR(share.number, 1.0, 1e-6);
  EXPECT_LE(share.number, 1.0);
  ASSERT_TRUE(share.upper_bound.has_value());
  EXPECT_LE(*share.upper_bound, 1.0);
}

}  // namespace
}  // namespace mdpvi
