#pragma once
// Interval iteration (Haddad & Monmege 2018; Baier, Klein, Leuschner, Parker and
// Wunderlich, CAV 2017), topologically: every SCC of a MaybeSystem iterates a lower
// vector from 0 and an upper vector from an upper bound until the two are close;
// the truth lies between them everywhere, so the midpoint's error is at most half
// the width. The upper iterate converges only where the optimum cannot stay in an
// end component forever: Pmin after Prob0E has none among the maybe-states; for
// Pmax the caller collapses them first (engine/end_component_quotient.h).
#include "engine/topological_solver.h"

#include <optional>
#include <vector>

namespace mdpvi {

struct IntervalSolution {
  std::vector<double> lower, upper;  // per local state of the system
  SolveStats stats;
};

// The width each SCC must reach so that every state ends within 2*epsilon.
std::vector<double> scc_width_targets(const MaybeSystem& system, double epsilon);

// The two iterates with their double buffers; outside the SCC being solved both
// buffers of a pair agree (as in solve_sccs_on_cpu), so a sweep may read any column.
struct IntervalBuffers {
  std::vector<double> lower, lower_next, upper, upper_next;

  IntervalBuffers(std::uint64_t n, double upper_start)
      : lower(n, 0.0), lower_next(n, 0.0), upper(n, upper_start), upper_next(n, upper_start) {}
  IntervalIterates iterates() { return {lower.data(), upper.data(), lower_next.data(), upper_next.data()}; }
  void swap_both() {
    std::swap(lower, lower_next);
    std::swap(upper, upper_next);
  }
  void sync(StateRange range);  // copies the range of lower and upper into their next buffers
};

// Solves SCCs [first_scc, end_scc) on the CPU in order. Pre: x holds the final
// intervals of all earlier SCCs; afterwards it does for these too.
void solve_interval_sccs_on_cpu(const MaybeSystem& system, Optimization direction, const SolverOptions& options,
                                bool upper_known, const std::vector<double>& targets, std::size_t first_scc,
                                std::size_t end_scc, IntervalBuffers& x, SolveStats& stats);

// upper_start: an upper bound of every state's value (1 for probabilities); without
// one (expected rewards), each SCC's upper start is guessed from its converged
// lower iterate and verified (optimistic value iteration, Hartmanns & Kaminski,
// CAV 2020): U with B(U) <= U bounds the least fixed point from above (Knaster-
// Tarski), and the values solved here are least fixed points. Throws
// std::runtime_error when no guess can be verified.
IntervalSolution solve_interval_topological(const MaybeSystem& system, Optimization direction,
                                            const SolverOptions& options, std::optional<double> upper_start);

}  // namespace mdpvi
