// Each CUDA kernel against its named CPU reference (engine/solve/bellman.h), every
// output compared, on systems of the shapes that break kernels (tests/random_systems.h:
// odd sizes, empty and one-choice groups, 40-choice states, rows longer than a warp
// and than a block, self-loops), for every group size. Skipped without a device.
#include "engine/solve/bellman.h"
#include "engine/numeric/width_target.h"
#include "engine/solve/krylov_system.h"
#include "gpu/device_solver.h"
#include "random_systems.h"

#include <gtest/gtest.h>

#include <random>

namespace mdpvi {
namespace {

const std::uint32_t kSizes[] = {0u, 1u, 31u, 33u, 1025u, 20011u};

using test::matrix_of;

// A single state's chain of 3000 states, each to the next: the long-chain shape.
MaybeSystem long_chain(std::uint32_t n) {
  MaybeSystem system;
  system.row_group_starts = {0};
  system.row_starts = {0};
  for (std::uint32_t s = 0; s < n; ++s) {
    if (s + 1 < n) {
      system.columns.push_back(s + 1);
      system.values.push_back(0.9);
    }
    system.row_constants.push_back(s + 1 < n ? 0.05 : 0.5);
    system.row_starts.push_back(system.columns.size());
    system.row_group_starts.push_back(system.row_constants.size());
    system.model_states.push_back(s);
  }
  system.scc_starts = {0, n};
  system.level_starts = {0, 1};
  return system;
}

std::vector<MaybeSystem> systems_under_test(std::uint32_t seed) {
  std::vector<MaybeSystem> systems;
  for (std::uint32_t n : kSizes) systems.push_back(test::random_system(n, seed + n));
  systems.push_back(long_chain(3001));
  return systems;
}

class DeviceKernel : public ::testing::TestWithParam<gpu::GroupShape> {
 protected:
  void SetUp() override {
    device_ = gpu::open_device();
    if (!device_) GTEST_SKIP() << "no CUDA device";
  }
  std::unique_ptr<gpu::DeviceSolver> device_;
};

// A flag computed on the device must be set where the reference's margin says it
// surely is, and clear where it surely is not; within rounding of the threshold,
// either is right.
struct Expected {
  bool surely = false;
  bool possibly = false;
  void see(double value, double threshold, double slack) {
    surely = surely || value > threshold + slack;
    possibly = possibly || value > threshold - slack;
  }
};
void expect_flag(bool actual, const Expected& expected, const char* name, std::uint32_t n) {
  if (expected.surely) {
    EXPECT_TRUE(actual) << name << ", n = " << n;
  }
  if (!expected.possibly) {
    EXPECT_FALSE(actual) << name << ", n = " << n;
  }
}

void expect_near_all(const std::vector<double>& actual, const std::vector<double>& expected, double tolerance) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) ASSERT_NEAR(actual[i], expected[i], tolerance) << "state " << i;
}

TEST_P(DeviceKernel, SweepIsEquivalentToRef) {
  for (const MaybeSystem& system : systems_under_test(3)) {
    const std::uint32_t n = system.num_states();
    int ticket = device_->upload(matrix_of(system));
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
        gpu::SweepSettings settings{maximize, relative, 1e-6, 1, false, GetParam()};
        double actual_change = device_->sweep_once(ticket, system.row_constants.data(), settings, x.data(), actual.data());
        // Sums are reduced in another order on the device: equal up to rounding.
        expect_near_all(actual, expected, 1e-12);
        EXPECT_NEAR(actual_change, expected_change, 1e-12 * std::max(1.0, expected_change)) << "n = " << n;
      }
    }
    device_->release(ticket);
  }
}

