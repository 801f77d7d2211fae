// The parallel sweep against the serial reference, on generated systems with the
// shapes that break kernels: odd sizes, empty rows, one-row groups, many rows,
// rows longer than a warp and than a block, self-loops.
#include "engine/bellman.h"
#include "random_systems.h"

#include <gtest/gtest.h>


namespace mdpvi {
namespace {

class SweepEquivalence : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(SweepEquivalence, ParallelIsEquivalentToReference) {
  const std::uint32_t n = GetParam();
  MaybeSystem system = test::random_system(n, n);
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> x(n);
  for (double& v : x) v = unit(rng);
  for (auto direction : {Optimization::minimize, Optimization::maximize}) {
    for (auto criterion : {ConvergenceCriterion::relative, ConvergenceCriterion::absolute}) {
      for (StateRange range : {StateRange{0, n}, StateRange{n / 3, n - n / 5}}) {
        std::vector<double> expected(n, -1.0), actual(n, -1.0);
        double expected_change = bellman_sweep_reference(system, range, direction, criterion, x.data(), expected.data());
        double actual_change = bellman_sweep_parallel(system, range, direction, criterion, x.data(), actual.data());
        // The same arithmetic per state in the same order: equal to the bit.
        EXPECT_EQ(expected, actual);
        EXPECT_EQ(expected_change, actual_change);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(OddSizes, SweepEquivalence, ::testing::Values(1u, 31u, 33u, 1025u, 4099u, 20011u));

TEST(BellmanValue, EmptyRowGivesItsConstantAndMinPicksIt) {
  MaybeSystem system;
  system.row_group_starts = {0, 2};
  system.row_starts = {0, 0, 1};
  system.columns = {0};
  system.values = {0.5};
  system.row_constants = {0.25, 0.5};
  system.model_states = {0};
  double x = 1.0;
  EXPECT_EQ(bellman_value<Optimization::minimize>(system, 0, &x), 0.25);
  EXPECT_EQ(bellman_value<Optimization::maximize>(system, 0, &x), 1.0);
}

}  // namespace
}  // namespace mdpvi
