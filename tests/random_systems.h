#pragma once
// Generated maybe-state systems with the shapes that break kernels: odd sizes, empty
// rows, one-row groups, many rows, rows longer than a warp and than a block,
// self-loops; optionally split into SCC-like blocks in solving order.
#include "engine/solve/maybe_system.h"
#include "gpu/device_solver.h"

#include <random>
#include <utility>
#include <vector>

namespace mdpvi::test {

// A whole system as the device takes a chunk (its arrays, not copied).
inline gpu::ChunkMatrix matrix_of(const MaybeSystem& system) {
  return {system.num_states(),      system.num_rows(),     system.columns.size(), system.row_group_starts.data(),
          system.row_starts.data(), system.columns.data(), device_view(system.values)};
}

// A system of no states: the offsets' leading zeros, ready for rows to be appended.
inline MaybeSystem empty_system() {
  MaybeSystem system;
  system.row_group_starts.push_back(0);
  system.row_starts.push_back(0);
  system.scc_starts.push_back(0);
  return system;
}

// The next state of a system built state by state, with one row: its entries (column,
// value), its b, and itself as its model state.
inline void append_one_row_state(MaybeSystem& system, const std::vector<std::pair<std::uint32_t, double>>& entries,
                                 double constant) {
  for (const auto& [column, value] : entries) {
    system.columns.push_back(column);
    system.values.push_back(value);
  }
  system.row_constants.push_back(constant);
  system.row_starts.push_back(system.columns.size());
  system.row_group_starts.push_back(system.row_constants.size());
  system.model_states.push_back(static_cast<std::uint32_t>(system.model_states.size()));
}

// Each row's probabilities sum to less than 1 (the rest leaves to no-states), so the
// Bellman operator contracts and every solver must reach the same fixed point.
// block_sizes: consecutive blocks; a state's columns lie in its own block or earlier
// ones. Empty: one block of n states.
inline MaybeSystem random_system(std::uint32_t n, std::uint32_t seed, std::vector<std::uint32_t> block_sizes = {}) {
  if (block_sizes.empty()) block_sizes = {n};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  MaybeSystem system = empty_system();
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

// A system in levels, as the SCC decompositions order them: `levels` levels of `width`
// states, each state's columns in lower levels only, except within its own SCC. Most
// SCCs are single states without self-loops (solved by one update); every seventh
// position starts a cycle of three states, and every eleventh state has a self-loop.
// Rows: empty, one-row groups, many rows, rows longer than a warp.
// Without cycles, every SCC is a single state without a self-loop: every level acyclic.
inline MaybeSystem layered_system(std::uint32_t levels, std::uint32_t width, std::uint32_t seed, bool cycles = true) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  MaybeSystem system = empty_system();
  system.level_starts.push_back(0);
  for (std::uint32_t level = 0; level < levels; ++level) {
    const std::uint32_t first = level * width;
    std::uniform_int_distribution<std::uint32_t> below(0, first == 0 ? 0 : first - 1);
    for (std::uint32_t i = 0; i < width;) {
      const std::uint32_t size = cycles && i % 7 == 0 && i + 3 <= width ? 3 : 1;
      for (std::uint32_t j = 0; j < size; ++j) {
        const std::uint32_t s = first + i + j;
        const std::uint32_t rows = s % 5 == 0 ? 1 : 1 + rng() % 4;
        for (std::uint32_t r = 0; r < (s % 89 == 3 ? 40u : rows); ++r) {
          std::uint32_t length = first == 0 ? 0 : rng() % 4;
          if (s % 61 == 7 && r == 0 && first > 0) length = 35;  // longer than a warp
          const double mass = 0.9 * unit(rng);
          std::vector<std::uint32_t> columns;
          for (std::uint32_t k = 0; k < length; ++k) columns.push_back(below(rng));
          if (size == 3 && r == 0) columns.push_back(first + i + (j + 1) % 3);  // the cycle
          if (cycles && s % 11 == 0 && r == 0) columns.push_back(s);           // a self-loop
          for (std::uint32_t c : columns) {
            system.columns.push_back(c);
            system.values.push_back(mass / static_cast<double>(columns.size()));
          }
          system.row_constants.push_back((1.0 - mass) * unit(rng));
          system.row_starts.push_back(system.columns.size());
        }
        system.row_group_starts.push_back(system.row_constants.size());
        system.model_states.push_back(s);
      }
      i += size;
      system.scc_starts.push_back(first + i);
    }
    system.level_starts.push_back(system.scc_starts.size() - 1);
  }
  return system;
}

// The system's first row of each state (an empty row for a state without any): a
// DTMC's system, with the random shapes' long rows, self-loops and blocks.
inline MaybeSystem first_rows_only(const MaybeSystem& system) {
  MaybeSystem dtmc = empty_system();
  for (std::uint32_t s = 0; s < system.num_states(); ++s) {
    const std::uint64_t rows = system.row_group_starts[s + 1] - system.row_group_starts[s];
    const std::uint64_t r = system.row_group_starts[s];
    for (std::uint64_t k = rows ? system.row_starts[r] : 0; rows && k < system.row_starts[r + 1]; ++k) {
      dtmc.columns.push_back(system.columns[k]);
      dtmc.values.push_back(system.values[k]);
    }
    dtmc.row_constants.push_back(rows ? system.row_constants[r] : 0.0);
    dtmc.row_starts.push_back(dtmc.columns.size());
    dtmc.row_group_starts.push_back(dtmc.row_constants.size());
  }
  dtmc.scc_starts = system.scc_starts;
  dtmc.level_starts = system.level_starts;
  dtmc.model_states = system.model_states;
  return dtmc;
}

}  // namespace mdpvi::test