// The fused interval sweep against the reference: each iterate with its own b (as
// in a chunk with entries into earlier chunks), some upper starts below the lower
// ones (crossed), lower starts above what a sweep gives them (lower_lowered), per-state
// targets (above_target), width and both vectors.
TEST_P(DeviceKernel, IntervalSweepIsEquivalentToRef) {
  for (const MaybeSystem& system : systems_under_test(4)) {
    const std::uint32_t n = system.num_states();
    MaybeSystem upper_system = system;
    for (double& b : upper_system.row_constants) b += 0.01;
    int ticket = device_->upload(matrix_of(system));
    std::mt19937 rng(4);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> lower(n), upper(n), targets(n);
    for (std::uint32_t s = 0; s < n; ++s) {
      lower[s] = 0.5 * unit(rng) + (s % 19 == 7 ? 10.0 : 0.0);  // far above what a sweep gives it
      upper[s] = s % 17 == 4 ? lower[s] - 0.3 : lower[s] + unit(rng);
      targets[s] = width_target_as_float(0.5 * unit(rng));  // as the device keeps them
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
        Expected raised, lowered, crossed, above;
        double widest = 0.0;
        for (std::uint32_t s = 0; s < n; ++s) {
          raised.see(up[s], upper[s] * (1 + kRaiseTolerance), 1e-12);
          lowered.see(lower[s] * (1 - kRaiseTolerance), lo[s], 1e-12);
          lo[s] = std::max(lo[s], lower[s]);
          up[s] = std::min(up[s], upper[s]);
          crossed.see(lo[s], up[s], 1e-12);
          double w = interval_width<ConvergenceCriterion::absolute>(lo[s], up[s]);
          if (relative) w = interval_width<ConvergenceCriterion::relative>(lo[s], up[s]);
          above.see(w, targets[s], 1e-9);
          widest = std::max(widest, w);
        }
        gpu::SweepSettings settings{maximize, relative, 1e-6, 1, false, GetParam()};
        gpu::IntervalSweepResult r = device_->interval_sweep_once(ticket, inputs, settings, lower.data(), upper.data(),
                                                                  lo_out.data(), up_out.data());
        expect_near_all(lo_out, lo, 1e-12);
        expect_near_all(up_out, up, 1e-12);
        EXPECT_NEAR(r.width, widest, 1e-9 * std::max(1.0, widest)) << "n = " << n;
        expect_flag(r.upper_raised, raised, "upper_raised", n);
        expect_flag(r.lower_lowered, lowered, "lower_lowered", n);
        expect_flag(r.crossed, crossed, "crossed", n);
        expect_flag(r.above_target, above, "above_target", n);
        if (n > 100) {
          EXPECT_TRUE(crossed.surely) << "the inputs must exercise the crossed flag";
          EXPECT_TRUE(lowered.surely) << "the inputs must exercise the lower_lowered flag";
        }
      }
    }
    device_->release(ticket);
  }
}

// A sweep over a window of the states: the window as the reference sweeps it, every
// other state as it was.
TEST_P(DeviceKernel, WindowSweepIsEquivalentToRef) {
  for (const MaybeSystem& system : systems_under_test(5)) {
    const std::uint32_t n = system.num_states();
    if (n < 3) continue;
    int ticket = device_->upload(matrix_of(system));
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> x(n);
    for (double& v : x) v = unit(rng);
    const std::uint32_t first = n / 3, end = n - n / 4;
    for (bool maximize : {false, true}) {
      std::vector<double> expected = x, actual(n);
      const double expected_change =
          bellman_sweep_reference(system, {first, end}, maximize ? Optimization::maximize : Optimization::minimize,
                                  ConvergenceCriterion::absolute, x.data(), expected.data());
      gpu::SweepSettings settings{maximize, false, 1e-6, 1, false, GetParam(), first, end};
      const double actual_change = device_->sweep_once(ticket, system.row_constants.data(), settings, x.data(), actual.data());
      for (std::uint32_t s = 0; s < n; ++s) {
        if (s < first || s >= end) {
          ASSERT_EQ(actual[s], x[s]) << "state " << s << " outside the window, n = " << n;
        } else {
          ASSERT_NEAR(actual[s], expected[s], 1e-12) << "state " << s << ", n = " << n;
        }
      }
      EXPECT_NEAR(actual_change, expected_change, 1e-12) << "n = " << n;
    }
    device_->release(ticket);
  }
}

