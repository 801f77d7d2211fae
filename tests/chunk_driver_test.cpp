// The chunk driver: planning with each method's footprint, chunked solving against
// the unchunked CPU solve, on the CPU (always) and on the GPU (skipped without a
// device), for every method.
#include "engine/numeric/width_target.h"
#include "engine/solve/method_requirements.h"
#include "engine/solve/chunk_driver.h"
#include "engine/solve/prepared_chunk.h"
#include "random_systems.h"
#include "reference_instances.h"
#include "engine/pipeline/check_run.h"
#include "gpu/partitioned_sweeps.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

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

// mixed_system with each probability rounded down to a multiple of 1/256: at most 256
// distinct values, as a model's few probabilities give (rows still sum below 1).
MaybeSystem few_valued_system() {
  MaybeSystem system = mixed_system();
  for (double& v : system.values.plain()) v = std::floor(v * 256) / 256;
  return system;
}

SolverOptions tight(Method method) { return {method, {ConvergenceCriterion::absolute, 1e-13, 1000000}}; }

SolveRequest request_for(const MaybeSystem& system, Optimization direction, Method method) {
  return {.system = system, .direction = direction, .options = tight(method), .known_upper_bound = 1.0};
}

const Method kMethods[] = {Method::value_iteration, Method::interval_iteration, Method::optimistic_value_iteration};

void expect_near_all(const PodVector<double>& a, const PodVector<double>& b, double tolerance) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], tolerance) << "state " << i;
}

// A DTMC system without its self-loops (each row divided by 1 - its self-loop) has the
// same solution, by every method; a system with choices is left as it is.
TEST(RemoveSelfLoops, SameSolutionWithoutTheLoops) {
  std::vector<MaybeSystem> systems{test::first_rows_only(mixed_system()), test::first_rows_only(test::random_system(1, 3)),
                                   test::first_rows_only(test::layered_system(9, 301, 7))};
  for (const MaybeSystem& system : systems) {
    MaybeSystem without = system;
    remove_self_loops(without);
    for (std::uint32_t i = 0; i < without.num_states(); ++i) {
      for (std::uint64_t k = without.row_starts[i]; k < without.row_starts[i + 1]; ++k) ASSERT_NE(without.columns[k], i);
    }
    for (Method method : kMethods) {
      const SolveResult with_loops = solve(request_for(system, Optimization::minimize, method), {SolverKind::cpu});
      const SolveResult without_loops = solve(request_for(without, Optimization::minimize, method), {SolverKind::cpu});
      expect_near_all(with_loops.lower, without_loops.lower, 1e-9);
    }
  }
  const MaybeSystem with_choices = test::random_system(50, 3);
  MaybeSystem untouched = with_choices;
  remove_self_loops(untouched);
  EXPECT_EQ(untouched.columns, with_choices.columns);
}

// BiCGStab against value iteration (the reference) on DTMC systems of every shape: one
// big block among many small ones, odd sizes, a 3001-state chain of levels.
TEST(Bicgstab, IsEquivalentToRef) {
  std::vector<MaybeSystem> systems{test::first_rows_only(mixed_system()), test::first_rows_only(test::random_system(1, 3)),
                                   test::first_rows_only(test::random_system(33, 4)),
                                   test::first_rows_only(test::layered_system(9, 3001, 7))};
  for (const MaybeSystem& system : systems) {
    SCOPED_TRACE(system.num_states());
    const SolveResult reference = solve(request_for(system, Optimization::minimize, Method::value_iteration), {SolverKind::cpu});
    const SolveResult krylov = solve(request_for(system, Optimization::minimize, Method::bicgstab), {SolverKind::cpu});
    EXPECT_TRUE(krylov.report.stats.converged);
    // Converged by itself: a breakdown hands the SCC to value iteration, which would take
    // about the reference's sweeps. Measured: 44 iterations against 507 sweeps on the
    // 5003-state block, 3 against 262 on the levels.
    EXPECT_LE(krylov.report.stats.max_scc_iterations * 4, reference.report.stats.max_scc_iterations);
    expect_near_all(krylov.lower, reference.lower, 1e-10);
  }
}

// An upper iterate left unwritten and written beside holds its start everywhere once
// waited for, at any size (one state, and several blocks of the pass); without an
// upper iterate there is nothing to write or wait for.
TEST(Iterates, UpperWrittenBesideHoldsItsStart) {
  for (std::uint32_t n : {1u, 7u, 200003u}) {
    const MaybeSystem system = test::random_system(n, 5);
    SolveRequest request = request_for(system, Optimization::minimize, Method::interval_iteration);
    request.known_upper_bound = 3.5;
    Iterates x(request, /*with_upper=*/true, /*upper_unwritten=*/true);
    x.write_upper_beside();
    x.await_written();
    x.await_written();
    ASSERT_EQ(x.upper.size(), n);
    EXPECT_TRUE(std::all_of(x.upper.begin(), x.upper.end(), [](double v) { return v == 3.5; }));
    Iterates lower_only(request, /*with_upper=*/false);
    lower_only.write_upper_beside();
    lower_only.await_written();
    EXPECT_TRUE(lower_only.upper.empty());
  }
}

// On the device each chunk is one linear system: whole, and cut into many chunks
// (the big block then goes to the CPU), against value iteration on the CPU.
TEST(Bicgstab, OnTheDeviceIsEquivalentToRef) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  std::vector<MaybeSystem> systems{test::first_rows_only(mixed_system()), test::first_rows_only(test::random_system(33, 4)),
                                   test::first_rows_only(test::layered_system(9, 3001, 7))};
  for (const MaybeSystem& system : systems) {
    SCOPED_TRACE(system.num_states());
    const SolveRequest request = request_for(system, Optimization::minimize, Method::bicgstab);
    const SolveResult reference =
        solve(request_for(system, Optimization::minimize, Method::value_iteration), {SolverKind::cpu});
    const SolveResult whole = solve(request, {SolverKind::gpu});
    ASSERT_FALSE(whole.report.chunks.empty());
    EXPECT_TRUE(whole.report.chunks[0].on_gpu);
    EXPECT_FALSE(whole.report.chunks[0].by_levels);  // one linear system, whatever its levels
    EXPECT_TRUE(whole.report.stats.converged);
    expect_near_all(whole.lower, reference.lower, 1e-10);
    const SolveResult chunked = solve(request, {SolverKind::gpu, whole.report.chunks[0].footprint_bytes / 9});
    if (system.num_sccs() > 1) {
      EXPECT_GT(chunked.report.chunks.size(), 1u);
    }
    expect_near_all(chunked.lower, reference.lower, 1e-10);
  }
}

TEST(Bicgstab, RefusesAnMdp) {
  EXPECT_THROW(solve(request_for(mixed_system(), Optimization::minimize, Method::bicgstab), {SolverKind::cpu}),
               std::invalid_argument);
}

