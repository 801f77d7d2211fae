#include "engine/topological_solver.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace mdpvi {

namespace {

bool has_self_loop(const MaybeSystem& system, std::uint64_t state) {
  for (std::uint64_t k = system.row_starts[system.row_group_starts[state]];
       k < system.row_starts[system.row_group_starts[state + 1]]; ++k) {
    if (system.columns[k] == state) return true;
  }
  return false;
}

}  // namespace

MaybeSolution solve_topological(const MaybeSystem& system, Optimization direction, const SolverOptions& options) {
  MaybeSolution solution;
  // Two buffers, swapped after each sweep; outside the SCC being solved both hold the
  // same, final values, so a sweep may read any column from either.
  std::vector<double> current(system.num_states(), 0.0);
  std::vector<double> next(system.num_states(), 0.0);
  SolveStats& stats = solution.stats;

  for (std::size_t scc = 0; scc < system.num_sccs(); ++scc) {
    StateRange range{system.scc_starts[scc], system.scc_starts[scc + 1]};
    stats.largest_scc = std::max(stats.largest_scc, range.size());
    if (range.size() == 1 && !has_self_loop(system, range.begin)) {
      bellman_sweep_reference(system, range, direction, options.criterion, current.data(), next.data());
      current[range.begin] = next[range.begin];
      continue;
    }
    ++stats.iterated_sccs;
    std::uint64_t sweeps = 0;
    double change = 0.0;
    do {
      change = bellman_sweep_parallel(system, range, direction, options.criterion, current.data(), next.data());
      std::swap(current, next);
      ++sweeps;
    } while (change >= options.epsilon && sweeps < options.max_iterations);
    std::copy(current.begin() + range.begin, current.begin() + range.end, next.begin() + range.begin);
    if (change >= options.epsilon) {
      stats.converged = false;
      spdlog::warn("value iteration stopped after {} iterations (--max-iters) on an SCC of {} states; "
                   "last change {:.3g} >= epsilon {:.3g}: the result may be inaccurate",
                   sweeps, range.size(), change, options.epsilon);
    }
    stats.iterations += sweeps;
    stats.max_scc_iterations = std::max(stats.max_scc_iterations, sweeps);
  }
  solution.values = std::move(current);
  return solution;
}

}  // namespace mdpvi