// Passes over acyclic levels (odd widths, one-state levels, 40-row states, rows
// longer than a warp, a long chain of levels) against the CPU's update of trivial
// SCCs in order: value iteration's one iterate and interval iteration's two.
TEST_P(DeviceKernel, LevelPassIsEquivalentToRef) {
  for (auto [levels, width] : {std::pair{1u, 1u}, {3u, 31u}, {5u, 33u}, {4u, 1025u}, {3001u, 1u}, {2u, 20011u}}) {
    const MaybeSystem system = test::layered_system(levels, width, levels + width, /*cycles=*/false);
    const std::uint32_t n = system.num_states();
    std::vector<std::uint32_t> starts;
    for (std::uint64_t scc : system.level_starts) starts.push_back(static_cast<std::uint32_t>(system.scc_starts[scc]));
    int ticket = device_->upload(matrix_of(system));
    for (bool maximize : {false, true}) {
      std::mt19937 rng(levels);
      std::uniform_real_distribution<double> unit(0.0, 1.0);
      std::vector<double> lower(n), upper(n);
      for (std::uint32_t s = 0; s < n; ++s) lower[s] = unit(rng), upper[s] = lower[s] + unit(rng);
      std::vector<double> expected_lower = lower, expected_upper = upper;
      for (std::uint32_t s = 0; s < n; ++s) {  // in level order: each from the levels below
        const auto [lo, up] = maximize ? bellman_pair<Optimization::maximize>(system, s, expected_lower.data(), expected_upper.data())
                                       : bellman_pair<Optimization::minimize>(system, s, expected_lower.data(), expected_upper.data());
        expected_lower[s] = lo;
        expected_upper[s] = up;
      }
      std::vector<double> plain = lower;
      const gpu::LevelPasses one{starts.data(), starts.size() - 1, system.row_constants.data(), nullptr, maximize, GetParam()};
      const gpu::ChunkSolveStats stats = device_->pass_levels(ticket, one, plain.data(), nullptr);
      EXPECT_EQ(stats.iterations, levels);
      expect_near_all(plain, expected_lower, 1e-12);
      const gpu::LevelPasses two{starts.data(), starts.size() - 1, system.row_constants.data(),
                                 system.row_constants.data(), maximize, GetParam()};
      device_->pass_levels(ticket, two, lower.data(), upper.data());
      expect_near_all(lower, expected_lower, 1e-12);
      expect_near_all(upper, expected_upper, 1e-12);
    }
    device_->release(ticket);
  }
}

// Optimistic value iteration's guess on bound vectors (the lower iterate kept in the
// upper one over a window, two sweeps of the lower iterate there, then guessed_upper
// per state) against the reference sweeps and the same formula; then the upper
// iterate's fill, and a plain sweep that keeps its result on the device: each read
// back once, every other state as it was.
TEST_P(DeviceKernel, GuessOnBoundVectorsIsEquivalentToRef) {
  for (const MaybeSystem& system : systems_under_test(6)) {
    const std::uint32_t n = system.num_states();
    if (n < 3) continue;
    int ticket = device_->upload(matrix_of(system));
    std::mt19937 rng(6);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> lower(n), upper(n), targets(n);
    for (std::uint32_t s = 0; s < n; ++s) {
      lower[s] = 0.5 * unit(rng);
      upper[s] = lower[s] + unit(rng);
      targets[s] = width_target_as_float(1e-3 * unit(rng));  // as the device keeps them
    }
    const std::uint32_t first = n / 3, end = n - n / 4;
    for (bool maximize : {false, true}) {
      for (const GuessParameters guess : {GuessParameters{0.9, 1.5, true}, GuessParameters{1.0, 100.0, false}}) {
        const auto direction = maximize ? Optimization::maximize : Optimization::minimize;
        const auto criterion = guess.relative ? ConvergenceCriterion::relative : ConvergenceCriterion::absolute;
        std::vector<double> swept = lower, expected_lower = lower, expected_upper = upper;
        bellman_sweep_reference(system, {first, end}, direction, criterion, lower.data(), swept.data());
        bellman_sweep_reference(system, {first, end}, direction, criterion, swept.data(), expected_lower.data());
        for (std::uint32_t s = first; s < end; ++s) {
          expected_upper[s] = guessed_upper(expected_lower[s], std::min(lower[s], expected_lower[s]), targets[s], guess);
        }
        device_->bind(ticket, {system.row_constants.data(), system.row_constants.data(), targets.data(), lower.data(),
                               upper.data()});
        const gpu::SweepSettings settings{maximize, guess.relative, 1e-6, 1, true, GetParam(), first, end};
        device_->keep_lower_in_upper(ticket, settings);
        gpu::SweepSettings two = settings;
        two.max_sweeps = 2;
        two.fixed_sweeps = true;
        EXPECT_EQ(device_->iterate(ticket, nullptr, two, nullptr).iterations, 2u);
        const gpu::ChunkSolveStats stats = device_->guess_upper(ticket, settings, guess);
        EXPECT_EQ(stats.iterations, 0u);
        std::vector<double> actual_lower(n), actual_upper(n);
        device_->read_bound(ticket, actual_lower.data(), actual_upper.data());
        expect_near_all(actual_lower, expected_lower, 1e-12);
        expect_near_all(actual_upper, expected_upper, 1e-9);

        device_->fill_upper(ticket, first, end, 0.75);
        std::fill(expected_upper.begin() + first, expected_upper.begin() + end, 0.75);
        // A plain sweep of the whole lower iterate, kept on the device: it reads the
        // guess's lower values from whichever buffer it starts on.
        std::vector<double> after_sweep = expected_lower;
        bellman_sweep_reference(system, {0, n}, direction, criterion, expected_lower.data(), after_sweep.data());
        gpu::SweepSettings plain{maximize, guess.relative, 1e-6, 1, true, GetParam()};
        device_->iterate(ticket, nullptr, plain, nullptr);
        device_->read_bound(ticket, actual_lower.data(), actual_upper.data());
        expect_near_all(actual_lower, after_sweep, 1e-12);
        expect_near_all(actual_upper, expected_upper, 0.0);
      }
    }
    device_->release(ticket);
  }
}