TEST(PlanChunks, CoversTheSccsInOrderWithinTheBudget) {
  MaybeSystem system = mixed_system();
  for (Method method : kMethods) {
    SolveRequest request = request_for(system, Optimization::minimize, method);
    std::unique_ptr<MethodPolicy> policy = make_method_policy(request);
    for (std::size_t budget : {std::size_t{1}, std::size_t{20000}, std::size_t{400000}, std::size_t{1} << 40}) {
      std::vector<Chunk> chunks = plan_chunks(system, budget, *policy);
      std::size_t next_scc = 0;
      for (const Chunk& c : chunks) {
        EXPECT_EQ(c.first_scc, next_scc);
        EXPECT_LT(c.first_scc, c.end_scc);
        EXPECT_EQ(c.first_state, system.scc_starts[c.first_scc]);
        EXPECT_EQ(c.end_state, system.scc_starts[c.end_scc]);
        if (c.fits) {
          EXPECT_LE(c.footprint_bytes, budget);
        } else {
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
}

bool same_chunks(const std::vector<Chunk>& a, const std::vector<Chunk>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Chunk& x, const Chunk& y) {
    return x.first_scc == y.first_scc && x.end_scc == y.end_scc && x.first_state == y.first_state &&
           x.end_state == y.end_state && x.footprint_bytes == y.footprint_bytes && x.fits == y.fits;
  });
}

// Bisection plans the chunks that taking SCCs one at a time does, for every budget
// from below the smallest SCC to above the whole system, and on a system of one-state
// SCCs (more chunks than some budgets' states) as on one of large ones.
TEST(PlanChunks, BisectionIsEquivalentToRef) {
  for (const MaybeSystem& system : {mixed_system(), test::random_system(500, 11, std::vector<std::uint32_t>(500, 1)),
                                    test::random_system(3000, 12, {1, 2, 700, 3, 1000, 1, 1293})}) {
    for (Method method : kMethods) {
      std::unique_ptr<MethodPolicy> policy = make_method_policy(request_for(system, Optimization::minimize, method));
      const std::size_t whole = policy->footprint_bytes(system.num_states(), system.num_rows(), system.columns.size());
      for (std::size_t budget = 1; budget < 2 * whole; budget = budget * 3 / 2 + 97) {
        SCOPED_TRACE("budget " + std::to_string(budget));
        EXPECT_TRUE(same_chunks(plan_chunks(system, budget, *policy), plan_chunks_reference(system, budget, *policy)));
      }
    }
  }
}

// Interval iteration keeps twice the vectors and two b: its chunks must be planned
// with its own footprint, or a chunk that fits plain VI's budget overflows the device.
TEST(PlanChunks, IntervalIterationNeedsMoreThanValueIteration) {
  MaybeSystem system = mixed_system();
  auto vi = make_method_policy(request_for(system, Optimization::minimize, Method::value_iteration));
  auto ii = make_method_policy(request_for(system, Optimization::minimize, Method::interval_iteration));
  const std::uint64_t n = system.num_states(), rows = system.num_rows(), entries = system.columns.size();
  EXPECT_GT(ii->footprint_bytes(n, rows, entries), vi->footprint_bytes(n, rows, entries) + 3 * n * sizeof(double));
  std::size_t budget = vi->footprint_bytes(n, rows, entries);
  EXPECT_EQ(plan_chunks(system, budget, *vi).size(), 1u);
  EXPECT_GT(plan_chunks(system, budget, *ii).size(), 1u);
}

TEST(SolveChunked, OnTheCpuEqualsTheUnchunkedSolveWithAnyBudget) {
  MaybeSystem system = mixed_system();
  for (Method method : kMethods) {
    for (auto direction : {Optimization::minimize, Optimization::maximize}) {
      SolveRequest request = request_for(system, direction, method);
      SolveResult whole = solve(request, {SolverKind::cpu});
      EXPECT_EQ(whole.report.method, method);
      EXPECT_EQ(whole.bounded(), requirements_of(method).gives_bounds);
      for (std::size_t budget : {std::size_t{1}, std::size_t{30000}, std::size_t{1} << 40}) {
        SolveResult chunked = solve(request, {SolverKind::cpu, budget});
        EXPECT_EQ(chunked.lower, whole.lower);  // the same SCC-by-SCC arithmetic
        EXPECT_EQ(chunked.upper, whole.upper);
        EXPECT_TRUE(chunked.report.device.empty());
      }
    }
  }
}

// Two forms of one system solved on the CPU under each method, both directions: the
// same values, bit for bit, and the same count (stat) in their reports. Forms with
// different height levels take the rows' width targets (targets_from_levels false),
// which do not depend on the levels.
void expect_same_cpu_solves(const MaybeSystem& a, const MaybeSystem& b, const std::vector<Method>& methods,
                            std::uint64_t SolveStats::*stat, bool targets_from_levels = true) {
  for (Method method : methods) {
    for (auto direction : {Optimization::minimize, Optimization::maximize}) {
      SCOPED_TRACE(to_string(method));
      SolveRequest for_a = request_for(a, direction, method), for_b = request_for(b, direction, method);
      for_a.options.stop.targets_from_levels = for_b.options.stop.targets_from_levels = targets_from_levels;
      const SolveResult x = solve(for_a, {SolverKind::cpu});
      const SolveResult y = solve(for_b, {SolverKind::cpu});
      EXPECT_EQ(x.lower, y.lower);
      EXPECT_EQ(x.upper, y.upper);
      EXPECT_EQ(x.report.stats.*stat, y.report.stats.*stat);
    }
  }
}

// A system whose values are indices (SystemValues::as_model, as a device run builds it
// on the host) solves on the CPU to the same bits and sweeps as its plain form, under
// every method.
TEST(SolveIndexed, OnTheCpuEqualsThePlainSystemsSolve) {
  const MaybeSystem plain = few_valued_system();
  MaybeSystem indexed = plain;
  ASSERT_TRUE(indexed.values.compress());
  expect_same_cpu_solves(plain, indexed,
                         {Method::value_iteration, Method::interval_iteration, Method::optimistic_value_iteration,
                          Method::policy_iteration, Method::automatic},
                         &SolveStats::iterations);
}

// Levels of many trivial SCCs (updated in parallel) give the same arithmetic as one
// SCC at a time: the same values, bit for bit, for every method.
TEST(SolveByLevels, OnTheCpuEqualsOneSccAtATime) {
  MaybeSystem levelled = test::layered_system(7, 9001, 3);  // levels wider than the parallel threshold
  MaybeSystem one_by_one = levelled;
  set_one_level_per_scc(one_by_one);
  ASSERT_LT(levelled.num_levels(), one_by_one.num_levels());
  expect_same_cpu_solves(levelled, one_by_one, {std::begin(kMethods), std::end(kMethods)}, &SolveStats::iterated_sccs,
                         /*targets_from_levels=*/false);
}

// A chunk's level segments cover its SCCs in order, each acyclic exactly when all its
// SCCs are trivial, also where the chunk's edges cut a level with cycles in two.
TEST(LevelSegments, CoverTheChunkAndSayExactlyWhichAreAcyclic) {
  const MaybeSystem system = test::layered_system(6, 40, 9);
  const std::vector<std::uint8_t> cyclic = cyclic_levels(system);
  ASSERT_EQ(cyclic.size(), system.num_levels());
  for (std::size_t first = 0; first < system.num_sccs(); first += 7) {
    for (std::size_t end = first + 1; end <= system.num_sccs(); end += 11) {
      const std::vector<LevelSegment> segments = level_segments(system, cyclic, first, end);
      std::size_t next = first;
      for (const LevelSegment& segment : segments) {
        ASSERT_EQ(segment.first_scc, next);
        EXPECT_EQ(segment.acyclic, all_trivial(system, segment.first_scc, segment.end_scc))
            << "SCCs " << segment.first_scc << "-" << segment.end_scc << " of chunk " << first << "-" << end;
        EXPECT_EQ(segment.level_starts.front(), system.scc_starts[segment.first_scc] - system.scc_starts[first]);
        EXPECT_EQ(segment.level_starts.back(), system.scc_starts[segment.end_scc] - system.scc_starts[first]);
        if (!segment.acyclic) {
          EXPECT_EQ(segment.level_starts.size(), 2u);
        }
        next = segment.end_scc;
      }
      ASSERT_EQ(next, end);
    }
  }
}

// Three height levels: 1,000 states reading nothing, every third with a self-loop (level
// 1, the others 0); one ring SCC of 100,003 states (read on all cores: larger than
// scc_width_targets' large SCC), every seventh also reading a state of level 0 and one
// near its end a state of level 1, and a 3-state cycle beside it; 500 states reading
// the ring.
MaybeSystem system_with_a_large_scc() {
  constexpr std::uint32_t kBottom = 1000, kRing = 100'003, kTop = 500;
  MaybeSystem system = test::empty_system();
  const auto add_row = [&](std::vector<std::uint32_t> columns) {
    for (std::uint32_t c : columns) {
      system.columns.push_back(c);
      system.values.push_back(0.5 / static_cast<double>(columns.size()));
    }
    system.row_constants.push_back(0.25);
    system.row_starts.push_back(system.columns.size());
    system.row_group_starts.push_back(system.row_constants.size());
    system.model_states.push_back(static_cast<std::uint32_t>(system.model_states.size()));
  };
  for (std::uint32_t s = 0; s < kBottom; ++s) add_row(s % 3 == 0 ? std::vector{s} : std::vector<std::uint32_t>{});
  for (std::uint32_t i = 0; i < kRing; ++i) {
    const std::uint32_t next = kBottom + (i + 1) % kRing;
    if (i == kRing - 2) {
      add_row({next, 3});  // the one read of a state of level 1: the ring's level is 2
    } else {
      add_row(i % 7 == 0 ? std::vector{next, 1 + 3 * (i % 300)} : std::vector{next});
    }
  }
  for (std::uint32_t i = 0; i < 3; ++i) add_row({kBottom + kRing + (i + 1) % 3, 5});  // a small cycle
  for (std::uint32_t i = 0; i < kTop; ++i) add_row({kBottom + (i * 197) % kRing});
  const std::uint64_t ring = kBottom, cycle = kBottom + kRing, top = cycle + 3;
  system.scc_starts.clear();
  for (std::uint64_t s = 0; s < kBottom; ++s) system.scc_starts.push_back(s);
  system.scc_starts.insert(system.scc_starts.end(), {ring, cycle});
  for (std::uint64_t s = top; s <= top + kTop; ++s) system.scc_starts.push_back(s);
  system.level_starts = {0, kBottom, kBottom + 2, kBottom + 2 + kTop};
  return system;
}

// The per-SCC width targets, a level at a time in parallel, equal the serial pass in
// solving order: layered systems (wide levels, cycles, self-loops, long rows), systems
// with one SCC per level, and one with an SCC read on all cores.
TEST(SccWidthTargets, LevelParallelIsEquivalentToRef) {
  std::vector<MaybeSystem> systems = {test::layered_system(7, 9001, 3), test::layered_system(3001, 1, 4),
                                      test::layered_system(5, 33, 5, /*cycles=*/false), mixed_system(),
                                      test::random_system(0, 1), test::random_system(1, 2), system_with_a_large_scc()};
  for (const MaybeSystem& system : systems) {
    EXPECT_EQ(scc_width_targets_by_rows(system, cyclic_levels(system), 1e-6), scc_width_targets_reference(system, 1e-6))
        << system.num_states() << " states";
  }
}

// What interval iteration's argument needs of any targets (interval_iteration.cpp):
// an iterated SCC's target lies strictly above every target it reads, a trivial one's
// at or above, and none passes 2 * epsilon.
void expect_targets_bound_every_chain(const MaybeSystem& system, const PodVector<double>& targets, double epsilon) {
  ASSERT_EQ(targets.size(), system.num_sccs());
  std::vector<std::uint32_t> scc_of(system.num_states());
  for (std::size_t c = 0; c < system.num_sccs(); ++c) {
    std::fill(scc_of.begin() + system.scc_starts[c], scc_of.begin() + system.scc_starts[c + 1], static_cast<std::uint32_t>(c));
  }
  for (std::size_t c = 0; c < system.num_sccs(); ++c) {
    ASSERT_GE(targets[c], 0.0);
    ASSERT_LE(targets[c], 2.0 * epsilon);
    ASSERT_EQ(targets[c], static_cast<double>(static_cast<float>(targets[c]))) << "kept as a float on the device";
    const bool trivial = is_trivial_scc(system, c);
    for (std::uint64_t s = system.scc_starts[c]; s < system.scc_starts[c + 1]; ++s) {
      for (std::uint64_t k = system.row_starts[system.row_group_starts[s]]; k < system.row_starts[system.row_group_starts[s + 1]]; ++k) {
        const std::uint32_t d = scc_of[system.columns[k]];
        if (d == c) continue;
        if (trivial) {
          ASSERT_LE(targets[d], targets[c]) << "trivial SCC " << c << " reads SCC " << d;
        } else {
          ASSERT_LT(targets[d], targets[c]) << "iterated SCC " << c << " reads SCC " << d;
        }
      }
    }
  }
}

// The targets from the height levels alone (level_width_targets) bound every chain,
// the highest level with cycles at 2 * epsilon: layered systems (wide levels, cycles,
// self-loops, rows longer than a warp, an acyclic one), a long chain of one SCC per
// level, random blocks, one state, one with an SCC read on all cores. (mixed_system,
// with 501 levels of cycles, takes the rows': ManyCyclicLevelsTakeTheRows.)
TEST(SccWidthTargets, ByHeightLevelsBoundEveryChain) {
  std::vector<MaybeSystem> systems = {test::layered_system(7, 9001, 3), test::layered_system(200, 1, 4),
                                      test::layered_system(5, 33, 5, /*cycles=*/false),
                                      test::random_system(1, 2), test::random_system(2000, 5, {3, 1500, 1, 496}),
                                      system_with_a_large_scc()};
  const double epsilon = 1e-6;
  for (const MaybeSystem& system : systems) {
    SCOPED_TRACE(std::to_string(system.num_states()) + " states");
    const std::vector<std::uint8_t> cyclic = cyclic_levels(system);
    const std::vector<double> by_level = level_width_targets(system, cyclic, epsilon);
    ASSERT_EQ(by_level.size(), system.num_levels());
    const PodVector<double> targets = scc_width_targets(system, cyclic, epsilon);
    expect_targets_bound_every_chain(system, targets, epsilon);
    for (std::size_t c = 0; c < system.num_sccs(); ++c) ASSERT_EQ(targets[c], by_level[level_of(system, c)]);
    const bool any_cycle = std::count(cyclic.begin(), cyclic.end(), 1) > 0;
    EXPECT_EQ(*std::max_element(by_level.begin(), by_level.end()), any_cycle ? width_target_as_float(2.0 * epsilon) : 0.0);
  }
}

// A width target as the device keeps it: the largest float at most the target, so
// never looser (zero where the target is below the smallest float).
TEST(SccWidthTargets, AreTheLargestFloatsAtMostTheirShares) {
  for (double target : {0.0, 2e-6, 1.0 / 3.0, 0.1, 3 * 5e-7, 1e-300, 1e10, 2e-6 * 4999 / 5000}) {
    const double kept = width_target_as_float(target);
    EXPECT_LE(kept, target);
    EXPECT_EQ(kept, static_cast<double>(static_cast<float>(kept)));
    EXPECT_GT(static_cast<double>(std::nextafter(static_cast<float>(kept), INFINITY)), target) << target;
  }
  EXPECT_EQ(width_target_as_float(0.5), 0.5);
  EXPECT_LT(width_target_as_float(0.1), 0.1);  // 0.1f is above 0.1
}

// Past kMostCyclicLevelsForLevelTargets levels with cycles (each of a 300-level
// system's has one), or without height levels, the targets are the rows'.
TEST(SccWidthTargets, ManyCyclicLevelsTakeTheRows) {
  const MaybeSystem system = test::layered_system(kMostCyclicLevelsForLevelTargets + 44, 7, 6);
  const std::vector<std::uint8_t> cyclic = cyclic_levels(system);
  ASSERT_GT(static_cast<std::size_t>(std::count(cyclic.begin(), cyclic.end(), 1)), kMostCyclicLevelsForLevelTargets);
  EXPECT_TRUE(level_width_targets(system, cyclic, 1e-6).empty());
  const PodVector<double> targets = scc_width_targets(system, cyclic, 1e-6);
  EXPECT_EQ(targets, scc_width_targets_reference(system, 1e-6));
  expect_targets_bound_every_chain(system, targets, 1e-6);
  MaybeSystem without_levels = test::layered_system(3, 50, 7);
  without_levels.level_starts.clear();
  EXPECT_TRUE(level_width_targets(without_levels, {}, 1e-6).empty());
}

// Each height level's states within a chunk, chunk-local: a chunk that starts and
// ends inside levels, the whole system, and an empty chunk.
TEST(SccWidthTargets, LevelStateStartsAreChunkLocal) {
  const MaybeSystem system = test::layered_system(4, 10, 8);  // levels of 10 states
  EXPECT_EQ(level_state_starts(system, {0, 40}), (std::vector<std::uint64_t>{0, 10, 20, 30, 40}));
  EXPECT_EQ(level_state_starts(system, {15, 33}), (std::vector<std::uint64_t>{0, 0, 5, 15, 18}));
  EXPECT_EQ(level_state_starts(system, {40, 40}), (std::vector<std::uint64_t>{0, 0, 0, 0, 0}));
}

// The width targets filled in on the device from one per height level
// (gpu/level_targets.cu, per state) equal the host's per SCC: wide levels with 3-state
// cycles and self-loops, rows longer than a warp, a long chain, an acyclic system,
// random blocks, one state.
TEST(SccWidthTargets, OnTheDeviceIsEquivalentToRef) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  std::unique_ptr<gpu::DeviceSolver> device = gpu::open_device();
  std::vector<MaybeSystem> systems = {test::layered_system(7, 9001, 3), test::layered_system(200, 1, 4),
                                      test::layered_system(5, 33, 5, /*cycles=*/false),
                                      test::random_system(2000, 5, {3, 1500, 1, 496}), test::random_system(1, 2)};
  const double epsilon = 1e-6;
  for (const MaybeSystem& system : systems) {
    SCOPED_TRACE(std::to_string(system.num_states()) + " states");
    const std::vector<std::uint8_t> cyclic = cyclic_levels(system);
    const PodVector<double> expected = scc_width_targets(system, cyclic, epsilon);
    const std::vector<double> by_level = level_width_targets(system, cyclic, epsilon);
    const std::vector<std::uint64_t> starts = level_state_starts(system, {0, system.num_states()});
    const gpu::ChunkMatrix matrix{system.num_states(),       system.num_rows(),     system.columns.size(),
                                  system.row_group_starts.data(), system.row_starts.data(), system.columns.data(),
                                  device_view(system.values)};
    const int ticket = device->upload(matrix);
    device->bind(ticket, {system.row_constants.data(), system.row_constants.data()});
    device->bind_level_width_targets(ticket, {starts.data(), by_level.data(), by_level.size()});
    std::vector<double> actual(system.num_states(), -1.0);
    device->read_bound_targets(ticket, actual.data());
    device->release(ticket);
    for (std::size_t c = 0; c < system.num_sccs(); ++c) {
      for (std::uint64_t s = system.scc_starts[c]; s < system.scc_starts[c + 1]; ++s) {
        ASSERT_EQ(actual[s], expected[c]) << "state " << s << " of SCC " << c;
      }
    }
  }
}

namespace {

// What a run of interval sweeps and guesses over each window left: every call's
// stats and the final iterates, bit for bit.
struct WindowRuns {
  std::vector<std::uint64_t> sweeps;
  std::vector<int> flags;
  std::vector<double> widths, lower, upper;
};

// The chunk's windows in order (each height level, then the whole chunk, across
// levels), each swept to the level's target and guessed once, on targets bound per
// state from the host (per_level null) or one per level (the level's as one number).
WindowRuns sweep_windows(gpu::DeviceSolver& device, const MaybeSystem& system, const std::vector<std::uint64_t>& starts,
                         const std::vector<double>& by_level, const std::vector<double>* per_level) {
  const gpu::ChunkMatrix matrix{system.num_states(),       system.num_rows(),     system.columns.size(),
                                system.row_group_starts.data(), system.row_starts.data(), system.columns.data(),
                                device_view(system.values)};
  const int ticket = device.upload(matrix);
  gpu::DeviceSolver::BoundInputs inputs{system.row_constants.data(), system.row_constants.data()};
  inputs.upper_constant = 1.0;
  device.bind(ticket, inputs);
  if (per_level) {
    device.bind_level_width_targets(ticket, {starts.data(), per_level->data(), per_level->size()});
  } else {
    std::vector<double> per_state(system.num_states());
    for (std::size_t h = 0; h < by_level.size(); ++h) {
      std::fill(per_state.begin() + starts[h], per_state.begin() + starts[h + 1], by_level[h]);
    }
    device.bind_targets(ticket, per_state.data());
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> windows;
  for (std::size_t h = 0; h + 1 < starts.size(); ++h) windows.emplace_back(starts[h], starts[h + 1]);
  windows.emplace_back(0, system.num_states());
  WindowRuns runs;
  for (const auto& [first, end] : windows) {
    gpu::SweepSettings settings;
    settings.first_state = static_cast<std::uint32_t>(first);
    settings.end_state = static_cast<std::uint32_t>(end);
    settings.max_sweeps = 300;
    device.guess_upper(ticket, settings, {0.5, 1.0, true});
    const gpu::IntervalChunkStats s = device.iterate_interval(ticket, {nullptr, nullptr, nullptr, true}, settings, nullptr, nullptr);
    runs.sweeps.push_back(s.stats.iterations);
    runs.flags.push_back(s.verified + 2 * s.crossed + 4 * s.stats.converged);
    runs.widths.push_back(s.stats.last_measure);
  }
  runs.lower.assign(system.num_states(), -1.0);
  runs.upper.assign(system.num_states(), -1.0);
  device.read_bound(ticket, runs.lower.data(), runs.upper.data());
  device.release(ticket);
  return runs;
}

}  // namespace

// Targets bound one per height level are read as one number by a window inside a
// level (no array per state) and per state by a window across levels: the sweeps and
// guesses match those over the same targets bound per state from the host, bit for
// bit (wide levels with 3-state cycles and self-loops, rows longer than a warp, a
// long chain, one state).
TEST(SccWidthTargets, OneNumberPerLevelIsEquivalentToRef) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  std::unique_ptr<gpu::DeviceSolver> device = gpu::open_device();
  std::vector<MaybeSystem> systems = {test::layered_system(7, 901, 3), test::layered_system(60, 1, 4),
                                      test::layered_system(1, 1, 9)};
  for (const MaybeSystem& system : systems) {
    SCOPED_TRACE(std::to_string(system.num_states()) + " states");
    const std::vector<std::uint8_t> cyclic = cyclic_levels(system);
    std::vector<double> by_level = level_width_targets(system, cyclic, 1e-6);
    if (by_level.empty()) by_level.assign(system.num_levels(), 1e-6);
    for (std::size_t h = 0; h < by_level.size(); ++h) by_level[h] *= 1.0 + 0.37 * h;  // levels' own targets
    const std::vector<std::uint64_t> starts = level_state_starts(system, {0, system.num_states()});
    const WindowRuns expected = sweep_windows(*device, system, starts, by_level, nullptr);
    const WindowRuns actual = sweep_windows(*device, system, starts, by_level, &by_level);
    EXPECT_EQ(actual.sweeps, expected.sweeps);
    EXPECT_EQ(actual.flags, expected.flags);
    EXPECT_EQ(actual.widths, expected.widths);
    ASSERT_EQ(actual.lower.size(), expected.lower.size());
    for (std::size_t s = 0; s < actual.lower.size(); ++s) {
      ASSERT_EQ(actual.lower[s], expected.lower[s]) << "state " << s;
      ASSERT_EQ(actual.upper[s], expected.upper[s]) << "state " << s;
    }
  }
}

// A prepared chunk keeps its values as 1-byte indices where at most 256 are distinct,
// 2-byte ones where at most 65,536 are (the values read through them the same, bit for
// bit), and plain beyond.
TEST(PreparedChunk, IndexesFewDistinctValues) {
  MaybeSystem few = few_valued_system();
  const Chunk chunk{0, 0, 1000, few.num_states(), 0, true};
  for (bool system_indexed : {false, true}) {  // a plain system's chunk indexed; an indexed one's copied as it is
    SCOPED_TRACE(system_indexed ? "indexed system" : "plain system");
    if (system_indexed) ASSERT_TRUE(few.values.compress());
    const PreparedChunk indexed = prepare_chunk(few, chunk);
    EXPECT_EQ(indexed.values.index_bytes(), 1u);
    EXPECT_EQ(indexed.view().values.index_bytes, 1u);
    EXPECT_EQ(indexed.view().values.plain, nullptr);
    EXPECT_TRUE(indexed.values == prepare_chunk_reference(few, chunk).values);
  }
  EXPECT_EQ(prepare_chunk(mixed_system(), chunk).values.index_bytes(), 2u);  // some 18,000 rows' values
  const MaybeSystem many = test::random_system(40000, 7);                    // some 120,000
  const PreparedChunk plain = prepare_chunk(many, {0, 0, 1000, many.num_states(), 0, true});
  EXPECT_EQ(plain.values.index_bytes(), 0u);
  EXPECT_NE(plain.view().values.plain, nullptr);
}

// A fixed number of sweeps is exact whatever the method: it runs as value iteration.
void expect_same_prepared(const PreparedChunk& a, const PreparedChunk& b) {
  const auto same = [](const auto& x, const auto& y) {
    return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin());
  };
  EXPECT_TRUE(same(a.row_group_starts, b.row_group_starts));
  EXPECT_TRUE(same(a.row_starts, b.row_starts));
  EXPECT_TRUE(same(a.columns, b.columns));
  EXPECT_TRUE(a.values == b.values);  // value by value, bit for bit, whatever the form
  EXPECT_TRUE(same(a.outside_starts, b.outside_starts));
  EXPECT_TRUE(same(a.outside_columns, b.outside_columns));
  EXPECT_TRUE(same(a.outside_values, b.outside_values));
}

