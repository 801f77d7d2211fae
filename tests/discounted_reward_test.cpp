// Discounted rewards (engine/check/discounted_reward.h) against plain value iteration
// of the discounted Bellman operator, and through the checker: a model worked by hand,
// d = 1 as the undiscounted property, d = 0 as the immediate reward, a bounded sum,
// and factors out of range refused by name.
#include "engine/check/discounted_reward.h"
#include "engine/check/rewards.h"
#include "engine/check/step_bounded.h"
#include "engine/pipeline/check_run.h"
#include "graph/search_backend.h"
#include "random_mdps.h"
#include "system_cases.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

namespace mdpvi {
namespace {

// `sweeps` sweeps from 0 of x(s) = opt_a (r(s, a) + d sum P x), x = 0 on the target
// (none: null): the reference.
std::vector<double> discounted_sweeps(const SparseMdp& mdp, const RewardStructure& rewards, const StateSet* target,
                                      double d, Optimization direction, int sweeps) {
  std::vector<double> x(mdp.num_states(), 0.0), next(mdp.num_states());
  for (int i = 0; i < sweeps; ++i) {
    for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
      if (target && target->test(s)) {
        next[s] = 0.0;
        continue;
      }
      double best = direction == Optimization::minimize ? std::numeric_limits<double>::infinity()
                                                        : -std::numeric_limits<double>::infinity();
      for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
        double value = rewards.row_reward(s, r);
        for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
          value += d * mdp.values[k] * x[mdp.columns[k]];
        }
        best = direction == Optimization::minimize ? std::min(best, value) : std::max(best, value);
      }
      next[s] = best;
    }
    std::swap(x, next);
  }
  return x;
}

// Sweeps until d^sweeps times the largest value is below 1e-13 of it.
std::vector<double> discounted_by_sweeps(const SparseMdp& mdp, const RewardStructure& rewards, const StateSet* target,
                                         double d, Optimization direction) {
  const int sweeps = d == 0.0 ? 1 : static_cast<int>(std::ceil(std::log(1e-13) / std::log(d))) + 1;
  return discounted_sweeps(mdp, rewards, target, d, direction, sweeps);
}

// random_mdp's shapes (one-choice and 40-choice states, rows longer than a warp,
// self-loops, a long chain), odd sizes and one state; both directions, with and
// without a target, factors 0, 0.5 and 0.9: the sound bounds contain the reference,
// within the precision asked for.
TEST(DiscountedReward, IsEquivalentToRef) {
  for (const std::uint32_t n : {1u, 7u, 33u, 1000u}) {
    const SparseMdp mdp = test::random_mdp(n, n + 41);
    const RewardStructure rewards = test::random_rewards(mdp, n + 3);
    const StateSet target = test::random_set(n, 0.1, n + 5);
    const auto search = graph::make_search_backend(mdp, graph::SearchKind::cpu_parallel);
    SolverOptions options;
    options.stop.epsilon = 1e-9;
    options.stop.criterion = ConvergenceCriterion::absolute;
    for (const double d : {0.0, 0.5, 0.9}) {
      for (const Optimization direction : {Optimization::minimize, Optimization::maximize}) {
        for (const StateSet* ends : {static_cast<const StateSet*>(nullptr), &target}) {
          SCOPED_TRACE("n=" + std::to_string(n) + " d=" + std::to_string(d) +
                       (direction == Optimization::minimize ? " min" : " max") + (ends ? " F" : " C"));
          const NumericResult result =
              compute_discounted_reward(mdp, *search, direction, rewards, ends, d, options, {SolverKind::cpu});
          const std::vector<double> reference = discounted_by_sweeps(mdp, rewards, ends, d, direction);
          ASSERT_EQ(result.values.size(), n);
          for (std::uint32_t s = 0; s < n; ++s) {
            const double slack = 1e-8 * std::max(1.0, reference[s]);
            ASSERT_NEAR(result.values[s], reference[s], 2e-9 + slack) << "state " << s;
            if (!result.lower.empty()) {
              ASSERT_LE(result.lower[s], reference[s] + slack) << "state " << s;
              ASSERT_GE(result.upper[s], reference[s] - slack) << "state " << s;
            }
          }
        }
      }
    }
  }
}

