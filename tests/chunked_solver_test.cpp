// Chunk planning, and chunked solving against the plain topological solver, on the
// CPU (always) and on the GPU (skipped without a device).
#include "engine/chunked_solver.h"
#include "gpu/chunk_solver.h"
#include "random_systems.h"
#include "reference_instances.h"
#include "tools/check_run.h"

#include <gtest/gtest.h>

namespace mdpvi {
namespace {

bool have_device() { return gpu::free_device_memory().has_value(); }

// Many tiny blocks around one big one: the shape of real maybe-state systems.
MaybeSystem mixed_system() {
  std::vector<std::uint32_t> blocks;
  for (int i = 0; i < 300; ++i) blocks.push_back(1 + i % 3);
  blocks.push_back(5003);
  for (int i = 0; i < 200; ++i) blocks.push_back(1 + i % 5);
  std::uint32_t n = 0;
  for (auto b : blocks) n += b;
  return test::random_system(n, 11, blocks);
}

TEST(PlanChunks, CoversTheSccsInOrderWithinTheBudget) {
  MaybeSystem system = mixed_system();
  for (std::size_t budget : {std::size_t{1}, std::size_t{20000}, std::size_t{400000}, std::size_t{1} << 40}) {
    std::vector<Chunk> chunks = plan_chunks(system, budget);
    std::size_t next_scc = 0;
    for (const Chunk& c : chunks) {
      EXPECT_EQ(c.first_scc, next_scc);
      EXPECT_LT(c.first_scc, c.end_scc);
      EXPECT_EQ(c.first_state, system.scc_starts[c.first_scc]);
      EXPECT_EQ(c.end_state, system.scc_starts[c.end_scc]);
      if (c.fits) {
        EXPECT_LE(c.footprint_bytes, budget);
      }
      if (!c.fits) {
        EXPECT_EQ(c.end_scc - c.first_scc, 1u) << "only a single SCC may exceed the budget";
      }
      next_scc = c.end_scc;
    }
    EXPECT_EQ(next_scc, system.num_sccs());
    if (budget == (std::size_t{1} << 40)) {
      EXPECT_EQ(chunks.size(), 1u);
    }
  }
}

SolverOptions tight() { return {1e-13, ConvergenceCriterion::absolute, 1000000}; }

void expect_near_all(const std::vector<double>& a, const std::vector<double>& b, double tolerance) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], tolerance) << "state " << i;
}

TEST(SolveChunked, OnTheCpuEqualsTheTopologicalSolverWithAnyBudget) {
  MaybeSystem system = mixed_system();
  for (auto direction : {Optimization::minimize, Optimization::maximize}) {
    MaybeSolution plain = solve_topological(system, direction, tight());
    for (std::size_t budget : {std::size_t{1}, std::size_t{30000}, std::size_t{1} << 40}) {
      DeviceOptions cpu{SolverKind::cpu, budget, 0};
      ChunkedSolution chunked = solve_chunked(system, direction, tight(), cpu);
      EXPECT_EQ(chunked.values, plain.values);  // the same SCC-by-SCC arithmetic
      EXPECT_TRUE(chunked.device.empty());
    }
  }
}

TEST(SolveChunked, GpuRequiredWithoutDeviceIsAnError) {
  if (have_device()) GTEST_SKIP() << "there is a device here";
  MaybeSystem system = mixed_system();
  EXPECT_THROW(solve_chunked(system, Optimization::minimize, tight(), {SolverKind::gpu, std::nullopt, 0}),
               std::runtime_error);
}

// --- on the device -------------------------------------------------------------------