// The chunks PreparedChunk.IsEquivalentToRef takes, of a system of n states: of 1, 2,
// 3, ... states, then the rest.
std::vector<Chunk> chunks_of_every_size(std::uint64_t n) {
  std::vector<Chunk> chunks;
  for (std::uint64_t first = 0; first < n;) {
    const std::uint64_t end = std::min<std::uint64_t>(n, first + 1 + chunks.size() * 997);
    chunks.push_back({0, 0, first, end, 0, true});
    first = end;
  }
  return chunks;
}

// The system's b of the chunk's rows, with the corrections' rows replaced, is b (for
// the lower iterate from final, for the upper from its halves), bit for bit; the rows
// corrected are exactly those with an entry into an earlier chunk, in order.
void expect_corrections_make(const MaybeSystem& system, const Chunk& chunk, const std::vector<double>& final,
                             const PodVector<double>& b) {
  std::vector<double> halves(final);
  for (double& v : halves) v /= 2;
  PodVector<double> b_upper;
  prepare_chunk_reference(system, chunk).row_constants_reference(system, chunk, halves.data(), b_upper);
  const RowCorrections c = corrections_from_rows(system, chunk, final.data(), halves.data());
  const std::uint64_t first_row = system.row_group_starts[chunk.first_state];
  std::vector<double> lower(system.row_constants.begin() + first_row, system.row_constants.begin() + first_row + b.size());
  std::vector<double> upper = lower;
  ASSERT_EQ(c.lower.size(), c.rows.size());
  ASSERT_EQ(c.upper.size(), c.rows.size());
  for (std::size_t i = 0; i < c.rows.size(); ++i) {
    if (i > 0) ASSERT_LT(c.rows[i - 1], c.rows[i]);
    lower[c.rows[i]] = c.lower[i];
    upper[c.rows[i]] = c.upper[i];
  }
  EXPECT_TRUE(std::equal(lower.begin(), lower.end(), b.begin(), b.end()));
  EXPECT_TRUE(std::equal(upper.begin(), upper.end(), b_upper.begin(), b_upper.end()));
  std::size_t reading = 0;
  for (std::uint64_t r = first_row; r < first_row + b.size(); ++r) {
    bool reads = false;
    for (std::uint64_t k = system.row_starts[r]; k < system.row_starts[r + 1]; ++k) reads |= system.columns[k] < chunk.first_state;
    reading += reads;
  }
  EXPECT_EQ(c.rows.size(), reading);
  // Found apart from the values (the chunk feeder finds them before the earlier chunks
  // are final), the same rows, and the same b from them.
  const PodVector<std::uint64_t> found = rows_reading_earlier(system, chunk);
  EXPECT_TRUE(std::equal(found.begin(), found.end(), c.rows.begin(), c.rows.end()));
  const RowCorrections apart = corrections_of_rows(system, chunk, found, final.data(), halves.data());
  EXPECT_TRUE(std::equal(apart.lower.begin(), apart.lower.end(), c.lower.begin(), c.lower.end()));
  EXPECT_TRUE(std::equal(apart.upper.begin(), apart.upper.end(), c.upper.begin(), c.upper.end()));
  // An upper iterate's b is there even where no row is corrected (the first chunk).
  EXPECT_TRUE(c.view().with_upper);
  const RowCorrections lower_only = corrections_from_rows(system, chunk, final.data(), nullptr);
  EXPECT_TRUE(lower_only.upper.empty());
  EXPECT_FALSE(lower_only.view().with_upper);
  EXPECT_EQ(lower_only.view().upper, nullptr);
}