// The bounded sum: k sweeps of the same operator from 0.
TEST(DiscountedReward, BoundedSumIsEquivalentToRef) {
  const SparseMdp mdp = test::random_mdp(33, 7);
  const RewardStructure rewards = test::random_rewards(mdp, 8);
  for (const Optimization direction : {Optimization::minimize, Optimization::maximize}) {
    const NumericResult result = compute_cumulative_reward(mdp, direction, rewards, 4, {}, {SolverKind::cpu}, 0.5);
    const std::vector<double> x = discounted_sweeps(mdp, rewards, nullptr, 0.5, direction, 4);
    for (std::uint32_t s = 0; s < 33; ++s) EXPECT_NEAR(result.values[s], x[s], 1e-12 * std::max(1.0, x[s])) << s;
  }
}

// A model worked by hand (models/resend: each try costs 5 on the reliable channel,
// 1 on the cheap one): through the command's pipeline, d = 0 is the first step's
// reward, d = 1 the undiscounted value, a bounded sum its terms; NaN and 2 are
// refused by name, and the property with them.
TEST(DiscountedReward, ThroughTheCheckerByHand) {
  pipeline::CheckOptions options;
  options.model_file = std::string(MDPVI_SOURCE_DIR) + "/models/resend/resend.nm";
  options.device.solver = SolverKind::cpu;
  options.solver.stop.epsilon = 1e-10;
  // Rmin: always the cheap channel, 1 a try: the first try is certain, the second
  // comes with probability 0.3, the third 0.09, each discounted by d^i.
  const double d = 0.5;
  const double by_hand = 1.0 + d * 0.3 + d * d * 0.09;
  options.inline_properties = {"R{\"cost\"}min=? [ C{discount=0.5} ]", "R{\"cost\"}min=? [ F{discount=0.5} \"delivered\" ]",
                               "R{\"cost\"}min=? [ C{discount=0.5}<=2 ]", "R{\"cost\"}max=? [ C{discount=0} ]",
                               "R{\"cost\"}max=? [ C{discount=1} ]", "R{\"cost\"}max=? [ C ]",
                               "R{\"cost\"}min=? [ C{discount=0/0} ]", "R{\"cost\"}min=? [ F{discount=2} \"delivered\" ]"};
  const pipeline::CheckReport report = pipeline::run_check(options);
  ASSERT_EQ(report.properties.size(), 8u);
  for (std::size_t i = 0; i < 6; ++i) ASSERT_TRUE(report.properties[i].value) << report.properties[i].error;
  EXPECT_NEAR(report.properties[0].value->number, by_hand, 1e-9);
  EXPECT_NEAR(report.properties[1].value->number, by_hand, 1e-9) << "the target collects nothing: the same";
  EXPECT_NEAR(report.properties[2].value->number, 1.0 + d * 0.3, 1e-12);
  EXPECT_NEAR(report.properties[3].value->number, 5.0, 1e-12);
  EXPECT_EQ(report.properties[4].value->number, report.properties[5].value->number);
  for (std::size_t i = 6; i < 8; ++i) {
    EXPECT_FALSE(report.properties[i].value);
    EXPECT_NE(report.properties[i].error.find("a discount factor must lie in the range [0, 1]"), std::string::npos)
        << report.properties[i].error;
  }
}

// A CTMC's discounted reward is refused by name (its paths would answer without the
// discount).
TEST(DiscountedReward, RefusedOnACtmc) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("mdpvi_discount_" + std::to_string(::getpid()) + ".sm");
  {
    std::ofstream out(file);
    out << "ctmc\nmodule m\n  s : [0..1] init 0;\n  [] s=0 -> 2 : (s'=1);\nendmodule\n"
           "rewards \"r\"\n  s=0 : 1;\nendrewards\n";
  }
  pipeline::CheckOptions options;
  options.model_file = file.string();
  options.device.solver = SolverKind::cpu;
  options.inline_properties = {"R{\"r\"}=? [ C{discount=0.5} ]", "R{\"r\"}=? [ C ]"};
  const pipeline::CheckReport report = pipeline::run_check(options);
  std::filesystem::remove(file);
  ASSERT_EQ(report.properties.size(), 2u);
  EXPECT_FALSE(report.properties[0].value);
  EXPECT_NE(report.properties[0].error.find("discounted rewards of a CTMC are not supported"), std::string::npos)
      << report.properties[0].error;
  ASSERT_TRUE(report.properties[1].value) << report.properties[1].error;
  EXPECT_DOUBLE_EQ(report.properties[1].value->number, 0.5);
}

}  // namespace
}  // namespace mdpvi
