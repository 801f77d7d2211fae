// A range of a system cut into parts that exchange what they read
// (engine/solve/partitioned_system.h, engine/solve/scc_sweeps.h): the parts cover the
// range, each holds exactly its states' rows, and solving in N parts answers the same
// bit for bit as one, by every method, on odd sizes, empty rows, one-row groups, rows
// longer than a warp, self-loops, long chains and more parts than states.
#include "engine/solve/chunk_driver.h"
#include "engine/solve/partitioned_system.h"
#include "engine/solve/scc_sweeps.h"
#include "gpu/partitioned_sweeps.h"
#include "partition_cases.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace mdpvi {
namespace {

const std::uint32_t kPartCounts[] = {1, 2, 3, 7, 64};

std::vector<MaybeSystem> systems() { return test::partition_cases(); }

TEST(BalancedParts, CoverTheRangeInOrderWithEvenWork) {
  for (const MaybeSystem& system : systems()) {
    const StateRange range{0, system.num_states()};
    for (std::uint32_t count : kPartCounts) {
      const std::vector<StateRange> parts = balanced_parts(system, range, count);
      ASSERT_EQ(parts.size(), count);
      EXPECT_EQ(parts.front().begin, range.begin);
      EXPECT_EQ(parts.back().end, range.end);
      std::uint64_t heaviest_state = 0;
      for (std::uint64_t s = range.begin; s < range.end; ++s) {
        const std::uint64_t rows = system.row_group_starts[s + 1] - system.row_group_starts[s];
        heaviest_state = std::max(heaviest_state, rows + system.row_starts[system.row_group_starts[s + 1]] -
                                                      system.row_starts[system.row_group_starts[s]]);
      }
      const std::uint64_t total = system.row_constants.size() + system.columns.size();
      for (std::uint32_t p = 0; p < count; ++p) {
        if (p > 0) ASSERT_EQ(parts[p].begin, parts[p - 1].end);
        ASSERT_LE(parts[p].begin, parts[p].end);
        const std::uint64_t work = system.row_group_starts[parts[p].end] - system.row_group_starts[parts[p].begin] +
                                   system.row_starts[system.row_group_starts[parts[p].end]] -
                                   system.row_starts[system.row_group_starts[parts[p].begin]];
        EXPECT_LE(work, total / count + heaviest_state + 1) << count << " parts, part " << p;
      }
    }
  }
}

// Each part's rows are the system's, entry for entry, its columns pointing at the same
// states through its own numbering; each halo slot is filled by exactly one block or
// lies outside the range.
TEST(PartitionRange, PartsHoldTheirStatesRowsAndTheHaloTheyRead) {
  const MaybeSystem system = test::random_system(2000, 5, {3, 1500, 1, 496});
  const StateRange range{3, 1503};  // the big block; its rows read states before it
  for (std::uint32_t count : kPartCounts) {
    const PartitionedRange partitioned = partition_range(system, range, count);
    for (const SystemPart& part : partitioned.parts) {
      const MaybeSystem& local = part.local;
      const std::uint64_t first_row = system.row_group_starts[part.states.begin];
      const std::uint64_t first_entry = system.row_starts[first_row];
      ASSERT_EQ(local.row_group_starts.size(), part.own() + 1);
      for (std::uint64_t k = 0; k < local.columns.size(); ++k) {
        const std::uint32_t slot = local.columns[k];
        const std::uint64_t state = slot < part.own() ? part.states.begin + slot : part.halo[slot - part.own()];
        ASSERT_EQ(state, system.columns[first_entry + k]);
        ASSERT_EQ(local.values[k], system.values[first_entry + k]);
      }
      std::vector<bool> filled(part.halo.size(), false);
      for (const HaloBlock& block : part.from_parts) {
        const SystemPart& source = partitioned.parts[block.source_part];
        for (std::size_t j = 0; j < block.source_locals.size(); ++j) {
          ASSERT_FALSE(filled[block.first_slot + j]);
          filled[block.first_slot + j] = true;
          ASSERT_EQ(source.states.begin + block.source_locals[j], part.halo[block.first_slot + j]);
        }
      }
      for (std::size_t slot = 0; slot < part.halo.size(); ++slot) {
        const bool inside = part.halo[slot] >= range.begin && part.halo[slot] < range.end;
        EXPECT_EQ(filled[slot], inside) << "slot " << slot;
      }
    }
  }
}

SolveRequest request_for(const MaybeSystem& system, Optimization direction, Method method, std::uint32_t parts) {
  SolverOptions options{method, {ConvergenceCriterion::relative, 1e-9, 1000000}};
  options.partitions = parts;
  return {.system = system, .direction = direction, .options = options, .known_upper_bound = 1.0};
}

// Whole solves on the CPU: every method, both directions, against one part, bit for bit.
TEST(PartitionedSolve, IsEquivalentToOnePart) {
  for (const MaybeSystem& system : systems()) {
    for (Method method : {Method::value_iteration, Method::interval_iteration, Method::optimistic_value_iteration}) {
      for (Optimization direction : {Optimization::minimize, Optimization::maximize}) {
        const SolveResult one = solve(request_for(system, direction, method, 1), {SolverKind::cpu});
        for (std::uint32_t count : {2u, 7u, 64u}) {
          SCOPED_TRACE(testing::Message() << system.num_states() << " states, " << to_string(method) << ", " << count
                                          << " parts");
          const SolveResult parts = solve(request_for(system, direction, method, count), {SolverKind::cpu});
          EXPECT_EQ(parts.lower, one.lower);
          EXPECT_EQ(parts.upper, one.upper);
          EXPECT_EQ(parts.report.stats.max_scc_iterations, one.report.stats.max_scc_iterations);
        }
      }
    }
  }
}

// The parts on the devices (several on one device where there are fewer devices than
// parts) against the parts on the CPU: every method, both directions, bit for bit (the
// device's sums are made as the CPU's, without fused multiply-adds).
// (The long chain is left out: its thousands of sweeps each wait for every part.)
TEST(DeviceParts, AreEquivalentToTheCpuParts) {
  if (gpu::usable_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::vector<MaybeSystem> all = systems();
  all.pop_back();
  for (const MaybeSystem& system : all) {
    for (Method method : {Method::value_iteration, Method::interval_iteration, Method::optimistic_value_iteration}) {
      for (Optimization direction : {Optimization::minimize, Optimization::maximize}) {
        for (std::uint32_t count : {2u, 5u}) {
          SCOPED_TRACE(testing::Message() << system.num_states() << " states, " << to_string(method) << ", " << count
                                          << " parts");
          const SolveResult cpu = solve(request_for(system, direction, method, count), {SolverKind::cpu});
          SolveRequest on_devices = request_for(system, direction, method, count);
          on_devices.options.partitions_on_devices = true;
          const SolveResult device = solve(on_devices, {SolverKind::cpu});
          EXPECT_EQ(device.lower, cpu.lower);
          EXPECT_EQ(device.upper, cpu.upper);
          EXPECT_EQ(device.report.stats.max_scc_iterations, cpu.report.stats.max_scc_iterations);
        }
      }
    }
  }
}

// The sweeps one at a time, each step's iterates against the range's.
TEST(SccSweeps, PartsStepAsTheRangeDoes) {
  const MaybeSystem system = test::random_system(1025, 9);
  const StateRange range{0, system.num_states()};
  for (std::uint32_t count : kPartCounts) {
    SolveRequest one = request_for(system, Optimization::maximize, Method::interval_iteration, 1);
    SolveRequest many = request_for(system, Optimization::maximize, Method::interval_iteration, count);
    Iterates x_one(one, true), x_many(many, true);
    x_one.make_second_buffers();
    x_many.make_second_buffers();
    const auto sweeps_one = make_scc_sweeps(one, range, x_one);
    const auto sweeps_many = make_scc_sweeps(many, range, x_many);
    SCOPED_TRACE(testing::Message() << count << " parts");
    test::expect_steps_alike(*sweeps_one, *sweeps_many, x_one, x_many);
  }
}

}  // namespace
}  // namespace mdpvi