// A chunk prepared on all cores equals the serial pass, array for array, and so does
// its b, bit for bit: chunks of every size down to one state (more chunks than some
// blocks hold states), rows empty, long (over a warp and over a block) and
// self-looping, one large system whose chunks span several blocks of rows.
TEST(PreparedChunk, IsEquivalentToRef) {
  for (std::uint32_t n : {1u, 7u, 300u, 40000u}) {
    std::vector<std::uint32_t> blocks;
    for (std::uint32_t left = n, size = 1; left > 0; size = size * 3 % 97 + 1) {
      blocks.push_back(std::min(size, left));
      left -= blocks.back();
    }
    const MaybeSystem system = test::random_system(n, 5 + n, blocks);
    std::vector<double> final(n);
    for (std::uint32_t s = 0; s < n; ++s) final[s] = 1.0 / (s + 3);
    for (const Chunk& chunk : chunks_of_every_size(n)) {
      SCOPED_TRACE(std::to_string(n) + " states, chunk from " + std::to_string(chunk.first_state));
      const PreparedChunk parallel = prepare_chunk(system, chunk);
      const PreparedChunk reference = prepare_chunk_reference(system, chunk);
      expect_same_prepared(parallel, reference);
      PodVector<double> b, b_reference;
      parallel.row_constants(system, chunk, final.data(), b);
      reference.row_constants_reference(system, chunk, final.data(), b_reference);
      ASSERT_EQ(b.size(), b_reference.size());
      EXPECT_TRUE(std::equal(b.begin(), b.end(), b_reference.begin()));
      PodVector<double> b_from_rows;  // a chunk cut on the device: b read from the system's rows
      row_constants_from_rows(system, chunk, final.data(), b_from_rows);
      ASSERT_EQ(b_from_rows.size(), b_reference.size());
      EXPECT_TRUE(std::equal(b_from_rows.begin(), b_from_rows.end(), b_reference.begin()));
      expect_corrections_make(system, chunk, final, b_reference);
    }
  }
}