class DeviceSweep : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    if (!have_device()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_P(DeviceSweep, SweepOnDeviceIsEquivalentToReference) {
  const int group_size = GetParam();
  for (std::uint32_t n : {1u, 31u, 33u, 1025u, 20011u}) {
    MaybeSystem system = test::random_system(n, n);
    gpu::ChunkMatrix matrix{n, system.num_rows(), system.columns.size(), system.row_group_starts.data(),
                            system.row_starts.data(), system.columns.data(), system.values.data(),
                            system.row_constants.data()};
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> x(n);
    for (double& v : x) v = unit(rng);
    for (bool maximize : {false, true}) {
      for (bool relative : {false, true}) {
        std::vector<double> expected(n), actual(n);
        double expected_change = bellman_sweep_reference(
            system, {0, n}, maximize ? Optimization::maximize : Optimization::minimize,
            relative ? ConvergenceCriterion::relative : ConvergenceCriterion::absolute, x.data(), expected.data());
        gpu::SweepSettings settings{maximize, relative, 1e-6, 1, group_size};
        double actual_change = gpu::sweep_once_on_device(matrix, settings, x.data(), actual.data());
        // Sums are reduced in another order on the device: equal up to rounding.
        expect_near_all(actual, expected, 1e-12);
        EXPECT_NEAR(actual_change, expected_change, 1e-12 * std::max(1.0, expected_change)) << "n = " << n;
      }
    }
  }
}

// The fused interval sweep against the CPU reference; the upper vector's b differs
// from the lower one's, as in a chunk with entries into earlier chunks.
TEST_P(DeviceSweep, IntervalSweepOnDeviceIsEquivalentToReference) {
  const int group_size = GetParam();
  for (std::uint32_t n : {1u, 31u, 33u, 1025u, 20011u}) {
    MaybeSystem system = test::random_system(n, n + 1);
    MaybeSystem upper_system = system;
    for (double& b : upper_system.row_constants) b += 0.01;
    gpu::ChunkMatrix matrix{n, system.num_rows(), system.columns.size(), system.row_group_starts.data(),
                            system.row_starts.data(), system.columns.data(), system.values.data(), nullptr};
    std::mt19937 rng(4);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> lower(n), upper(n), targets(n);
    for (std::uint32_t s = 0; s < n; ++s) {
      lower[s] = 0.5 * unit(rng);
      upper[s] = lower[s] + unit(rng);
      targets[s] = 0.5 * unit(rng);
    }
    gpu::IntervalInputs inputs{system.row_constants.data(), upper_system.row_constants.data(), targets.data()};
    for (bool maximize : {false, true}) {
      for (bool relative : {false, true}) {
        auto direction = maximize ? Optimization::maximize : Optimization::minimize;
        auto criterion = relative ? ConvergenceCriterion::relative : ConvergenceCriterion::absolute;
        // The reference: each iterate with its own b, clamped as interval_sweep does.
        std::vector<double> lo(n), up(n), lo_out(n), up_out(n);
        bellman_sweep_reference(system, {0, n}, direction, criterion, lower.data(), lo.data());
        bellman_sweep_reference(upper_system, {0, n}, direction, criterion, upper.data(), up.data());
        bool raised = false, above = false;
        for (std::uint32_t s = 0; s < n; ++s) {
          raised = raised || up[s] > upper[s] * (1 + kRaiseTolerance);
          lo[s] = std::max(lo[s], lower[s]);
          up[s] = std::min(up[s], upper[s]);
        }
        gpu::SweepSettings settings{maximize, relative, 1e-6, 1, group_size};
        gpu::IntervalSweepResult r = gpu::interval_sweep_once_on_device(matrix, inputs, settings, lower.data(),
                                                                        upper.data(), lo_out.data(), up_out.data());
        expect_near_all(lo_out, lo, 1e-12);
        expect_near_all(up_out, up, 1e-12);
        double widest = 0.0;
        for (std::uint32_t s = 0; s < n; ++s) {
          double w = up[s] - lo[s];
          if (relative && lo[s] > 0) w /= lo[s];
          widest = std::max(widest, w);
          above = above || w > targets[s] + 1e-9;
        }
        EXPECT_NEAR(r.width, widest, 1e-9 * std::max(1.0, widest)) << "n = " << n;
        EXPECT_EQ(r.upper_raised, raised) << "n = " << n;
        if (above) {
          EXPECT_TRUE(r.above_target) << "n = " << n;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(GroupSizes, DeviceSweep, ::testing::Values(1, 2, 4, 8, 16, 32));

TEST(DeviceSolve, ChunkedAndUnchunkedAgreeWithTheCpu) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  MaybeSystem system = mixed_system();
  for (auto direction : {Optimization::minimize, Optimization::maximize}) {
    MaybeSolution cpu = solve_topological(system, direction, tight());
    ChunkedSolution whole = solve_chunked(system, direction, tight(), {SolverKind::gpu, std::nullopt, 0});
    ASSERT_EQ(whole.chunks.size(), 1u);
    EXPECT_TRUE(whole.chunks[0].on_gpu);
    expect_near_all(whole.values, cpu.values, 1e-10);
    // A budget that forces many chunks, with the big block too large for any of them.
    std::size_t whole_bytes = plan_chunks(system, std::size_t{1} << 40).front().footprint_bytes;
    ChunkedSolution chunked = solve_chunked(system, direction, tight(), {SolverKind::gpu, whole_bytes / 40, 0});
    EXPECT_GE(chunked.chunks.size(), 8u);
    bool some_on_cpu = false;
    for (const ChunkReport& c : chunked.chunks) some_on_cpu |= !c.on_gpu;
    EXPECT_TRUE(some_on_cpu) << "the big SCC exceeds the budget and must go to the CPU";
    expect_near_all(chunked.values, cpu.values, 1e-10);
  }
}

TEST(DeviceSolve, AcyclicChunksStayOnTheCpu) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  // Blocks of one state, self-loops removed: every column points to an earlier state.
  MaybeSystem generated = test::random_system(50, 5, std::vector<std::uint32_t>(50, 1));
  MaybeSystem system = generated;
  system.columns.clear();
  system.values.clear();
  system.row_starts = {0};
  for (std::uint32_t s = 0; s < generated.num_states(); ++s) {
    for (auto r = generated.row_group_starts[s]; r < generated.row_group_starts[s + 1]; ++r) {
      for (auto k = generated.row_starts[r]; k < generated.row_starts[r + 1]; ++k) {
        if (generated.columns[k] == s) continue;
        system.columns.push_back(generated.columns[k]);
        system.values.push_back(generated.values[k]);
      }
      system.row_starts.push_back(system.columns.size());
    }
  }
  for (std::size_t scc = 0; scc < system.num_sccs(); ++scc) ASSERT_TRUE(is_trivial_scc(system, scc));
  ChunkedSolution solution = solve_chunked(system, Optimization::maximize, tight(), {SolverKind::gpu, std::nullopt, 0});
  ASSERT_EQ(solution.chunks.size(), 1u);
  EXPECT_FALSE(solution.chunks[0].on_gpu);
  expect_near_all(solution.values, solve_topological(system, Optimization::maximize, tight()).values, 0.0);
}

// The benchmark instances on the GPU, unchunked and in at least 8 chunks, against
// PRISM's sound reference values.
TEST(DeviceSolve, BenchmarkInstancesMatchReference) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  if (!test::have_shared()) GTEST_SKIP();
  for (const char* name : {"coin4_2", "csma2_6", "leader5", "wlan2", "wlan2_collide"}) {
    const nlohmann::json& expected = test::reference().at(name);
    for (std::optional<std::size_t> limit : {std::optional<std::size_t>{}, std::optional<std::size_t>{30000}}) {
      tools::CheckOptions options = test::reference_check(expected);
      options.device = {SolverKind::gpu, limit, 0};
      tools::CheckReport report = tools::run_check(options);
      test::expect_matches_reference(report, expected);
      for (const auto& outcome : report.properties) {
        // Graph-only answers (P>=1, filters of state formulas) solve nothing; a
        // step-bounded one is a single block, which stays whole.
        if (!outcome.detail || outcome.detail->maybe_states == 0 || outcome.detail->solve.iterations == 0) continue;
        EXPECT_FALSE(outcome.detail->device.empty());
        if (limit && outcome.detail->maybe_states > 5000 && !outcome.detail->step_bounded) {
          EXPECT_GE(outcome.detail->chunks.size(), 8u) << name;
        }
      }
    }
  }
}

}  // namespace
}  // namespace mdpvi
