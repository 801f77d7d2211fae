#pragma once
// Pmin/Pmax of (phi U psi) in every state: Prob0/Prob1, then the maybe-states' SCCs,
// then topological value iteration; each stage's result is named in the result.
#include "engine/chunked_solver.h"
#include "graph/qualitative.h"

namespace mdpvi {

struct PhaseTimes {
  double qualitative_s = 0.0;  // Prob0/Prob1
  double scc_s = 0.0;          // SCC decomposition and the maybe-state system
  double solve_s = 0.0;
};

struct ReachabilityResult {
  std::vector<double> state_values;  // per model state
  std::uint64_t yes_states = 0;
  std::uint64_t no_states = 0;
  std::uint64_t maybe_states = 0;
  std::size_t num_sccs = 0;
  SolveStats solve;
  std::vector<ChunkReport> chunks;
  std::string device;  // where the chunks ran; empty: the CPU
  PhaseTimes times;
};

// Pre: phi and psi have num_states bits; graph was built from mdp.
ReachabilityResult compute_until_probabilities(const SparseMdp& mdp, const graph::ChoicePredecessorGraph& graph,
                                               Optimization direction, const StateSet& phi, const StateSet& psi,
                                               const SolverOptions& options, const DeviceOptions& device = {});

}  // namespace mdpvi