// The device cuts the chunk the host's reference prepares: the same rebased rows, the
// same kept entries in the same order, the same values bit for bit, plain or indexed;
// on the shapes of PreparedChunk.IsEquivalentToRef (one-state chunks, empty rows,
// rows longer than a warp and than a block, self-loops) and on a layered system.
TEST(ChunkCut, IsEquivalentToRef) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  std::vector<MaybeSystem> systems;
  for (std::uint32_t n : {1u, 7u, 300u, 40000u}) {
    std::vector<std::uint32_t> blocks;
    for (std::uint32_t left = n, size = 1; left > 0; size = size * 3 % 97 + 1) {
      blocks.push_back(std::min(size, left));
      left -= blocks.back();
    }
    systems.push_back(test::random_system(n, 5 + n, blocks));
  }
  systems.push_back(few_valued_system());
  ASSERT_TRUE(systems.back().values.compress());
  systems.push_back(test::layered_system(9, 301, 7));
  for (const MaybeSystem& system : systems) {
    for (const Chunk& chunk : chunks_of_every_size(system.num_states())) {
      SCOPED_TRACE(std::to_string(system.num_states()) + " states, chunk from " + std::to_string(chunk.first_state));
      const PreparedChunk reference = prepare_chunk_reference(system, chunk);
      const gpu::HostSystemArrays cut = gpu::cut_on_device(system_rows(system, chunk));
      EXPECT_TRUE(std::equal(cut.row_group_starts.begin(), cut.row_group_starts.end(), reference.row_group_starts.begin(),
                             reference.row_group_starts.end()));
      EXPECT_TRUE(std::equal(cut.row_starts.begin(), cut.row_starts.end(), reference.row_starts.begin(),
                             reference.row_starts.end()));
      EXPECT_TRUE(std::equal(cut.columns.begin(), cut.columns.end(), reference.columns.begin(), reference.columns.end()));
      ASSERT_EQ(cut.values.size(), reference.values.size());
      for (std::size_t k = 0; k < cut.values.size(); ++k) ASSERT_EQ(cut.values[k], reference.values[k]) << "entry " << k;
    }
  }
}

