// The parallel sweep against the serial reference, on generated systems with the
// shapes that break kernels: odd sizes, empty rows, one-row groups, many rows,
// rows longer than a warp and than a block, self-loops.
#include "engine/bellman.h"

#include <gtest/gtest.h>

#include <random>

namespace mdpvi {
namespace {

MaybeSystem random_system(std::uint32_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  MaybeSystem system;
  system.row_group_starts.push_back(0);
  system.row_starts.push_back(0);
  std::uniform_int_distribution<std::uint32_t> column(0, n - 1);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (std::uint32_t s = 0; s < n; ++s) {
    std::uint32_t rows = s % 7 == 0 ? 1 : 1 + rng() % 5;
    if (s % 97 == 5) rows = 40;  // a state with many choices
    for (std::uint32_t r = 0; r < rows; ++r) {
      std::uint32_t length = rng() % 4;                 // 0 = empty row: b(r) only
      if (s % 101 == 3 && r == 0) length = 33;          // longer than a warp
      if (s % 1009 == 7 && r == 0) length = 1500;       // longer than a block
      double mass = unit(rng);
      double to_yes = (1.0 - mass) * unit(rng);
      if (s % 13 == 0) {  // self-loop
        system.columns.push_back(s);
        system.values.push_back(mass / (length + 1));
      }
      for (std::uint32_t k = 0; k < length; ++k) {
        system.columns.push_back(column(rng));
        system.values.push_back(mass / (length + 1));
      }
      system.row_constants.push_back(to_yes);
      system.row_starts.push_back(system.columns.size());
    }
    system.row_group_starts.push_back(system.row_constants.size());
    system.model_states.push_back(s);
  }
  system.scc_starts = {0, n};
  return system;
}

class SweepEquivalence : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(SweepEquivalence, ParallelIsEquivalentToReference) {
  const std::uint32_t n = GetParam();
  MaybeSystem system = random_system(n, n);
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
