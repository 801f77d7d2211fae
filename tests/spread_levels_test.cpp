// A chunk spread over several devices (engine/solve/spread_levels.h): each level with
// cycles cut at SCC boundaries into balanced groups, one per device; the devices'
// answers within the truth's bounds as one device's are. The device case runs two
// solvers on the first GPU (skipped without one): the split, the parallel windows and
// the copies between the solvers' vectors are the same code as on two GPUs.
#include "random_systems.h"

#include "engine/solve/chunk_driver.h"
#include "engine/solve/spread_levels.h"
#include "gpu/device_solver.h"
#include "gpu/partitioned_sweeps.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

namespace mdpvi {
namespace {

LevelSegment level_segment(const MaybeSystem& system, std::size_t h) {
  const std::size_t first = system.level_starts[h], end = system.level_starts[h + 1];
  return {false, first, end,
          {static_cast<std::uint32_t>(system.scc_starts[first]), static_cast<std::uint32_t>(system.scc_starts[end])}};
}

TEST(SpreadLevels, SplitLevelCoversTheLevelInBalancedGroups) {
  const MaybeSystem system = test::layered_system(6, 301, 7);
  for (std::size_t h = 0; h < system.num_levels(); ++h) {
    const LevelSegment level = level_segment(system, h);
    const std::size_t sccs = level.end_scc - level.first_scc;
    const std::uint64_t states = level.level_starts.back() - level.level_starts.front();
    for (std::size_t parts : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7}, sccs + 5}) {
      SCOPED_TRACE("level " + std::to_string(h) + ", " + std::to_string(parts) + " parts");
      const std::vector<LevelSegment> groups = split_level(system, level, 0, parts);
      ASSERT_FALSE(groups.empty());
      EXPECT_LE(groups.size(), std::min(parts, sccs));
      if (parts <= sccs) EXPECT_EQ(groups.size(), parts);  // 3-state SCCs at most: every share gets one
      std::size_t next = level.first_scc;
      for (const LevelSegment& g : groups) {
        EXPECT_EQ(g.first_scc, next);
        EXPECT_LT(g.first_scc, g.end_scc);
        EXPECT_FALSE(g.acyclic);
        ASSERT_EQ(g.level_starts.size(), 2u);
        EXPECT_EQ(g.level_starts.front(), system.scc_starts[g.first_scc]);
        EXPECT_EQ(g.level_starts.back(), system.scc_starts[g.end_scc]);
        // Balanced: a share, and at most one SCC (3 states) past it.
        EXPECT_LE(g.level_starts.back() - g.level_starts.front(), states / parts + 3 + 1);
        next = g.end_scc;
      }
      EXPECT_EQ(next, level.end_scc);
    }
  }
  // Chunk-local numbers: a chunk that starts later shifts them.
  const LevelSegment last = level_segment(system, system.num_levels() - 1);
  const std::uint64_t chunk_first = system.scc_starts[last.first_scc];
  const std::vector<LevelSegment> local = split_level(system, last, chunk_first, 2);
  EXPECT_EQ(local.front().level_starts.front(), 0u);
  EXPECT_EQ(local.back().level_starts.back(), system.scc_starts[last.end_scc] - chunk_first);
}

TEST(SpreadLevels, OnEachRunsEveryOneAndRethrowsAfterAll) {
  std::atomic<int> ran{0};
  on_each(5, [&](std::size_t) { ++ran; });
  EXPECT_EQ(ran, 5);
  ran = 0;
  EXPECT_THROW(on_each(4, [&](std::size_t i) {
                 ++ran;
                 if (i == 2) throw std::runtime_error("device 2");
               }),
               std::runtime_error);
  EXPECT_EQ(ran, 4);
}

SolveRequest request_for(const MaybeSystem& system, Optimization direction, Method method, double epsilon) {
  return {.system = system,
          .direction = direction,
          .options = {method, {ConvergenceCriterion::relative, epsilon, 100000000}},
          .known_upper_bound = std::nullopt};
}