// The rule that sends a chunk to the device's cut (the raw rows and the cut within the
// chunk's footprint) takes chunks after the first of the indexed test system under
// every method: DeviceSolve.IndexedChunksAgreeWithTheCpu then runs through the cut.
TEST(PlanChunks, ChunksAfterTheFirstFitTheirCut) {
  MaybeSystem system = few_valued_system();
  ASSERT_TRUE(system.values.compress());
  for (Method method : kMethods) {
    auto policy = make_method_policy(request_for(system, Optimization::minimize, method));
    const std::size_t whole = policy->footprint_bytes(system.num_states(), system.num_rows(), system.columns.size());
    const std::vector<Chunk> chunks = plan_chunks(system, whole / 40, *policy);
    std::size_t cut = 0;
    for (std::size_t i = 1; i < chunks.size(); ++i) {
      cut += chunks[i].fits && cut_peak_bytes(system, chunks[i]) <= chunks[i].footprint_bytes;
    }
    EXPECT_GE(cut, 2u) << to_string(method);
  }
}

// One chunk on the device at a time; a chunk on the CPU holds none.
TEST(SolveReport, PeakDeviceBytesIsTheLargestChunkOnTheDevice) {
  const auto chunk = [](std::size_t bytes, bool on_gpu) {
    ChunkReport c;
    c.footprint_bytes = bytes;
    c.on_gpu = on_gpu;
    return c;
  };
  EXPECT_EQ(peak_device_bytes({}), 0u);
  EXPECT_EQ(peak_device_bytes({chunk(7, true)}), 7u);
  EXPECT_EQ(peak_device_bytes({chunk(7, false)}), 0u);
  EXPECT_EQ(peak_device_bytes({chunk(5, true), chunk(6, true), chunk(100, false), chunk(9, true)}), 9u);
  EXPECT_EQ(peak_device_bytes({chunk(5, true), chunk(100, false), chunk(4, true)}), 5u);
}

TEST(SolveChunked, FixedSweepsRunAsValueIteration) {
  MaybeSystem system = test::random_system(101, 4);
  SolveRequest request = request_for(system, Optimization::maximize, Method::interval_iteration);
  request.options.stop = StopRule::exactly(7);
  SolveResult result = solve(request, {SolverKind::cpu});
  EXPECT_EQ(result.report.method, Method::value_iteration);
  EXPECT_FALSE(result.bounded());
  EXPECT_EQ(result.report.stats.iterations, 7u);
}

