#pragma once
// The systems the partitioned solves are tested on (tests/partitioned_system_test.cpp,
// in one process; tests/mpi/rank_sweeps_test.cpp, over MPI ranks): odd sizes, one
// state, rows longer than a warp, SCC-like blocks, and a long chain.
#include "engine/solve/method_policy.h"
#include "engine/solve/scc_sweeps.h"
#include "random_systems.h"

#include <gtest/gtest.h>

#include <vector>

namespace mdpvi::test {

// A chain of n states, each with a self-loop and a step back to 0: one SCC as deep as it
// is long.
inline MaybeSystem long_chain(std::uint32_t n) {
  MaybeSystem system = empty_system();
  for (std::uint32_t s = 0; s < n; ++s) {
    // b of 0.01: no value near 0, relative changes stay meaningful.
    append_one_row_state(system, {{s, 0.3}, {(s + 1) % n, 0.6}, {0, 0.05}}, 0.01);
  }
  system.scc_starts.push_back(n);
  set_one_level_per_scc(system);
  return system;
}

inline std::vector<MaybeSystem> partition_cases() {
  std::vector<MaybeSystem> all;
  for (std::uint32_t n : {1u, 2u, 33u, 1025u}) all.push_back(random_system(n, n + 1));
  all.push_back(random_system(2000, 5, {3, 1500, 1, 496}));  // blocks: SCC-like ranges
  all.push_back(long_chain(3001));
  return all;
}

// The sweeps one at a time, in parts (many) and over the range (one): every step's
// change, width and flags alike, then the iterates after sync (x_many against x_one).
inline void expect_steps_alike(SccSweeps& one, SccSweeps& many, const Iterates& x_one, const Iterates& x_many) {
  for (int i = 0; i < 5; ++i) ASSERT_EQ(many.sweep_lower(), one.sweep_lower());
  one.keep_lower_in_upper();
  many.keep_lower_in_upper();
  for (int i = 0; i < 3; ++i) ASSERT_EQ(many.sweep_lower(), one.sweep_lower());
  const GuessParameters guess{0.9, 1.0, false};
  one.guess_upper(1e-3, guess);
  many.guess_upper(1e-3, guess);
  for (int i = 0; i < 5; ++i) {
    const IntervalSweep a = one.sweep_both(), b = many.sweep_both();
    ASSERT_EQ(a.width, b.width);
    ASSERT_EQ(a.upper_raised, b.upper_raised);
    ASSERT_EQ(a.crossed, b.crossed);
  }
  one.fill_upper(1.0);
  many.fill_upper(1.0);
  ASSERT_EQ(one.sweep_both().width, many.sweep_both().width);
  one.sync();
  many.sync();
  EXPECT_EQ(x_many.lower, x_one.lower);
  EXPECT_EQ(x_many.upper, x_one.upper);
}

}  // namespace mdpvi::test