// Two solvers on one device hold the chunk; each level's SCCs go half to each, and
// both bounds contain interval iteration's tight answer, within the precision asked.
TEST(SpreadLevels, TwoSolversAnswerWithinTheTruthsBounds) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  const MaybeSystem system = test::layered_system(12, 2001, 11);
  const std::vector<std::uint8_t> cyclic = cyclic_levels(system);
  for (Method method : {Method::optimistic_value_iteration, Method::interval_iteration}) {
    for (Optimization direction : {Optimization::minimize, Optimization::maximize}) {
      SCOPED_TRACE(std::string(option_name(method)) + (direction == Optimization::minimize ? " min" : " max"));
      const SolveResult truth = solve(request_for(system, direction, Method::interval_iteration, 1e-12), {SolverKind::cpu});
      const SolveRequest request = request_for(system, direction, method, 1e-7);
      std::unique_ptr<MethodPolicy> policy = make_method_policy(request);
      auto first = gpu::open_device(0), second = gpu::open_device(0);
      ASSERT_TRUE(first && second);
      DeviceChunkJob job{*first, first->upload(test::matrix_of(system)), {0, system.num_states()}, 0, system.num_sccs(),
                         [&](const double*, PodVector<double>&) { return system.row_constants.data(); }};
      job.by_levels = true;
      job.cyclic = &cyclic;
      first->finish_upload(job.ticket);  // one upload of the same host arrays at a time
      job.replicas = {{second.get(), second->upload(test::matrix_of(system))}};
      second->finish_upload(job.replicas.front().ticket);
      Iterates x(request, policy->has_upper_iterate());
      SolveStats stats;
      policy->solve_chunk_on_device(job, x, stats);
      ASSERT_TRUE(stats.converged);
      EXPECT_GT(stats.iterated_sccs, 0u);
      for (std::uint32_t i = 0; i < system.num_states(); ++i) {
        const double slack = truth.upper[i] - truth.lower[i];
        // The device sums in another order than the CPU: an exact pass (a trivial
        // SCC, where the truth's bounds meet) may differ in the last places.
        const double rounding = 1e-14 * std::abs(truth.lower[i]);
        ASSERT_LE(x.lower[i], truth.upper[i] + rounding) << i;
        ASSERT_GE(x.upper[i], truth.lower[i] - rounding) << i;
        ASSERT_LE(x.upper[i] - x.lower[i], 2e-7 * std::abs(x.lower[i]) + slack + 1e-15) << i;
      }
    }
  }
}

// Through the chunk driver with --gpus 2 (skipped without two devices): the chunk on
// both, the same bounds' guarantee.
TEST(SpreadLevels, TheDriverPutsTheChunkOnEveryGpuAskedFor) {
  if (gpu::usable_device_count() < 2) GTEST_SKIP() << "fewer than two CUDA devices";
  const MaybeSystem system = test::layered_system(12, 2001, 13);
  const SolveResult truth = solve(request_for(system, Optimization::maximize, Method::interval_iteration, 1e-12), {SolverKind::cpu});
  DeviceOptions two{SolverKind::gpu};
  two.gpus = 2;
  const SolveResult spread = solve(request_for(system, Optimization::maximize, Method::optimistic_value_iteration, 1e-7), two);
  ASSERT_EQ(spread.report.chunks.size(), 1u);
  EXPECT_EQ(spread.report.chunks[0].devices, 2);
  EXPECT_TRUE(spread.report.stats.converged);
  for (std::uint32_t i = 0; i < system.num_states(); ++i) {
    const double rounding = 1e-14 * std::abs(truth.lower[i]);  // as above
    ASSERT_LE(spread.lower[i], truth.upper[i] + rounding) << i;
    ASSERT_GE(spread.upper[i], truth.lower[i] - rounding) << i;
  }
}

}  // namespace
}  // namespace mdpvi