// The truth lies between the bounds: each sound method against value iteration run
// to a far tighter precision.
TEST(SolveChunked, IntervalBoundsContainTheFixedPoint) {
  MaybeSystem system = mixed_system();
  for (auto [direction, method] : {std::pair{Optimization::minimize, Method::interval_iteration},
                                   std::pair{Optimization::maximize, Method::interval_iteration},
                                   std::pair{Optimization::minimize, Method::optimistic_value_iteration},
                                   std::pair{Optimization::maximize, Method::optimistic_value_iteration}}) {
    SCOPED_TRACE(to_string(method));
    SolveRequest exact = request_for(system, direction, Method::value_iteration);
    exact.options.stop.epsilon = 1e-15;
    SolveResult truth = solve(exact, {SolverKind::cpu});
    SolveRequest sound = request_for(system, direction, method);
    sound.options.stop.epsilon = 1e-6;
    for (bool guessed : {false, true}) {
      if (guessed) sound.known_upper_bound.reset();
      SolveResult bounds = solve(sound, {SolverKind::cpu});
      for (std::uint32_t i = 0; i < system.num_states(); ++i) {
        ASSERT_LE(bounds.lower[i], truth.lower[i] + 1e-12) << i;
        ASSERT_GE(bounds.upper[i], truth.lower[i] - 1e-12) << i;
        ASSERT_LE(bounds.upper[i] - bounds.lower[i], 2e-6 + 1e-12) << i;
      }
    }
  }
}

TEST(SolveChunked, GpuRequiredWithoutDeviceIsAnError) {
  if (have_device()) GTEST_SKIP() << "there is a device here";
  MaybeSystem system = mixed_system();
  EXPECT_THROW(solve(request_for(system, Optimization::minimize, Method::value_iteration), {SolverKind::gpu}),
               std::runtime_error);
}

// --- on the device -------------------------------------------------------------------

TEST(DeviceSolve, ChunkedAndUnchunkedAgreeWithTheCpu) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  MaybeSystem system = mixed_system();
  for (Method method : kMethods) {
    for (auto direction : {Optimization::minimize, Optimization::maximize}) {
      SolveRequest request = request_for(system, direction, method);
      SolveResult cpu = solve(request, {SolverKind::cpu});
      SolveResult whole = solve(request, {SolverKind::gpu});
      ASSERT_EQ(whole.report.chunks.size(), 1u);
      EXPECT_TRUE(whole.report.chunks[0].on_gpu);
      expect_near_all(whole.lower, cpu.lower, 1e-10);
      expect_near_all(whole.upper, cpu.upper, 1e-10);
      // A budget that forces many chunks, with the big block too large for any of them.
      std::size_t whole_bytes = whole.report.chunks[0].footprint_bytes;
      SolveResult chunked = solve(request, {SolverKind::gpu, whole_bytes / 40});
      EXPECT_GE(chunked.report.chunks.size(), 8u);
      bool some_on_cpu = false;
      for (const ChunkReport& c : chunked.report.chunks) some_on_cpu |= !c.on_gpu;
      EXPECT_TRUE(some_on_cpu) << "the big SCC exceeds the budget and must go to the CPU";
      expect_near_all(chunked.lower, cpu.lower, 1e-10);
      expect_near_all(chunked.upper, cpu.upper, 1e-10);
      // The memory accounting: one chunk holds its footprint; chunks, one at a time,
      // within the budget; the CPU none.
      EXPECT_EQ(whole.report.peak_device_bytes, whole_bytes);
      EXPECT_GT(chunked.report.peak_device_bytes, 0u);
      EXPECT_LE(chunked.report.peak_device_bytes, whole_bytes / 40);
      EXPECT_EQ(cpu.report.peak_device_bytes, 0u);
      EXPECT_GT(whole.report.peak_host_bytes, 0u);
    }
  }
}

// A system whose values are indices (SystemValues::as_model) goes to the device so:
// the first chunk its own arrays, the others cut on the device or prepared on the
// host, in its form. The solve is the
// CPU's, which reads the indices too.
TEST(DeviceSolve, IndexedChunksAgreeWithTheCpu) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  MaybeSystem system = few_valued_system();
  ASSERT_TRUE(system.values.compress());
  for (Method method : kMethods) {
    for (auto direction : {Optimization::minimize, Optimization::maximize}) {
      SCOPED_TRACE(to_string(method));
      SolveRequest request = request_for(system, direction, method);
      SolveResult cpu = solve(request, {SolverKind::cpu});
      SolveResult whole = solve(request, {SolverKind::gpu});
      ASSERT_EQ(whole.report.chunks.size(), 1u);
      EXPECT_EQ(whole.report.chunks[0].value_bytes, 1u);
      expect_near_all(whole.lower, cpu.lower, 1e-10);
      expect_near_all(whole.upper, cpu.upper, 1e-10);
      // The chunks after the first cut on the device (the default), or copied on the host.
      for (bool cuts : {true, false}) {
        SCOPED_TRACE(cuts ? "cut on the device" : "copied on the host");
        DeviceOptions budgeted{SolverKind::gpu, whole.report.chunks[0].footprint_bytes / 40};
        budgeted.chunks_cut_on_device = cuts;
        SolveResult chunked = solve(request, budgeted);
        std::size_t indexed = 0, cut = 0;
        for (const ChunkReport& c : chunked.report.chunks) {
          indexed += c.on_gpu && c.value_bytes == 1;
          cut += c.cut_on_device;
        }
        EXPECT_GE(indexed, 2u);
        EXPECT_EQ(cut >= 2u, cuts) << cut << " chunks cut";
        expect_near_all(chunked.lower, cpu.lower, 1e-10);
        expect_near_all(chunked.upper, cpu.upper, 1e-10);
      }
    }
  }
}

// With --gpus N (N >= 2) the chunks take turns over the GPUs (the next one uploaded
// to the next GPU while one is solved): the same answers, bit for bit, as on one GPU,
// the chunks on every GPU, cut there or copied on the host.
TEST(DeviceSolve, ChunksTakeTurnsOverTheGpus) {
  if (gpu::usable_device_count() < 2) GTEST_SKIP() << "fewer than two CUDA devices";
  MaybeSystem system = few_valued_system();
  ASSERT_TRUE(system.values.compress());
  for (Method method : kMethods) {
    SCOPED_TRACE(to_string(method));
    const SolveRequest request = request_for(system, Optimization::maximize, method);
    const std::size_t whole = solve(request, {SolverKind::gpu}).report.chunks[0].footprint_bytes;
    for (bool cuts : {true, false}) {
      SCOPED_TRACE(cuts ? "cut on the devices" : "copied on the host");
      DeviceOptions one{SolverKind::gpu, whole / 40};
      one.chunks_cut_on_device = cuts;
      one.gpus = 1;
      DeviceOptions all = one;
      all.gpus = static_cast<std::uint32_t>(gpu::usable_device_count());
      const SolveResult alone = solve(request, one);
      const SolveResult turns = solve(request, all);
      std::set<int> gpus_alone, gpus_turns;
      int on_gpu = 0;
      for (const ChunkReport& c : alone.report.chunks) {
        if (c.on_gpu) gpus_alone.insert(c.gpu);
        on_gpu += c.on_gpu;
      }
      for (const ChunkReport& c : turns.report.chunks) {
        if (c.on_gpu) gpus_turns.insert(c.gpu);
      }
      EXPECT_EQ(gpus_alone, std::set<int>{0});
      EXPECT_EQ(gpus_turns.size(), static_cast<std::size_t>(std::min(gpu::usable_device_count(), on_gpu)));
      EXPECT_TRUE(std::equal(alone.lower.begin(), alone.lower.end(), turns.lower.begin(), turns.lower.end()));
      EXPECT_TRUE(std::equal(alone.upper.begin(), alone.upper.end(), turns.upper.begin(), turns.upper.end()));
    }
  }
}

