#include "engine/reachability.h"

#include "engine/maybe_system.h"
#include "engine/stopwatch.h"
#include "graph/scc.h"

#include <chrono>

namespace mdpvi {

ReachabilityResult compute_until_probabilities(const SparseMdp& mdp, const graph::ChoicePredecessorGraph& graph,
                                               Optimization direction, const StateSet& phi, const StateSet& psi,
                                               const SolverOptions& options, const DeviceOptions& device) {
  ReachabilityResult result;
  auto start = std::chrono::steady_clock::now();
  graph::QualitativePartition partition = direction == Optimization::minimize
                                              ? graph::partition_for_min(mdp, graph, phi, psi)
                                              : graph::partition_for_max(mdp, graph, phi, psi);
  result.yes_states = partition.yes.count();
  result.no_states = partition.no.count();
  result.maybe_states = partition.maybe.count();
  result.times.qualitative_s = seconds_since(start);

  start = std::chrono::steady_clock::now();
  graph::SccDecomposition sccs = graph::maybe_state_sccs(mdp, partition.maybe);
  result.num_sccs = sccs.num_sccs();
  MaybeSystem system = build_maybe_system(mdp, partition, sccs);
  result.times.scc_s = seconds_since(start);

  result.state_values.assign(mdp.num_states(), 0.0);
  for (auto s = partition.yes.find_first(); s != StateSet::npos; s = partition.yes.find_next(s)) result.state_values[s] = 1.0;
  solve_into(system, direction, options, device, result);
  return result;
}

void solve_into(const MaybeSystem& system, Optimization direction, const SolverOptions& options,
                const DeviceOptions& device, ReachabilityResult& result) {
  auto start = std::chrono::steady_clock::now();
  ChunkedSolution solution = solve_chunked(system, direction, options, device);
  result.solve = solution.stats;
  result.chunks = std::move(solution.chunks);
  result.device = std::move(solution.device);
  for (std::uint32_t i = 0; i < system.num_states(); ++i) result.state_values[system.model_states[i]] = solution.values[i];
  result.times.solve_s = seconds_since(start);
}

}  // namespace mdpvi
