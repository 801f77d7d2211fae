#include "engine/interval_solver.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace mdpvi {

// Why these targets bound the whole answer. An SCC's states depend on its own states
// and on states of SCCs solved before it, whose intervals are final. If those have
// width at most w, the SCC's own iterates converge to an interval of width at most w
// at every state (its fixed point is a convex combination of what flows in: the
// weights P are substochastic and b >= 0; relative widths likewise, since upper <=
// (1+w) lower holds for each input and so for the combination). So the SCC can reach
// any target above w, and a trivial SCC (one exact update) passes at most w on.
// Level(C) counts the iterated SCCs on the longest dependency chain from C down,
// C included; the target of C is 2*epsilon*level(C)/H with H the largest level.
// By induction on the order, everything C reads has width at most
// 2*epsilon*(level(C)-1)/H, strictly below C's target, so C terminates, and every
// state ends within 2*epsilon*H/H = 2*epsilon.
std::vector<double> scc_width_targets(const MaybeSystem& system, double epsilon) {
  const std::size_t n = system.num_sccs();
  std::vector<std::uint32_t> scc_of(system.num_states());
  for (std::size_t c = 0; c < n; ++c) {
    std::fill(scc_of.begin() + system.scc_starts[c], scc_of.begin() + system.scc_starts[c + 1], static_cast<std::uint32_t>(c));
  }
  std::vector<std::uint64_t> level(n, 0);
  std::uint64_t highest = 1;
  for (std::size_t c = 0; c < n; ++c) {
    std::uint64_t below = 0;
    for (std::uint64_t s = system.scc_starts[c]; s < system.scc_starts[c + 1]; ++s) {
      for (std::uint64_t k = system.row_starts[system.row_group_starts[s]]; k < system.row_starts[system.row_group_starts[s + 1]]; ++k) {
        std::uint32_t d = scc_of[system.columns[k]];
        if (d != c) below = std::max(below, level[d]);
      }
    }
    level[c] = below + (is_trivial_scc(system, c) ? 0 : 1);
    highest = std::max(highest, level[c]);
  }
  std::vector<double> targets(n);
  for (std::size_t c = 0; c < n; ++c) targets[c] = 2.0 * epsilon * static_cast<double>(level[c]) / static_cast<double>(highest);
  return targets;
}

namespace {

// No upper bound known: iterate the lower vector alone (both buffers hold it), guess
// an upper vector a little above it, and iterate both. The first sweep in which B
// raises no state of the upper vector proves it (and every later one) an upper
// bound; an upper vector falling below the lower one proves the guess too low: the
// lower iterate is tightened tenfold and the guess made again. Verification may
// take about as many sweeps as the lower iterate took (Hartmanns & Kaminski), and
// the lower iterate keeps improving meanwhile. Returns the sweeps spent; the last
// sweep's result is in last.
std::uint64_t guess_upper_bound(const MaybeSystem& system, StateRange range, Optimization direction,
                                const SolverOptions& options, double target, IntervalBuffers& x, IntervalSweep& last) {
  constexpr int kGuesses = 8;
  std::uint64_t sweeps = 0;
  double precision = target / 4;
  const bool relative = options.criterion == ConvergenceCriterion::relative;
  for (int guess = 0; guess < kGuesses && sweeps < options.max_iterations; ++guess, precision /= 10) {
    double change = 0.0;
    do {
      change = bellman_sweep_parallel(system, range, direction, options.criterion, x.lower.data(), x.lower_next.data());
      std::swap(x.lower, x.lower_next);
      ++sweeps;
    } while (change >= precision && sweeps < options.max_iterations);
    std::copy(x.lower.begin() + range.begin, x.lower.begin() + range.end, x.lower_next.begin() + range.begin);
    for (std::uint64_t s = range.begin; s < range.end; ++s) {
      x.upper[s] = relative ? x.lower[s] * (1 + target / 2) : x.lower[s] + target / 2;
    }
    const std::uint64_t budget = std::max<std::uint64_t>(64, sweeps);
    for (std::uint64_t k = 0; k < budget && sweeps < options.max_iterations; ++k) {
      last = interval_sweep_parallel(system, range, direction, options.criterion, x.iterates());
      x.swap_both();
      ++sweeps;
      if (!last.upper_raised) return sweeps;
      if (last.crossed) break;
    }
    x.sync(range);
  }
  if (sweeps >= options.max_iterations) {
    throw std::runtime_error("interval iteration: no upper bound verified within --max-iters (" +
                             std::to_string(options.max_iterations) + ") sweeps on an SCC of " +
                             std::to_string(range.size()) + " states; raise --max-iters");
  }
  throw std::runtime_error("interval iteration: no upper bound could be verified for an SCC of " +
                           std::to_string(range.size()) + " states; run without --sound");
}

}  // namespace

void IntervalBuffers::sync(StateRange range) {
  std::copy(lower.begin() + range.begin, lower.begin() + range.end, lower_next.begin() + range.begin);
  std::copy(upper.begin() + range.begin, upper.begin() + range.end, upper_next.begin() + range.begin);
}

IntervalSolution solve_interval_topological(const MaybeSystem& system, Optimization direction,
                                            const SolverOptions& options, std::optional<double> upper_start) {
  IntervalBuffers x(system.num_states(), upper_start.value_or(0.0));
  IntervalSolution solution;
  solve_interval_sccs_on_cpu(system, direction, options, upper_start.has_value(),
                             scc_width_targets(system, options.epsilon), 0, system.num_sccs(), x, solution.stats);
  solution.lower = std::move(x.lower);
  solution.upper = std::move(x.upper);
  return solution;
}

void solve_interval_sccs_on_cpu(const MaybeSystem& system, Optimization direction, const SolverOptions& options,
                                bool upper_known, const std::vector<double>& targets, std::size_t first_scc,
                                std::size_t end_scc, IntervalBuffers& x, SolveStats& stats) {
  for (std::size_t scc = first_scc; scc < end_scc; ++scc) {
    StateRange range{system.scc_starts[scc], system.scc_starts[scc + 1]};
    stats.largest_scc = std::max(stats.largest_scc, range.size());
    if (is_trivial_scc(system, scc)) {  // exact from final inputs: no upper start needed
      x.upper[range.begin] = x.upper_next[range.begin] = std::numeric_limits<double>::infinity();
      (void)interval_sweep_reference(system, range, direction, options.criterion, x.iterates());
      x.lower[range.begin] = x.lower_next[range.begin];
      x.upper[range.begin] = x.upper_next[range.begin];
      continue;
    }
    ++stats.iterated_sccs;
    IntervalSweep last;
    last.width = std::numeric_limits<double>::infinity();
    std::uint64_t sweeps = upper_known ? 0 : guess_upper_bound(system, range, direction, options, targets[scc], x, last);
    while (last.width > targets[scc] && sweeps < options.max_iterations) {
      last = interval_sweep_parallel(system, range, direction, options.criterion, x.iterates());
      x.swap_both();
      ++sweeps;
    }
    const double width = last.width;
    x.sync(range);
    if (width > targets[scc]) {
      stats.converged = false;
      spdlog::warn("interval iteration stopped after {} iterations (--max-iters) on an SCC of {} states; width "
                   "{:.3g} > {:.3g}: the reported bound is wider than asked (still sound)",
                   sweeps, range.size(), width, targets[scc]);
    }
    stats.iterations += sweeps;
    stats.max_scc_iterations = std::max(stats.max_scc_iterations, sweeps);
  }
}

}  // namespace mdpvi