// Every lane count, splitting each row's entries or taking whole rows in turn.
INSTANTIATE_TEST_SUITE_P(GroupShapes, DeviceKernel,
                         ::testing::Values(gpu::GroupShape{1, false}, gpu::GroupShape{2, false}, gpu::GroupShape{4, false},
                                           gpu::GroupShape{8, false}, gpu::GroupShape{16, false},
                                           gpu::GroupShape{32, false}, gpu::GroupShape{2, true}, gpu::GroupShape{4, true},
                                           gpu::GroupShape{8, true}, gpu::GroupShape{32, true}),
                         [](const auto& info) {
                           return std::to_string(info.param.lanes) + (info.param.over_rows ? "_over_rows" : "_over_entries");
                         });

// Sweeps until convergence on the device against the same number of reference
// sweeps: the batch loop stops where the reference's change first falls below
// epsilon, or within the batch after it.
TEST(DeviceIterate, ConvergesWhereTheReferenceDoes) {
  std::unique_ptr<gpu::DeviceSolver> device = gpu::open_device();
  if (!device) GTEST_SKIP() << "no CUDA device";
  MaybeSystem system = test::random_system(1025, 9);
  const std::uint32_t n = system.num_states();
  int ticket = device->upload(matrix_of(system));
  std::vector<double> x(n, 0.0);
  gpu::SweepSettings settings{true, false, 1e-9, 100000, false, {}};
  gpu::ChunkSolveStats stats = device->iterate(ticket, system.row_constants.data(), settings, x.data());
  EXPECT_TRUE(stats.converged);
  std::vector<double> a(n, 0.0), b(n, 0.0);
  std::uint64_t sweeps = 0;
  double change = 1.0;
  while (change >= 1e-9) {
    change = bellman_sweep_reference(system, {0, n}, Optimization::maximize, ConvergenceCriterion::absolute, a.data(), b.data());
    std::swap(a, b);
    ++sweeps;
  }
  EXPECT_GE(stats.iterations + 1, sweeps);  // the device rounds differently
  // Past convergence: the rest of the batch that converged and the one running while
  // it was read (gpu/batch_loop.h), each about a twentieth of the sweeps, or one.
  EXPECT_LE(stats.iterations, sweeps + sweeps / 10 + 2);
  expect_near_all(x, a, 1e-8);
  // A fixed number of sweeps runs exactly that many.
  std::fill(x.begin(), x.end(), 0.0);
  settings.fixed_sweeps = true;
  settings.max_sweeps = 5;
  EXPECT_EQ(device->iterate(ticket, system.row_constants.data(), settings, x.data()).iterations, 5u);
  device->release(ticket);
}

// The measured rule (gpu/device_solver.cpp): many short rows per state go two lanes
// over rows; one row per state (a DTMC) or long rows split each row's entries.
TEST(ChooseGroupShape, FollowsTheRowsPerStateAndTheRowLength) {
  const auto shape_of = [](std::uint32_t states, std::uint64_t rows, std::uint64_t entries) {
    gpu::ChunkMatrix m;
    m.num_states = states;
    m.num_rows = rows;
    m.num_entries = entries;
    return gpu::choose_group_shape(m);
  };
  const auto expect_shape = [](gpu::GroupShape actual, int lanes, bool over_rows) {
    EXPECT_EQ(actual.lanes, lanes);
    EXPECT_EQ(actual.over_rows, over_rows);
  };
  expect_shape(shape_of(739443, 3544374, 4399626), 2, true);  // coin6_4's maybe-states
  expect_shape(shape_of(1000, 1000, 1250), 1, false);         // a DTMC's short rows
  expect_shape(shape_of(1000, 1000, 40000), 16, false);       // a DTMC's rows of 40
  expect_shape(shape_of(1000, 5000, 50000), 4, false);        // many rows, long ones
  expect_shape(shape_of(0, 0, 0), 1, false);
}

