// A bottom SCC's chain transposed on all cores (engine/solve/bottom_chain.h): its power
// sweeps and its embedded chain's system against the serial references, bit for bit,
// on the shapes that break parallel passes.
#include "engine/solve/bottom_chain.h"
#include "engine/solve/chunk_driver.h"
#include "bottom_chains.h"
#include "gpu/device_solver.h"
#include "test_models.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

namespace mdpvi {
namespace {

using test::Shape;
using test::shapes;

TEST(BottomChain, EmbeddedSystemIsEquivalentToRef) {
  for (const Shape& shape : shapes()) {
    const BottomChain chain = transpose_bottom(shape.mdp, shape.states, shape.local);
    ASSERT_EQ(chain.size(), shape.states.size());
    ASSERT_EQ(chain.from.size(), shape.mdp.num_transitions());
    const std::size_t n = shape.states.size();
    if (n < 2) continue;
    // The first, the last and a middle state as the reference.
    for (std::size_t reference : {std::size_t{0}, n - 1, n / 2}) {
      const MaybeSystem fast = embedded_system(chain, shape.states, reference);
      const MaybeSystem plain = embedded_system_reference(shape.mdp, shape.states, shape.local, reference);
      const std::string size = std::to_string(n) + " states, reference " + std::to_string(reference);
      EXPECT_EQ(fast.row_group_starts, plain.row_group_starts) << size;
      EXPECT_EQ(fast.row_starts, plain.row_starts) << size;
      EXPECT_EQ(fast.columns, plain.columns) << size;
      EXPECT_TRUE(fast.values == plain.values) << size;
      EXPECT_EQ(fast.row_constants, plain.row_constants) << size;
      EXPECT_EQ(fast.model_states, plain.model_states) << size;
      EXPECT_EQ(fast.scc_starts, plain.scc_starts) << size;
      EXPECT_EQ(fast.level_starts, plain.level_starts) << size;
      ASSERT_EQ(fast.model_states.size(), n - 1);
      EXPECT_EQ(std::count(fast.model_states.begin(), fast.model_states.end(), shape.states[reference]), 0) << size;
    }
  }
}

// The system's solution is the same distribution whichever state is the reference:
// pi_i = z_i / (1 - P(i, i)), normalised, from y = Q^T y + e solved by sweeps.
TEST(BottomChain, AnyReferenceGivesTheSameDistribution) {
  const SparseMdp three = test::make_mdp(
      {{{{0, 0.5}, {1, 0.25}, {2, 0.25}}}, {{{0, 0.5}, {2, 0.5}}}, {{{0, 0.75}, {1, 0.125}, {2, 0.125}}}}, {});
  const std::vector<std::uint32_t> states{2, 0, 1}, local{1, 2, 0};
  const BottomChain chain = transpose_bottom(three, states, local);
  std::vector<std::vector<double>> distributions;
  for (std::size_t reference : {0u, 1u, 2u}) {
    const MaybeSystem system = embedded_system(chain, states, reference);
    std::vector<double> y(2, 0.0);
    for (int sweep = 0; sweep < 2000; ++sweep) {
      for (std::size_t row = 0; row < 2; ++row) {
        double value = system.row_constants[row];
        for (std::uint64_t k = system.row_starts[row]; k < system.row_starts[row + 1]; ++k) {
          value += system.values[k] * y[system.columns[k]];
        }
        y[row] = value;
      }
    }
    std::vector<double> z(3);
    for (std::size_t i = 0, u = 0; i < 3; ++i) z[i] = i == reference ? 1.0 : y[u++];
    distributions.push_back(from_embedded(z, chain.leaving));
  }
  // pi P = pi by hand: pi_1 = pi_0 / 4 + pi_2 / 8 and 13/16 pi_2 = 3/8 pi_0 give the
  // model's states 0, 1, 2 (13, 4, 6) / 23; locally (states 2, 0, 1) (6, 13, 4) / 23.
  const std::vector<double> expected{6.0 / 23, 13.0 / 23, 4.0 / 23};
  for (const std::vector<double>& pi : distributions) {
    for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(pi[i], expected[i], 1e-12) << "local state " << i;
  }
}

TEST(BottomChain, LazyPowerSweepsIsEquivalentToRef) {
  for (const Shape& shape : shapes()) {
    const BottomChain chain = transpose_bottom(shape.mdp, shape.states, shape.local);
    for (double tolerance : {0.0, 1e-6}) {
      SolveStats fast_stats, plain_stats;
      const std::vector<double> fast = lazy_power_sweeps(chain, 200, tolerance, fast_stats);
      const std::vector<double> plain =
          lazy_power_sweeps_reference(shape.mdp, shape.states, shape.local, 200, tolerance, plain_stats);
      EXPECT_EQ(fast, plain) << shape.states.size() << " states";
      EXPECT_EQ(fast_stats.iterations, plain_stats.iterations);
      EXPECT_EQ(fast_stats.converged, plain_stats.converged);
    }
  }
}

// The device's sweeps (skipped without one) against the cores', bit for bit: the same
// distribution, sweeps and stop, on odd sizes, one and two blocks of states, rows longer
// than a warp, self-loops and a long ring; to convergence and cut off.
TEST(BottomChain, LazyPowerSweepsOnTheDeviceIsEquivalentToRef) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  const DeviceOptions gpu_only{SolverKind::gpu};
  for (const Shape& shape : shapes()) {
    const BottomChain chain = transpose_bottom(shape.mdp, shape.states, shape.local);
    for (const auto& [tolerance, sweeps] : {std::pair{0.0, 200u}, std::pair{1e-6, 5000u}, std::pair{1e-6, 0u}}) {
      SCOPED_TRACE(testing::Message() << shape.states.size() << " states, tolerance " << tolerance << ", " << sweeps);
      SolveStats device_stats, cpu_stats;
      SolveReport report;
      const std::vector<double> device = lazy_power_sweeps_on(chain, sweeps, tolerance, gpu_only, device_stats, &report);
      const std::vector<double> cpu = lazy_power_sweeps(chain, sweeps, tolerance, cpu_stats);
      EXPECT_EQ(device, cpu);
      EXPECT_EQ(device_stats.iterations, cpu_stats.iterations);
      EXPECT_EQ(device_stats.converged, cpu_stats.converged);
      if (shape.states.size() < 2) continue;
      ASSERT_EQ(report.chunks.size(), 1u);
      EXPECT_TRUE(report.chunks[0].on_gpu);
      EXPECT_GE(report.peak_device_bytes, 12 * chain.from.size());
    }
  }
}

// Two rings of ten states joined by rare links (1% out of the first ring, 3% out of
// the second): the sweeps soon move little mass while the rings' shares are still far
// from 3:1, so a stop on the last sweep's mass alone stops far from the distribution
// (about 5e-4 away at tolerance 1e-6); the stop on what is left to move does not.
TEST(BottomChain, LazyPowerSweepsOfASlowlyMixingChainStopNearTheDistribution) {
  std::vector<test::StateChoices> states(20);
  for (std::uint32_t s = 0; s < 20; ++s) {
    const std::uint32_t next = s % 10 == 9 ? s - 9 : s + 1;
    if (s == 0 || s == 10) {
      const double out = s == 0 ? 0.01 : 0.03;
      states[s] = {{{next, 1.0 - out}, {s == 0 ? 10u : 0u, out}}};
    } else {
      states[s] = {{{next, 1.0}}};
    }
  }
  const SparseMdp rings = test::make_mdp(states, {});
  std::vector<std::uint32_t> order(20), local(20);
  std::iota(order.begin(), order.end(), 0u);
  std::iota(local.begin(), local.end(), 0u);
  const BottomChain chain = transpose_bottom(rings, order, local);
  SolveStats exact_stats, stats;
  const std::vector<double> exact = lazy_power_sweeps(chain, 100000, 0.0, exact_stats);
  const std::vector<double> pi = lazy_power_sweeps(chain, 100000, 1e-6, stats);
  EXPECT_TRUE(stats.converged);
  double first_ring = 0.0, distance = 0.0;
  for (std::uint32_t s = 0; s < 20; ++s) {
    if (s < 10) first_ring += exact[s];
    distance += std::abs(pi[s] - exact[s]);
  }
  // By hand: ring states after the link state hold (1 - out) of its share, and the
  // link states' flows balance (0.01 pi_0 = 0.03 pi_10): 9.91 pi_0 against 9.73 pi_0 / 3.
  EXPECT_NEAR(first_ring, 9.91 / (9.91 + 9.73 / 3), 1e-9);
  EXPECT_LE(distance, 1e-5);
}

// The sweeps reach the stationary distribution: (1/3, 2/3) for this two-state chain,
// and say where they stop short of it.
TEST(BottomChain, LazyPowerSweepsFindTheStationaryDistribution) {
  const SparseMdp two = test::make_mdp({{{{0, 0.5}, {1, 0.5}}}, {{{0, 0.25}, {1, 0.75}}}}, {});
  const std::vector<std::uint32_t> states{1, 0}, local{1, 0};
  const BottomChain chain = transpose_bottom(two, states, local);
  EXPECT_EQ(chain.leaving, (std::vector<double>{0.25, 0.5}));
  SolveStats stats;
  const std::vector<double> pi = lazy_power_sweeps(chain, 1000, 1e-15, stats);
  EXPECT_NEAR(pi[0], 2.0 / 3, 1e-14);
  EXPECT_NEAR(pi[1], 1.0 / 3, 1e-14);
  EXPECT_TRUE(stats.converged);
  SolveStats short_stats;
  lazy_power_sweeps(chain, 1, -1.0, short_stats);  // a tolerance no sweep meets
  EXPECT_FALSE(short_stats.converged);
  EXPECT_EQ(short_stats.iterations, 1u);
}

// A uniformised M/M/1 queue (capacity 20, arrivals 3, service 4, rate 7): the two end
// states keep self-loops, the sweeps run on the embedded chain without them, and the
// distribution they return is the queue's, pi_n proportional to (3/4)^n.
TEST(BottomChain, LazyPowerSweepsOfAUniformisedQueue) {
  constexpr std::uint32_t K = 20;
  std::vector<test::StateChoices> queue(K + 1);
  for (std::uint32_t n = 0; n <= K; ++n) {
    test::Choice row;
    if (n > 0) row.emplace_back(n - 1, 4.0 / 7);
    if (n == 0 || n == K) row.emplace_back(n, n == 0 ? 4.0 / 7 : 3.0 / 7);
    if (n < K) row.emplace_back(n + 1, 3.0 / 7);
    queue[n] = {row};
  }
  const SparseMdp mdp = test::make_mdp(queue, {});
  std::vector<std::uint32_t> states(K + 1), local(K + 1);
  std::iota(states.begin(), states.end(), 0u);
  std::iota(local.begin(), local.end(), 0u);
  SolveStats stats;
  const std::vector<double> pi = lazy_power_sweeps(transpose_bottom(mdp, states, local), 100000, 1e-15, stats);
  ASSERT_TRUE(stats.converged);
  const double rho = 0.75, norm = (1 - std::pow(rho, K + 1)) / (1 - rho);
  for (std::uint32_t n = 0; n <= K; ++n) EXPECT_NEAR(pi[n], std::pow(rho, n) / norm, 1e-12) << n;
}

}  // namespace
}  // namespace mdpvi
