#pragma once
// Topological value iteration on the CPU: the SCCs of a MaybeSystem are solved one
// after the other in its order. An SCC of one state without a self-loop depends only
// on values already final, so one Bellman update solves it exactly; any other SCC is
// iterated from 0 (below the least fixed point, where reachability values lie) with
// parallel sweeps until the largest change is below epsilon.
#include "engine/bellman.h"

#include <cstdint>
#include <vector>

namespace mdpvi {

struct SolverOptions {
  double epsilon = 1e-6;
  ConvergenceCriterion criterion = ConvergenceCriterion::relative;
  std::uint64_t max_iterations = 10000;  // per SCC (per chunk on the GPU), as PRISM's -maxiters
  // Step-bounded properties: exactly max_iterations sweeps from the start vector,
  // no convergence test. Pre: the system is one SCC (the steps do not decompose).
  bool fixed_iterations = false;
  // Interval iteration (--sound): stop when lower and upper iterates are within
  // 2*epsilon; the answer is their midpoint, off by at most epsilon.
  bool interval = false;
};

struct SolveStats {
  std::uint64_t iterations = 0;           // sweeps summed over all SCCs (chunks)
  std::uint64_t max_scc_iterations = 0;   // sweeps of the slowest SCC (chunk)
  std::uint64_t iterated_sccs = 0;        // SCCs that needed iteration
  std::uint64_t largest_scc = 0;          // states
  bool converged = true;                  // false when some SCC hit max_iterations
};

struct MaybeSolution {
  std::vector<double> values;  // per local state of the system
  SolveStats stats;
};

MaybeSolution solve_topological(const MaybeSystem& system, Optimization direction, const SolverOptions& options);

// True when SCC scc is one state without a self-loop: one Bellman update solves it.
bool is_trivial_scc(const MaybeSystem& system, std::size_t scc);

// Solves SCCs [first_scc, end_scc) in order. Pre: current and next hold the final
// values of all states of earlier SCCs (both alike); afterwards they do for these too.
void solve_sccs_on_cpu(const MaybeSystem& system, Optimization direction, const SolverOptions& options,
                       std::size_t first_scc, std::size_t end_scc, std::vector<double>& current,
                       std::vector<double>& next, SolveStats& stats);

}  // namespace mdpvi