// A window of the chunk: rows of one entry, then, in states [10, 14), four rows of
// 64 entries each. Small against the device, its lanes follow the typical entry's
// row (60: 8 lanes of 4 entries at least), not the mean row; filling the device, the
// mean row (as a chunk, 2 entries per lane at least);
// within a quarter of the device, 8 lanes at least.
TEST(ChooseGroupShape, ASmallWindowIsSizedForItsLongRows) {
  std::vector<std::uint64_t> row_group_starts, row_starts{0};
  for (std::uint64_t s = 0; s < 20; ++s) {
    row_group_starts.push_back(s);
    row_starts.push_back(row_starts.back() + (s >= 10 && s < 14 ? 64 : 1));
  }
  row_group_starts.push_back(20);
  gpu::ChunkMatrix m{20, 20, row_starts.back(), row_group_starts.data(), row_starts.data(), nullptr, nullptr};
  // States [0, 20): 20 rows, 272 entries, mean 13.6, per entry (4 * 64^2 + 16) / 272 = 60.3.
  gpu::GroupShape small = gpu::choose_window_shape(m, 0, 20, 30);  // 20 states, beyond a quarter
  EXPECT_EQ(small.lanes, 8);
  EXPECT_FALSE(small.over_rows);
  EXPECT_EQ(gpu::choose_window_shape(m, 0, 20, 10).lanes, 4);   // fills the device: by the mean row
  EXPECT_EQ(gpu::choose_window_shape(m, 0, 10, 30).lanes, 1);   // short rows, a third of the device
  EXPECT_EQ(gpu::choose_window_shape(m, 0, 10, 40).lanes, 8);   // short rows, a quarter of it
  EXPECT_EQ(gpu::choose_window_shape(m, 12, 14, 1000).lanes, 16);  // rows of 64 only
  EXPECT_EQ(gpu::choose_window_shape(m, 15, 15, 1000).lanes, 8);  // empty
  EXPECT_EQ(gpu::choose_window_shape(m, 18, 99, 1000).lanes, 8);  // clamped to the chunk: 2 short rows
}

// BiCGStab on the device (cuSPARSE and CUB) against the CPU backend, step for step:
// the same iterate after each of the first iterations (fewer than n: later, one side
// may meet a zero residual that rounding keeps from the other), and the same solution,
// on the DTMC form of every shape (the first row of each state) and the long chain.
TEST(DeviceKrylov, BicgstabIsEquivalentToRef) {
  std::unique_ptr<gpu::DeviceSolver> device = gpu::open_device();
  if (!device) GTEST_SKIP() << "no CUDA device";
  std::vector<MaybeSystem> systems;
  for (const MaybeSystem& system : systems_under_test(5)) systems.push_back(test::first_rows_only(system));
  for (const MaybeSystem& system : systems) {
    const std::uint32_t n = system.num_states();
    const int ticket = device->upload(matrix_of(system));
    std::vector<double> start(n);
    for (std::uint32_t s = 0; s < n; ++s) start[s] = 0.01 * (s % 7);
    for (std::uint64_t steps : {1u, 2u, 7u, 0u}) {
      if (steps > 0 && steps >= n) continue;
      SCOPED_TRACE(testing::Message() << "n = " << n << ", steps " << steps);
      // 0: to convergence.
      const KrylovLimits limits = steps == 0 ? KrylovLimits{100000, 4, 1e-12, false} : KrylovLimits{steps, 0, 0.0, false};
      KrylovSystem reference(system, {0, n}, start.data());
      const KrylovRun expected = run_bicgstab(reference, limits);
      std::vector<double> x = start;
      const gpu::KrylovChunkStats actual = device->solve_linear(ticket, system.row_constants.data(), limits, x.data());
      if (steps > 0) {
        EXPECT_EQ(actual.stats.iterations, expected.iterations);
      } else {
        EXPECT_TRUE(actual.stats.converged);
        EXPECT_TRUE(expected.converged);
      }
      for (std::uint32_t i = 0; i < n; ++i) {
        const double want = reference.solution()[i];
        ASSERT_NEAR(x[i], want, 1e-9 * std::max(1.0, std::abs(want))) << "state " << i;
      }
    }
    device->release(ticket);
  }
}

// A chunk with a choice (an MDP's) is refused, for the CPU to take.
TEST(DeviceKrylov, RefusesAChunkWithChoices) {
  std::unique_ptr<gpu::DeviceSolver> device = gpu::open_device();
  if (!device) GTEST_SKIP() << "no CUDA device";
  const MaybeSystem system = test::random_system(31, 2);
  const int ticket = device->upload(matrix_of(system));
  std::vector<double> x(system.num_states(), 0.0);
  EXPECT_THROW(device->solve_linear(ticket, system.row_constants.data(), {}, x.data()), gpu::DeviceError);
  device->release(ticket);
}

}  // namespace
}  // namespace mdpvi