// A system without cycles under every sound method: value iteration's one exact pass,
// the same bits, and no bounds (they are the values); the requested method reported.
// One 3-state cycle or self-loop among its SCCs, and the bounds come back.
TEST(SolveWithoutCycles, IsValueIterationsExactPassUnderEverySoundMethod) {
  const MaybeSystem acyclic = test::layered_system(6, 37, 8, /*cycles=*/false);
  const MaybeSystem cyclic = test::layered_system(6, 37, 8, /*cycles=*/true);
  ASSERT_TRUE(without_cycles(acyclic));
  ASSERT_FALSE(without_cycles(cyclic));
  for (Optimization direction : {Optimization::minimize, Optimization::maximize}) {
    const SolveResult plain = solve(request_for(acyclic, direction, Method::value_iteration), {SolverKind::cpu});
    for (Method method : {Method::interval_iteration, Method::optimistic_value_iteration, Method::policy_iteration,
                          Method::automatic}) {
      SCOPED_TRACE(std::string(to_string(method)) + (direction == Optimization::minimize ? " min" : " max"));
      const SolveResult exact = solve(request_for(acyclic, direction, method), {SolverKind::cpu});
      EXPECT_FALSE(exact.bounded());
      EXPECT_EQ(exact.lower, plain.lower);
      EXPECT_EQ(exact.report.method, method);
      EXPECT_EQ(exact.report.stats.iterations, 0u);
      EXPECT_TRUE(solve(request_for(cyclic, direction, method), {SolverKind::cpu}).bounded());
    }
  }
}

// Singleton SCCs, one of them with a self-loop: not without cycles.
TEST(SolveWithoutCycles, ASelfLoopIsACycle) {
  const MaybeSystem singletons = test::random_system(50, 5, std::vector<std::uint32_t>(50, 1));
  ASSERT_EQ(singletons.num_sccs(), singletons.num_states());
  EXPECT_EQ(without_cycles(singletons), count_iterated(singletons, 0, singletons.num_sccs()) == 0);
  EXPECT_GT(count_iterated(singletons, 0, singletons.num_sccs()), 0u) << "the random blocks must have a self-loop";
}

// An acyclic chunk goes to the device, one pass per level, where levels are asked
// for (or, automatically, from millions of states: this one is too small); else it
// stays on the CPU, where one pass solves it, never iterated as a whole.
TEST(DeviceSolve, AcyclicChunksGoByLevelsNeverAsAWhole) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  // Blocks of one state, self-loops removed: every column points to an earlier state.
  MaybeSystem generated = test::random_system(50, 5, std::vector<std::uint32_t>(50, 1));
  MaybeSystem system = generated;
  system.columns.clear();
  system.values = CompactValues();
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
  SolveRequest request = request_for(system, Optimization::maximize, Method::value_iteration);
  const SolveResult cpu = solve(request, {SolverKind::cpu});
  SolveResult by_levels = solve(request, {SolverKind::gpu, std::nullopt, {}, DeviceSchedule::levels});
  ASSERT_EQ(by_levels.report.chunks.size(), 1u);
  EXPECT_TRUE(by_levels.report.chunks[0].on_gpu);
  EXPECT_TRUE(by_levels.report.chunks[0].by_levels);
  expect_near_all(by_levels.lower, cpu.lower, 1e-13);
  // With bounds, exact passes over the whole system bring the lower iterate back
  // alone, and the solution carries no bounds: they are the values (on the CPU too).
  const SolveRequest sound = request_for(system, Optimization::maximize, Method::optimistic_value_iteration);
  const SolveResult cpu_exact = solve(sound, {SolverKind::cpu});
  const SolveResult exact = solve(sound, {SolverKind::gpu, std::nullopt, {}, DeviceSchedule::levels});
  EXPECT_FALSE(cpu_exact.bounded());
  EXPECT_FALSE(exact.bounded());
  expect_near_all(exact.lower, cpu_exact.lower, 1e-13);
  for (DeviceSchedule schedule : {DeviceSchedule::automatic, DeviceSchedule::whole}) {
    SolveResult on_cpu = solve(request, {SolverKind::gpu, std::nullopt, {}, schedule});
    ASSERT_EQ(on_cpu.report.chunks.size(), 1u);
    EXPECT_FALSE(on_cpu.report.chunks[0].on_gpu);
    expect_near_all(on_cpu.lower, cpu.lower, 0.0);
  }
}

// Levels with cycles and wide acyclic levels, whole and in chunks that cut levels,
// by levels and as a whole, every method: the CPU's values.
TEST(DeviceSolve, ByLevelsAgreesWithTheCpu) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const MaybeSystem system = test::layered_system(9, 3001, 7);
  for (Method method : kMethods) {
    for (auto direction : {Optimization::minimize, Optimization::maximize}) {
      SCOPED_TRACE(to_string(method));
      const SolveRequest request = request_for(system, direction, method);
      const SolveResult cpu = solve(request, {SolverKind::cpu});
      for (DeviceSchedule schedule : {DeviceSchedule::levels, DeviceSchedule::whole}) {
        const SolveResult whole = solve(request, {SolverKind::gpu, std::nullopt, {}, schedule});
        ASSERT_EQ(whole.report.chunks.size(), 1u);
        EXPECT_EQ(whole.report.chunks[0].by_levels, schedule == DeviceSchedule::levels);
        expect_near_all(whole.lower, cpu.lower, 1e-10);
        expect_near_all(whole.upper, cpu.upper, 1e-10);
        const SolveResult chunked = solve(request, {SolverKind::gpu, whole.report.chunks[0].footprint_bytes / 7, {}, schedule});
        EXPECT_GE(chunked.report.chunks.size(), 7u);
        expect_near_all(chunked.lower, cpu.lower, 1e-10);
        expect_near_all(chunked.upper, cpu.upper, 1e-10);
      }
    }
  }
}

// The benchmark instances on the GPU, unchunked and in at least 8 chunks, against
// PRISM's sound reference values.
TEST(DeviceSolve, BenchmarkInstancesMatchReference) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  if (!test::have_shared()) GTEST_SKIP();
  for (const char* name : {"coin4_2", "csma2_6", "leader5", "wlan2", "wlan2_collide"}) {
    const nlohmann::json& expected = test::reference().at(name);
    for (std::optional<std::size_t> limit : {std::optional<std::size_t>{}, std::optional<std::size_t>{30000}}) {
      pipeline::CheckOptions options = test::reference_check(expected);
      options.device = {SolverKind::gpu, limit};
      pipeline::CheckReport report = pipeline::run_check(options);
      test::expect_matches_reference(report, expected);
      for (const auto& outcome : report.properties) {
        // Graph-only answers (P>=1, filters of state formulas) solve nothing; a
        // step-bounded one is a single block, which stays whole.
        const auto& c = outcome.computation;
        if (!c || c->qualitative.maybe == 0 || c->solve.stats.iterations == 0) continue;
        EXPECT_FALSE(c->solve.device.empty());
        if (limit && c->qualitative.maybe > 5000 && !c->step_bounded) {
          EXPECT_GE(c->solve.chunks.size(), 8u) << name;
        }
      }
    }
  }
}

}  // namespace
}  // namespace mdpvi
