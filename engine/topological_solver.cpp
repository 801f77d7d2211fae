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

bool is_trivial_scc(const MaybeSystem& system, std::size_t scc) {
  return system.scc_starts[scc + 1] - system.scc_starts[scc] == 1 && !has_self_loop(system, system.scc_starts[scc]);
}

void solve_sccs_on_cpu(const MaybeSystem& system, Optimization direction, const SolverOptions& options,
                       std::size_t first_scc, std::size_t end_scc, std::vector<double>& current,
                       std::vector<double>& next, SolveStats& stats) {
  for (std::size_t scc = first_scc; scc < end_scc; ++scc) {
    StateRange range{system.scc_starts[scc], system.scc_starts[scc + 1]};
    stats.largest_scc = std::max(stats.largest_scc, range.size());
    if (is_trivial_scc(system, scc)) {
      bellman_sweep_reference(system, range, direction, options.criterion, current.data(), next.data());
      current[range.begin] = next[range.begin];
      continue;
    }
    ++stats.iterated_sccs;
    std::uint64_t sweeps = 0;
    double change = 0.0;
    // Sweeps write the range of the other buffer; outside it both buffers agree,
    // so a sweep may read any column from either.
    do {
      change = bellman_sweep_parallel(system, range, direction, options.criterion, current.data(), next.data());
      std::swap(current, next);
      ++sweeps;
    } while ((options.fixed_iterations || change >= options.epsilon) && sweeps < options.max_iterations);
    std::copy(current.begin() + range.begin, current.begin() + range.end, next.begin() + range.begin);
    if (change >= options.epsilon && !options.fixed_iterations) {
      stats.converged = false;
      spdlog::warn("value iteration stopped after {} iterations (--max-iters) on an SCC of {} states; "
                   "last change {:.3g} >= epsilon {:.3g}: the result may be inaccurate",
                   sweeps, range.size(), change, options.epsilon);
    }
    stats.iterations += sweeps;
    stats.max_scc_iterations = std::max(stats.max_scc_iterations, sweeps);
  }
}

MaybeSolution solve_topological(const MaybeSystem& system, Optimization direction, const SolverOptions& options) {
  MaybeSolution solution;
  std::vector<double> current(system.num_states(), 0.0);
  std::vector<double> next(system.num_states(), 0.0);
  solve_sccs_on_cpu(system, direction, options, 0, system.num_sccs(), current, next, solution.stats);
  solution.values = std::move(current);
  return solution;
}

}  // namespace mdpvi
