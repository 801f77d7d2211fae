// The device's batch loop (gpu/batch_loop.h) on the host, with a simulated device:
// sweep k "converges" from sweep `converged_at` on. Checks what the device methods
// rely on: each batch is sent before it is read, a batch is read while the next one
// is in flight (their slots never overlap), the sweeps past convergence stay within
// the bound, and a fixed number of sweeps runs exactly, with nothing read.
#include "gpu/batch_loop.h"

#include <gtest/gtest.h>

#include <vector>

namespace mdpvi::gpu::detail {
namespace {

struct SimulatedRun {
  struct Batch {
    std::size_t first, count;
  };
  std::uint64_t converged_at = 0;  // the first sweep (1-based) whose result says "converged"
  std::vector<std::uint64_t> sweep_in_slot = std::vector<std::uint64_t>(kBatchSlots, 0);
  std::uint64_t launched = 0, reads = 0;
  std::vector<Batch> unread;  // sent, in order
  bool overwritten_unread = false;

  bool overlaps_unread(std::size_t slot) const {
    for (const Batch& b : unread) {
      if (slot >= b.first && slot < b.first + b.count) return true;
    }
    return false;
  }

  std::uint64_t run(std::uint64_t max_sweeps, bool read_results) {
    return run_in_batches(
        max_sweeps, read_results,
        [&](std::size_t slot) {
          // A sweep must not write over results sent and not read yet.
          overwritten_unread = overwritten_unread || overlaps_unread(slot);
          sweep_in_slot.at(slot) = ++launched;
        },
        [&](std::size_t first, std::size_t count) { unread.push_back({first, count}); },
        [&](std::size_t first, std::size_t count) {
          ++reads;
          EXPECT_FALSE(unread.empty()) << "a read with nothing sent";
          if (unread.empty()) return true;
          EXPECT_EQ(unread.front().first, first) << "batches are read in the order sent";
          EXPECT_EQ(unread.front().count, count);
          unread.erase(unread.begin());
          bool done = false;
          for (std::size_t slot = first; slot < first + count; ++slot) done = done || sweep_in_slot[slot] >= converged_at;
          return done;
        });
  }
};

TEST(BatchLoop, StopsWithinATenthPastConvergence) {
  for (std::uint64_t converged_at : {1u, 2u, 7u, 19u, 20u, 21u, 100u, 999u, 1000u, 5000u, 123457u}) {
    SimulatedRun r;
    r.converged_at = converged_at;
    const std::uint64_t sweeps = r.run(10'000'000, true);
    EXPECT_EQ(sweeps, r.launched);
    EXPECT_GE(sweeps, converged_at) << "stopped before convergence";
    EXPECT_LE(sweeps, converged_at + converged_at / 10 + 2) << "converged at " << converged_at;
    EXPECT_FALSE(r.overwritten_unread) << "a batch's slots were reused before it was read";
    EXPECT_LE(r.unread.size(), 1u) << "at most the batch running when the loop stopped is left unread";
    if (converged_at >= 5000) {
      EXPECT_LE(r.reads * 10, converged_at) << "batches must grow: " << r.reads << " reads";
    }
  }
}

TEST(BatchLoop, ReadsTheLastBatchWhenTheBudgetEnds) {
  for (std::uint64_t budget : {1u, 2u, 3u, 50u, 777u}) {
    SimulatedRun r;
    r.converged_at = budget + 100;  // never within the budget
    EXPECT_EQ(r.run(budget, true), budget);
    EXPECT_EQ(r.launched, budget);
    // Every batch is read, the last one after the loop.
    std::uint64_t batches = 0, sweeps = 0;
    while (sweeps < budget) {
      sweeps += std::min<std::uint64_t>(std::clamp<std::uint64_t>(sweeps / kBatchGrowth, 1, kMaxBatch), budget - sweeps);
      ++batches;
    }
    EXPECT_EQ(r.reads, batches) << "budget " << budget;
  }
}

TEST(BatchLoop, AFixedNumberOfSweepsReadsNothing) {
  SimulatedRun r;
  r.converged_at = 1;
  EXPECT_EQ(r.run(5, false), 5u);
  EXPECT_EQ(r.launched, 5u);
  EXPECT_EQ(r.reads, 0u);
  EXPECT_EQ(r.run(0, true), 0u);
}

}  // namespace
}  // namespace mdpvi::gpu::detail
