// Policy iteration (--method pi): its improvement step against the plain reference,
// the scheduler's linear systems, and its bounds against interval iteration's on
// systems where value iteration crawls (engine/solve/policy_iteration.cpp). The
// sound methods' shared tests (interval_iteration_test.cpp) run it too.
#include "engine/solve/chunk_driver.h"
#include "gpu/device_solver.h"
#include "engine/solve/krylov_system.h"
#include "engine/solve/method_policy.h"
#include "engine/solve/method_requirements.h"
#include "engine/solve/policy_steps.h"
#include "random_systems.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>

namespace mdpvi {
namespace {

// random_system's shapes with every row keeping all but leak of its mass in the
// system (b the rest, times a random share): no end components, and value iteration
// takes about 1/leak sweeps per digit.
MaybeSystem crawling_system(std::uint32_t n, std::uint32_t seed, double leak, std::vector<std::uint32_t> blocks = {}) {
  MaybeSystem system = test::random_system(n, seed, std::move(blocks));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (std::uint64_t r = 0; r < system.num_rows(); ++r) {
    double mass = 0.0;
    for (std::uint64_t k = system.row_starts[r]; k < system.row_starts[r + 1]; ++k) mass += system.values[k];
    if (mass == 0.0) continue;  // an empty row: b alone
    for (std::uint64_t k = system.row_starts[r]; k < system.row_starts[r + 1]; ++k) system.values.plain()[k] *= (1 - leak) / mass;
    system.row_constants[r] = leak * unit(rng);
  }
  return system;
}

std::vector<MaybeSystem> shapes() {
  std::vector<MaybeSystem> systems{test::random_system(1, 3), test::random_system(33, 4), test::random_system(5003, 5),
                                   test::layered_system(9, 301, 7), crawling_system(2049, 8, 1e-4)};
  // A long chain: each state to the next, the last back to the first.
  MaybeSystem chain = test::empty_system();
  for (std::uint32_t s = 0; s < 3000; ++s) {
    for (std::uint32_t r = 0; r < 1 + s % 3; ++r) {
      chain.columns.push_back((s + 1 + r) % 3000);
      chain.values.push_back(0.9 - 0.1 * r);
      chain.row_constants.push_back(0.01 * r);
      chain.row_starts.push_back(chain.columns.size());
    }
    chain.row_group_starts.push_back(chain.row_constants.size());
    chain.model_states.push_back(s);
  }
  chain.scc_starts.push_back(3000);
  systems.push_back(std::move(chain));
  return systems;
}

// Rows of each state of a range picked at random: a scheduler to improve on.
std::vector<std::uint64_t> random_rows(const MaybeSystem& system, StateRange range, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint64_t> rows(range.size());
  for (std::uint64_t s = range.begin; s < range.end; ++s) {
    const std::uint64_t count = system.row_group_starts[s + 1] - system.row_group_starts[s];
    rows[s - range.begin] = system.row_group_starts[s] + rng() % count;
  }
  return rows;
}

TEST(PolicySteps, ImproveIsEquivalentToRef) {
  for (const MaybeSystem& system : shapes()) {
    SCOPED_TRACE(system.num_states());
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> x(system.num_states());
    for (double& v : x) v = unit(rng);
    // The whole system, and an odd range inside it.
    const std::uint32_t n = system.num_states();
    for (StateRange range : {StateRange{0, n}, StateRange{n / 3, n / 3 + (n + 1) / 2}}) {
      for (Optimization direction : {Optimization::minimize, Optimization::maximize}) {
        for (RowObjective objective : {RowObjective::values, RowObjective::steps_to_leave}) {
          for (bool keep : {false, true}) {
            const PolicyImprovement step{range, direction, objective, keep};
            const double* values = objective == RowObjective::values ? x.data() : x.data() + range.begin;
            std::vector<std::uint64_t> expected = random_rows(system, range, 2);
            std::vector<std::uint64_t> actual = expected;
            const std::uint64_t expected_changes = improve_policy_reference(system, step, values, expected.data());
            const std::uint64_t actual_changes = improve_policy_parallel(system, step, values, actual.data());
            EXPECT_EQ(actual, expected);
            EXPECT_EQ(actual_changes, expected_changes);
            if (keep && range.size() > 100) EXPECT_GT(expected_changes, 0u);  // random rows are rarely all best
          }
        }
      }
    }
  }
}

// The improvement keeps a row that ties, takes one better by more than the tolerance.
TEST(PolicySteps, KeepsTiesAndTakesGains) {
  MaybeSystem system = test::empty_system();
  for (double b : {0.5, 0.5, 0.5 + 1e-12, 0.7}) {
    system.row_constants.push_back(b);
    system.row_starts.push_back(0);
  }
  system.row_group_starts.push_back(3);  // state 0: rows 0, 1 (a tie) and 2 (a gain below the tolerance)
  system.row_group_starts.push_back(4);
  system.model_states = {0, 1};
  system.scc_starts.push_back(2);
  const double x[] = {0.0, 0.0};
  std::vector<std::uint64_t> rows{1, 3};
  PolicyImprovement step{{0, 2}, Optimization::maximize, RowObjective::values, true};
  EXPECT_EQ(improve_policy_reference(system, step, x, rows.data()), 0u);
  EXPECT_EQ(rows[0], 1u);
  step.tolerance = 1e-13;
  EXPECT_EQ(improve_policy_reference(system, step, x, rows.data()), 1u);
  EXPECT_EQ(rows[0], 2u);
}

// The chosen rows of a system as a DTMC of its own: each row's b, or 1 for the
// expected steps before leaving (every column of a whole system is inside it).
MaybeSystem chain_of(const MaybeSystem& system, const std::vector<std::uint64_t>& rows, bool steps_to_leave) {
  MaybeSystem chain = test::empty_system();
  for (std::uint64_t row : rows) {
    for (std::uint64_t k = system.row_starts[row]; k < system.row_starts[row + 1]; ++k) {
      chain.columns.push_back(system.columns[k]);
      chain.values.push_back(system.values[k]);
    }
    chain.row_constants.push_back(steps_to_leave ? 1.0 : system.row_constants[row]);
    chain.row_starts.push_back(chain.columns.size());
    chain.row_group_starts.push_back(chain.row_constants.size());
    chain.model_states.push_back(static_cast<std::uint32_t>(chain.model_states.size()));
  }
  chain.scc_starts.push_back(rows.size());
  return chain;
}

// The improvement on the device (skipped without one) against the plain reference,
// on a system uploaded whole: the same rows and the same count, for both
// objectives, both directions, with and without keep, the rows numbered from 0 and
// from an offset (a chunk's first row in its system).
TEST(DevicePolicySteps, ImproveIsEquivalentToRef) {
  std::unique_ptr<gpu::DeviceSolver> device = gpu::open_device();
  if (!device) GTEST_SKIP() << "no CUDA device";
  for (const MaybeSystem& system : shapes()) {
    SCOPED_TRACE(system.num_states());
    const std::uint32_t n = system.num_states();
    const int ticket = device->upload(test::matrix_of(system));
    device->bind_policy_constants(ticket, system.row_constants.data());
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> x(n);
    for (double& v : x) v = unit(rng);
    for (Optimization direction : {Optimization::minimize, Optimization::maximize}) {
      for (RowObjective objective : {RowObjective::values, RowObjective::steps_to_leave}) {
        for (bool keep : {false, true}) {
          for (std::uint64_t first_row : {std::uint64_t{0}, std::uint64_t{12345}}) {
            const PolicyImprovement step{{0, n}, direction, objective, keep};
            std::vector<std::uint64_t> expected = random_rows(system, {0, n}, 2);
            std::vector<std::uint64_t> actual = expected;
            for (std::uint64_t& row : actual) row += first_row;
            const std::uint64_t expected_changes = improve_policy_reference(system, step, x.data(), expected.data());
            const gpu::ChunkImprovement on_device{direction == Optimization::maximize, keep, kSwitchTolerance, first_row,
                                                  objective == RowObjective::steps_to_leave};
            const std::uint64_t actual_changes = device->improve_policy(ticket, on_device, x.data(), actual.data());
            for (std::uint64_t& row : actual) row -= first_row;
            EXPECT_EQ(actual, expected);
            EXPECT_EQ(actual_changes, expected_changes);
          }
        }
      }
    }
    device->release(ticket);
  }
}

// A scheduler's chain gathered on the device (skipped without one) and solved there
// is the chain gathered by hand and uploaded: the same solution bit for bit, and
// within BiCGStab's precision of the CPU's (KrylovSystem) where both converge, for
// the rows' values and for the steps to leave.
TEST(DevicePolicySteps, SchedulerSolveIsEquivalentToRef) {
  std::unique_ptr<gpu::DeviceSolver> device = gpu::open_device();
  if (!device) GTEST_SKIP() << "no CUDA device";
  const KrylovLimits limits{100000, 4, 1e-12, false};
  for (const MaybeSystem& system : shapes()) {
    const std::uint32_t n = system.num_states();
    const int ticket = device->upload(test::matrix_of(system));
    device->bind_policy_constants(ticket, system.row_constants.data());
    const std::vector<std::uint64_t> rows = random_rows(system, {0, n}, 5);
    for (bool steps_to_leave : {false, true}) {
      SCOPED_TRACE(testing::Message() << "n = " << n << (steps_to_leave ? ", steps to leave" : ", values"));
      const MaybeSystem chain = chain_of(system, rows, steps_to_leave);
      std::vector<double> start(n);
      for (std::uint32_t s = 0; s < n; ++s) start[s] = 0.01 * (s % 7);
      std::vector<double> expected = start, actual = start;
      const int chain_ticket = device->upload(test::matrix_of(chain));
      const gpu::KrylovChunkStats by_hand =
          device->solve_linear(chain_ticket, chain.row_constants.data(), limits, expected.data());
      device->release(chain_ticket);
      const gpu::ChunkImprovement step{false, true, kSwitchTolerance, 0, steps_to_leave};
      const gpu::KrylovChunkStats gathered = device->solve_scheduler(ticket, step, rows.data(), limits, actual.data());
      EXPECT_EQ(gathered.stats.iterations, by_hand.stats.iterations);
      EXPECT_EQ(gathered.stats.converged, by_hand.stats.converged);
      EXPECT_EQ(actual, expected);
      KrylovSystem reference = steps_to_leave ? KrylovSystem::steps_to_leave(system, {0, n}, rows.data(), start.data())
                                              : KrylovSystem(system, {0, n}, start.data(), rows.data());
      // (The crawling shape's steps, about 1e4 a state, may stop either side short of
      // 1e-12 after its restarts.)
      if (!run_bicgstab(reference, limits).converged || !gathered.stats.converged) continue;
      for (std::uint32_t i = 0; i < n; ++i) {
        const double want = reference.solution()[i];
        ASSERT_NEAR(actual[i], want, 1e-8 * std::max(1.0, std::abs(want))) << "state " << i;
      }
    }
    device->release(ticket);
  }
}

// A scheduler's system solved through its chosen rows is the DTMC of those rows.
TEST(KrylovSystem, ChosenRowsSolveTheSchedulersChain) {
  const MaybeSystem system = crawling_system(777, 9, 1e-2);
  const StateRange range{0, system.num_states()};
  const std::vector<std::uint64_t> rows = random_rows(system, range, 4);
  MaybeSystem chain = test::empty_system();
  for (std::uint64_t row : rows) {
    for (std::uint64_t k = system.row_starts[row]; k < system.row_starts[row + 1]; ++k) {
      chain.columns.push_back(system.columns[k]);
      chain.values.push_back(system.values[k]);
    }
    chain.row_constants.push_back(system.row_constants[row]);
    chain.row_starts.push_back(chain.columns.size());
    chain.row_group_starts.push_back(chain.row_constants.size());
  }
  const std::vector<double> start(system.num_states(), 0.0);
  KrylovSystem scheduler(system, range, start.data(), rows.data());
  KrylovSystem dtmc(chain, range, start.data());
  KrylovLimits limits;
  limits.epsilon = 1e-13;
  ASSERT_TRUE(run_bicgstab(scheduler, limits).converged);
  ASSERT_TRUE(run_bicgstab(dtmc, limits).converged);
  for (std::size_t i = 0; i < start.size(); ++i) ASSERT_NEAR(scheduler.solution()[i], dtmc.solution()[i], 1e-11) << i;
}

// A chain of n states, each staying with probability p, else moving on (the last
// leaves): from state i, (n - i) / (1 - p) steps. (Short: a Krylov method needs
// about n iterations on a chain, which policy iteration's SCCs, being cycles, are not.)
TEST(KrylovSystem, StepsToLeaveOfAChain) {
  const std::uint32_t n = 61;
  const double p = 0.75;
  MaybeSystem system = test::empty_system();
  for (std::uint32_t s = 0; s < n; ++s) {
    system.columns.push_back(s);
    system.values.push_back(p);
    if (s + 1 < n) {
      system.columns.push_back(s + 1);
      system.values.push_back(1 - p);
    }
    system.row_constants.push_back(0.5);  // not read
    system.row_starts.push_back(system.columns.size());
    system.row_group_starts.push_back(system.row_constants.size());
  }
  std::vector<std::uint64_t> rows(n);
  for (std::uint32_t s = 0; s < n; ++s) rows[s] = s;
  const std::vector<double> start(n, 1.0);
  KrylovSystem steps = KrylovSystem::steps_to_leave(system, {0, n}, rows.data(), start.data());
  KrylovLimits limits;
  limits.epsilon = 1e-12;
  limits.max_restarts = 64;
  ASSERT_TRUE(run_bicgstab(steps, limits).converged);
  for (std::uint32_t i = 0; i < n; ++i) ASSERT_NEAR(steps.solution()[i], (n - i) / (1 - p), 1e-6 * (n - i)) << i;
}

SolveRequest request_for(const MaybeSystem& system, Optimization direction, Method method, double epsilon) {
  return {.system = system,
          .direction = direction,
          .options = {method, {ConvergenceCriterion::relative, epsilon, 100000000}},
          .known_upper_bound = std::nullopt};
}

// Where value iteration crawls, policy iteration's bounds contain interval
// iteration's tight answer and meet the precision asked for, in fewer sweeps and
// products than optimistic value iteration takes (so policy iteration ran: the
// fallback is optimistic value iteration itself).
TEST(PolicyIteration, BoundsContainTheTruthWhereValueIterationCrawls) {
  std::vector<MaybeSystem> systems{crawling_system(1001, 12, 3e-4), crawling_system(2001, 13, 1e-3, {700, 1, 300, 1000})};
  for (const MaybeSystem& system : systems) {
    for (Optimization direction : {Optimization::minimize, Optimization::maximize}) {
      SCOPED_TRACE(std::to_string(system.num_states()) + (direction == Optimization::minimize ? " min" : " max"));
      const SolveResult truth = solve(request_for(system, direction, Method::interval_iteration, 1e-10), {SolverKind::cpu});
      const SolveResult pi = solve(request_for(system, direction, Method::policy_iteration, 1e-6), {SolverKind::cpu});
      const SolveResult ovi = solve(request_for(system, direction, Method::optimistic_value_iteration, 1e-6), {SolverKind::cpu});
      ASSERT_TRUE(pi.bounded());
      ASSERT_TRUE(pi.report.stats.converged);
      for (std::uint32_t i = 0; i < system.num_states(); ++i) {
        const double slack = truth.upper[i] - truth.lower[i];
        ASSERT_LE(pi.lower[i], truth.upper[i]) << i;
        ASSERT_GE(pi.upper[i], truth.lower[i]) << i;
        ASSERT_LE(pi.upper[i] - pi.lower[i], 2e-6 * pi.lower[i] + slack) << i;
      }
      EXPECT_LT(pi.report.stats.iterations * 3, ovi.report.stats.iterations);
    }
  }
}

// On the device (skipped without one): chunks by policy iteration there, the system
// whole and in chunks of at most 1.5 MB (a chain and BiCGStab's buffer beside each),
// within interval iteration's tight answer, and in fewer sweeps and products than the
// device's optimistic value iteration.
TEST(PolicyIteration, OnTheDeviceBoundsContainTheTruth) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  const MaybeSystem system = crawling_system(3001, 13, 1e-3, {700, 1, 300, 1000, 1000});
  for (Optimization direction : {Optimization::minimize, Optimization::maximize}) {
    const SolveResult truth = solve(request_for(system, direction, Method::interval_iteration, 1e-10), {SolverKind::cpu});
    for (std::optional<std::size_t> limit : {std::optional<std::size_t>{}, std::optional<std::size_t>{1500000}}) {
      SCOPED_TRACE(std::string(direction == Optimization::minimize ? "min" : "max") + (limit ? " chunked" : " whole"));
      DeviceOptions device{SolverKind::gpu};
      device.memory_limit_bytes = limit;
      const SolveResult pi = solve(request_for(system, direction, Method::policy_iteration, 1e-6), device);
      const SolveResult ovi = solve(request_for(system, direction, Method::optimistic_value_iteration, 1e-6), device);
      ASSERT_TRUE(pi.report.stats.converged);
      EXPECT_TRUE(std::any_of(pi.report.chunks.begin(), pi.report.chunks.end(), [](const ChunkReport& c) { return c.on_gpu; }));
      if (limit) EXPECT_GT(pi.report.chunks.size(), 1u);
      for (std::uint32_t i = 0; i < system.num_states(); ++i) {
        const double slack = truth.upper[i] - truth.lower[i];
        ASSERT_LE(pi.lower[i], truth.upper[i]) << i;
        ASSERT_GE(pi.upper[i], truth.lower[i]) << i;
        ASSERT_LE(pi.upper[i] - pi.lower[i], 2e-6 * pi.lower[i] + slack) << i;
      }
      EXPECT_LT(pi.report.stats.iterations, ovi.report.stats.iterations);
    }
  }
}

// The default (Method::automatic) is policy iteration's choice on the CPU, the same
// bit for bit, and optimistic value iteration on the device (skipped without one),
// whose system may be built there: it keeps the footprint, the level-by-level solve
// and the answers of optimistic value iteration, whole and in chunks.
TEST(AutomaticMethod, IsPolicyIterationOnTheCpuAndOptimisticValueIterationOnTheDevice) {
  const MaybeSystem system = crawling_system(2001, 13, 1e-3, {700, 1, 300, 1000});
  EXPECT_TRUE(requirements_of(Method::automatic).solves_by_levels);
  EXPECT_TRUE(requirements_of(Method::automatic).gives_bounds);
  EXPECT_FALSE(requirements_of(Method::policy_iteration).solves_by_levels);
  const auto automatic = make_method_policy(request_for(system, Optimization::minimize, Method::automatic, 1e-6));
  const auto optimistic =
      make_method_policy(request_for(system, Optimization::minimize, Method::optimistic_value_iteration, 1e-6));
  EXPECT_TRUE(automatic->solves_by_levels());
  EXPECT_EQ(automatic->footprint_bytes(1000, 3000, 9000), optimistic->footprint_bytes(1000, 3000, 9000));
  for (Optimization direction : {Optimization::minimize, Optimization::maximize}) {
    SCOPED_TRACE(direction == Optimization::minimize ? "min" : "max");
    const SolveResult chosen = solve(request_for(system, direction, Method::automatic, 1e-6), {SolverKind::cpu});
    const SolveResult pi = solve(request_for(system, direction, Method::policy_iteration, 1e-6), {SolverKind::cpu});
    EXPECT_EQ(chosen.lower, pi.lower);
    EXPECT_EQ(chosen.upper, pi.upper);
    EXPECT_EQ(chosen.report.stats.iterations, pi.report.stats.iterations);
    EXPECT_GT(chosen.report.stats.policy_sccs, 0u);
    EXPECT_EQ(chosen.report.stats.policy_sccs, pi.report.stats.policy_sccs);
  }
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  // Chunks just large enough for the largest SCC: several, each on the device.
  std::size_t largest = 0;
  for (std::size_t scc = 0; scc < system.num_sccs(); ++scc) {
    const std::uint64_t first = system.scc_starts[scc], end = system.scc_starts[scc + 1];
    const std::uint64_t rows = system.row_group_starts[end] - system.row_group_starts[first];
    const std::uint64_t entries = system.row_starts[system.row_group_starts[end]] - system.row_starts[system.row_group_starts[first]];
    largest = std::max(largest, optimistic->footprint_bytes(end - first, rows, entries));
  }
  for (std::optional<std::size_t> limit : {std::optional<std::size_t>{}, std::optional<std::size_t>{largest}}) {
    SCOPED_TRACE(limit ? "chunked" : "whole");
    DeviceOptions device{SolverKind::gpu};
    device.memory_limit_bytes = limit;
    const SolveResult chosen = solve(request_for(system, Optimization::maximize, Method::automatic, 1e-6), device);
    const SolveResult ovi =
        solve(request_for(system, Optimization::maximize, Method::optimistic_value_iteration, 1e-6), device);
    EXPECT_EQ(chosen.lower, ovi.lower);
    EXPECT_EQ(chosen.upper, ovi.upper);
    EXPECT_EQ(chosen.report.stats.policy_sccs, 0u);
    ASSERT_EQ(chosen.report.chunks.size(), ovi.report.chunks.size());
    if (limit) EXPECT_GT(chosen.report.chunks.size(), 1u);
    for (std::size_t c = 0; c < chosen.report.chunks.size(); ++c) {
      EXPECT_TRUE(chosen.report.chunks[c].on_gpu);
      EXPECT_EQ(chosen.report.chunks[c].on_gpu, ovi.report.chunks[c].on_gpu);
      EXPECT_EQ(chosen.report.chunks[c].by_levels, ovi.report.chunks[c].by_levels);
    }
  }
}

// Rmin's shape where a scheduler may stay forever at a cost: state 0 pays 1e-4 to
// stay or moves to state 1 for nothing; state 1 earns 1 in expectation before it
// leaves, at 1e-5 per step. Value iteration from 0 crawls at state 0 (1e-4 a
// sweep), and the sweeps' best row there is to stay: a singular system, which
// policy iteration cannot solve, so optimistic value iteration answers, from the
// sweeps' values. Rmin = 1 at both.
TEST(PolicyIteration, FallsBackWhereTheSchedulerNeverLeaves) {
  MaybeSystem system = test::empty_system();
  const auto row = [&](std::vector<std::pair<std::uint32_t, double>> entries, double b) {
    for (auto [column, value] : entries) {
      system.columns.push_back(column);
      system.values.push_back(value);
    }
    system.row_constants.push_back(b);
    system.row_starts.push_back(system.columns.size());
  };
  row({{0, 1 - 1e-5}}, 1e-5);  // state 0 (solved first): leaves at 1e-5 a step, earning 1 in all
  system.row_group_starts.push_back(1);
  row({{1, 1.0}}, 1e-4);  // state 1: stay, paying
  row({{0, 1.0}}, 0.0);   // or move to state 0
  system.row_group_starts.push_back(3);
  system.model_states = {1, 0};
  system.scc_starts = {0, 1, 2};
  set_one_level_per_scc(system);
  const SolveResult pi = solve(request_for(system, Optimization::minimize, Method::policy_iteration, 1e-6), {SolverKind::cpu});
  ASSERT_TRUE(pi.report.stats.converged);
  for (std::uint32_t i = 0; i < 2; ++i) {
    EXPECT_LE(pi.lower[i], 1.0);
    EXPECT_GE(pi.upper[i], 1.0);
    EXPECT_LE(pi.upper[i] - pi.lower[i], 2e-6);
  }
}

}  // namespace
}  // namespace mdpvi

