#pragma once
// Pmin/Pmax of (phi U psi) in every state: Prob0/Prob1, then the maybe-states' SCCs,
// then topological value iteration; each stage's result is named in the result.
// The other numerical properties (engine/step_bounded.h, engine/rewards.h) report
// through the same ReachabilityResult.
#include "engine/chunked_solver.h"
#include "engine/maybe_system.h"
#include "graph/qualitative.h"

namespace mdpvi {

struct PhaseTimes {
  double qualitative_s = 0.0;  // Prob0/Prob1
  double scc_s = 0.0;          // SCC decomposition and the maybe-state system
  double solve_s = 0.0;
};

struct ReachabilityResult {
  std::vector<double> state_values;  // per model state
  // Interval iteration only: the truth lies in [state_lower, state_upper] (per state).
  std::vector<double> state_lower, state_upper;
  bool reward = false;               // rewards: yes = target (0), no = infinite
  bool step_bounded = false;         // a fixed number of sweeps, no convergence test
  bool interval = false;             // solved by interval iteration
  std::uint64_t yes_states = 0;
  std::uint64_t no_states = 0;
  std::uint64_t maybe_states = 0;
  std::size_t num_sccs = 0;
  SolveStats solve;
  std::vector<ChunkReport> chunks;
  std::string device;  // where the chunks ran; empty: the CPU
  PhaseTimes times;
};

// Prob0/Prob1 for the minimising or the maximising scheduler.
graph::QualitativePartition qualitative_partition(const SparseMdp& mdp, const graph::ChoicePredecessorGraph& graph,
                                                  Optimization direction, const StateSet& phi, const StateSet& psi);

// Pre: phi and psi have num_states bits; graph was built from mdp.
ReachabilityResult compute_until_probabilities(const SparseMdp& mdp, const graph::ChoicePredecessorGraph& graph,
                                               Optimization direction, const StateSet& phi, const StateSet& psi,
                                               const SolverOptions& options, const DeviceOptions& device = {});

// Solves system (chunked, on the device where there is one) and writes its values into
// result.state_values at their model states; records stats, chunks and the time.
// With options.interval, also the bounds (state_lower/upper, from state_values
// outside the system), iterating the upper vector from upper_start.
// Pre: result.state_values has one entry per model state.
void solve_into(const MaybeSystem& system, Optimization direction, const SolverOptions& options,
                const DeviceOptions& device, ReachabilityResult& result,
                std::optional<double> upper_start = 1.0);

}  // namespace mdpvi
