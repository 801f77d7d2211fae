// The parallel sweep against the serial reference, on generated systems with the
// shapes that break kernels: odd sizes, empty rows, one-row groups, many rows,
// rows longer than a warp and than a block, self-loops.
#include "engine/solve/bellman.h"
#include "random_systems.h"

#include <gtest/gtest.h>


namespace mdpvi {
namespace {

// Interval iteration's two iterates at random, lower below upper at every state.
std::pair<std::vector<double>, std::vector<double>> random_bounds(std::uint32_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> lower(n), upper(n);
  for (std::uint32_t s = 0; s < n; ++s) {
    lower[s] = 0.5 * unit(rng);
    upper[s] = lower[s] + unit(rng);
  }
  return {lower, upper};
}

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

// The interval sweep (both iterates, kept monotone) likewise, and each iterate equals
// the plain sweep's where the monotone clamp does not bite.
TEST_P(SweepEquivalence, IntervalParallelIsEquivalentToReference) {
  const std::uint32_t n = GetParam();
  MaybeSystem system = test::random_system(n, n + 7);
  const auto [lower, upper] = random_bounds(n, 2);
  for (auto direction : {Optimization::minimize, Optimization::maximize}) {
    for (auto criterion : {ConvergenceCriterion::relative, ConvergenceCriterion::absolute}) {
      for (StateRange range : {StateRange{0, n}, StateRange{n / 3, n - n / 5}}) {
        std::vector<double> lo_ref(n, -1.0), up_ref(n, -1.0), lo_par(n, -1.0), up_par(n, -1.0), plain(n, -1.0);
        IntervalSweep ref = interval_sweep_reference(system, range, direction, criterion,
                                                {lower.data(), upper.data(), lo_ref.data(), up_ref.data()});
        IntervalSweep par = interval_sweep_parallel(system, range, direction, criterion,
                                               {lower.data(), upper.data(), lo_par.data(), up_par.data()});
        EXPECT_EQ(lo_ref, lo_par);
        EXPECT_EQ(up_ref, up_par);
        EXPECT_EQ(ref.width, par.width);
        EXPECT_EQ(ref.upper_raised, par.upper_raised);
        EXPECT_EQ(ref.crossed, par.crossed);
        bool raised = false;
        bellman_sweep_reference(system, range, direction, criterion, lower.data(), plain.data());
        for (std::uint64_t s = range.begin; s < range.end; ++s) {
          EXPECT_EQ(lo_ref[s], std::max(lower[s], plain[s]));
          EXPECT_LE(up_ref[s], upper[s]);
        }
        bellman_sweep_reference(system, range, direction, criterion, upper.data(), plain.data());
        for (std::uint64_t s = range.begin; s < range.end; ++s) raised = raised || plain[s] > upper[s] * (1 + kRaiseTolerance);
        EXPECT_EQ(ref.upper_raised, raised);
      }
    }
  }
}

// A system whose values are indices into a table (SystemValues::as_model) sweeps to
// the same bits as its plain form, in parallel and in the reference, both iterates.
TEST_P(SweepEquivalence, IndexedValuesSweepAsPlainOnes) {
  const std::uint32_t n = GetParam();
  const MaybeSystem plain = test::random_system(n, n + 3);
  MaybeSystem indexed = plain;
  ASSERT_TRUE(indexed.values.compress());
  ASSERT_NE(indexed.values.index_bytes(), 0u);
  const auto [lower, upper] = random_bounds(n, 3);
  for (auto direction : {Optimization::minimize, Optimization::maximize}) {
    const auto criterion = ConvergenceCriterion::relative;
    const StateRange range{0, n};
    std::vector<double> expected(n), actual(n), reference(n);
    EXPECT_EQ(bellman_sweep_reference(plain, range, direction, criterion, lower.data(), expected.data()),
              bellman_sweep_parallel(indexed, range, direction, criterion, lower.data(), actual.data()));
    bellman_sweep_reference(indexed, range, direction, criterion, lower.data(), reference.data());
    EXPECT_EQ(expected, actual);
    EXPECT_EQ(expected, reference);
    std::vector<double> lo_plain(n), up_plain(n), lo_indexed(n), up_indexed(n);
    const IntervalSweep a = interval_sweep_reference(plain, range, direction, criterion,
                                                     {lower.data(), upper.data(), lo_plain.data(), up_plain.data()});
    const IntervalSweep b = interval_sweep_parallel(indexed, range, direction, criterion,
                                                    {lower.data(), upper.data(), lo_indexed.data(), up_indexed.data()});
    EXPECT_EQ(lo_plain, lo_indexed);
    EXPECT_EQ(up_plain, up_indexed);
    EXPECT_EQ(a.width, b.width);
  }
}

INSTANTIATE_TEST_SUITE_P(OddSizes, SweepEquivalence, ::testing::Values(1u, 31u, 33u, 1025u, 4099u, 20011u));

TEST(BellmanValue, EmptyRowGivesItsConstantAndMinPicksIt) {
  MaybeSystem system;
  system.row_group_starts = {0, 2};
  system.row_starts = {0, 0, 1};
  system.columns = {0};
  system.values = CompactValues{0.5};
  system.row_constants = {0.25, 0.5};
  system.model_states = {0};
  double x = 1.0;
  EXPECT_EQ(bellman_value<Optimization::minimize>(system, 0, &x), 0.25);
  EXPECT_EQ(bellman_value<Optimization::maximize>(system, 0, &x), 1.0);
}

}  // namespace
}  // namespace mdpvi