namespace mdpvi {
namespace {

// for_each_level solves every SCC once, a level's iterated ones at the same time where
// asked (each into stats of its own), and adds their stats in SCC order: the first
// unconverged SCC reported is the lowest-numbered one, whichever finished first. It
// prepares once, before the first iterated SCC, and not at all without one.
TEST(ForEachLevel, SolvesEachSccOnceAndMergesStatsInOrder) {
  const MaybeSystem system = test::layered_system(5, 301, 9);
  for (bool concurrent : {false, true}) {
    SCOPED_TRACE(concurrent);
    std::vector<std::atomic<int>> trivial(system.num_sccs()), iterated(system.num_sccs());
    std::atomic<int> started{0}, prepared_before{0}, prepared{0};
    SolveStats stats;
    for_each_level(
        system, 0, system.num_sccs(), [&](std::size_t scc) { ++trivial[scc]; },
        [&](std::size_t scc, SolveStats& own) {
          ++started;
          ++iterated[scc];
          own.add_run(scc);
          ++own.iterated_sccs;
          report_not_converged(own, {"m", "an SCC", scc, 3, "width", 1.0, 0.5});
        },
        stats, concurrent, [&] {
          prepared_before = started.load();
          ++prepared;
        });
    EXPECT_EQ(prepared.load(), 1);
    EXPECT_EQ(prepared_before.load(), 0);
    std::size_t first_iterated = system.num_sccs(), count = 0;
    std::uint64_t sum = 0, most = 0;
    for (std::size_t scc = 0; scc < system.num_sccs(); ++scc) {
      const bool is_trivial = is_trivial_scc(system, scc);
      ASSERT_EQ(trivial[scc].load(), is_trivial ? 1 : 0) << scc;
      ASSERT_EQ(iterated[scc].load(), is_trivial ? 0 : 1) << scc;
      if (is_trivial) continue;
      first_iterated = std::min(first_iterated, scc);
      ++count;
      sum += scc;
      most = std::max<std::uint64_t>(most, scc);
    }
    ASSERT_GT(count, 10u);
    EXPECT_EQ(stats.iterated_sccs, count);
    EXPECT_EQ(stats.iterations, sum);
    EXPECT_EQ(stats.max_scc_iterations, most);
    EXPECT_EQ(stats.unconverged, count);
    EXPECT_FALSE(stats.converged);
    EXPECT_NE(stats.first_unconverged.find("after " + std::to_string(first_iterated) + " iterations"), std::string::npos)
        << stats.first_unconverged;
  }
  const MaybeSystem acyclic = test::layered_system(3, 50, 9, false);
  int prepared = 0;
  SolveStats stats;
  for_each_level(acyclic, 0, acyclic.num_sccs(), [](std::size_t) {}, [](std::size_t, SolveStats&) {}, stats, true,
                 [&] { ++prepared; });
  EXPECT_EQ(prepared, 0);
}

}  // namespace
}  // namespace mdpvi
