#pragma once
// Generated maybe-state systems with the shapes that break kernels: odd sizes, empty
// rows, one-row groups, many rows, rows longer than a warp and than a block,
// self-loops; optionally split into SCC-like blocks in solving order.
#include "engine/solve/maybe_system.h"

#include <random>

namespace mdpvi::test {

// Each row's probabilities sum to less than 1 (the rest leaves to no-states), so the
// Bellman operator contracts and every solver must reach the same fixed point.
// block_sizes: consecutive blocks; a state's columns lie in its own block or earlier
// ones. Empty: one block of n states.
inline MaybeSystem random_system(std::uint32_t n, std::uint32_t seed, std::vector<std::uint32_t> block_sizes = {}) {
  if (block_sizes.empty()) block_sizes = {n};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  MaybeSystem system;
  system.row_group_starts.push_back(0);
  system.row_starts.push_back(0);
  system.scc_starts.push_back(0);
  std::uint32_t s = 0;
  for (std::uint32_t size : block_sizes) {
    std::uint32_t block_end = s + size;
    std::uniform_int_distribution<std::uint32_t> column(0, block_end - 1);
    for (; s < block_end; ++s) {
      std::uint32_t rows = s % 7 == 0 ? 1 : 1 + rng() % 5;
      if (s % 97 == 5) rows = 40;  // a state with many choices
      for (std::uint32_t r = 0; r < rows; ++r) {
        std::uint32_t length = rng() % 4;             // 0 = empty row: b(r) only
        if (s % 101 == 3 && r == 0) length = 33;      // longer than a warp
        if (s % 1009 == 7 && r == 0) length = 1500;   // longer than a block
        double mass = 0.95 * unit(rng);
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
    system.scc_starts.push_back(s);
  }
  set_one_level_per_scc(system);
  return system;
}

}  // namespace mdpvi::test
