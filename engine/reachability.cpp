#include "engine/reachability.h"

#include "engine/end_component_quotient.h"
#include "engine/interval_solver.h"
#include "engine/maybe_system.h"
#include "engine/stopwatch.h"
#include "graph/scc.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <optional>

namespace mdpvi {

graph::QualitativePartition qualitative_partition(const SparseMdp& mdp, const graph::ChoicePredecessorGraph& graph,
                                                  Optimization direction, const StateSet& phi, const StateSet& psi) {
  return direction == Optimization::minimize ? graph::partition_for_min(mdp, graph, phi, psi)
                                             : graph::partition_for_max(mdp, graph, phi, psi);
}

ReachabilityResult compute_until_probabilities(const SparseMdp& mdp, const graph::ChoicePredecessorGraph& graph,
                                               Optimization direction, const StateSet& phi, const StateSet& psi,
                                               const SolverOptions& options, const DeviceOptions& device) {
  ReachabilityResult result;
  auto start = std::chrono::steady_clock::now();
  graph::QualitativePartition partition = qualitative_partition(mdp, graph, direction, phi, psi);
  result.yes_states = partition.yes.count();
  result.no_states = partition.no.count();
  result.maybe_states = partition.maybe.count();
  result.times.qualitative_s = seconds_since(start);

  start = std::chrono::steady_clock::now();
  // The upper iterate of Pmax would stay at 1 in an end component of maybe-states.
  std::optional<CollapsedModel> collapsed;
  if (options.interval && direction == Optimization::maximize) {
    graph::EndComponents components = graph::maximal_end_components(mdp, partition.maybe, all_states(mdp.num_choices()));
    if (components.count > 0) collapsed = collapse_end_components(mdp, components);
  }
  const SparseMdp& model = collapsed ? collapsed->mdp : mdp;
  graph::SccDecomposition sccs = graph::maybe_state_sccs(model, partition.maybe);
  spdlog::debug("SCCs of {} maybe-states: {:.3f} s", sccs.order.size(), seconds_since(start));
  result.num_sccs = sccs.num_sccs();
  MaybeSystem system = build_maybe_system(model, partition, sccs);
  spdlog::debug("maybe-state system: {} rows, {:.3f} s since the SCCs began", system.num_rows(), seconds_since(start));
  result.times.scc_s = seconds_since(start);

  result.state_values.assign(mdp.num_states(), 0.0);
  for (auto s = partition.yes.find_first(); s != StateSet::npos; s = partition.yes.find_next(s)) result.state_values[s] = 1.0;
  solve_into(system, direction, options, device, result);
  return result;
}

void solve_into(const MaybeSystem& system, Optimization direction, const SolverOptions& options,
                const DeviceOptions& device, ReachabilityResult& result, std::optional<double> upper_start) {
  auto start = std::chrono::steady_clock::now();
  if (options.interval && !options.fixed_iterations) {
    ChunkedIntervalSolution solution = solve_chunked_interval(system, direction, options, device, upper_start);
    result.interval = true;
    result.solve = solution.stats;
    result.chunks = std::move(solution.chunks);
    result.device = std::move(solution.device);
    result.state_lower = result.state_values;
    result.state_upper = result.state_values;
    for (std::uint32_t i = 0; i < system.num_states(); ++i) {
      std::uint32_t s = system.model_states[i];
      result.state_lower[s] = solution.lower[i];
      result.state_upper[s] = solution.upper[i];
      result.state_values[s] = solution.lower[i] + (solution.upper[i] - solution.lower[i]) / 2;
    }
    result.times.solve_s = seconds_since(start);
    return;
  }
  ChunkedSolution solution = solve_chunked(system, direction, options, device);
  result.solve = solution.stats;
  result.chunks = std::move(solution.chunks);
  result.device = std::move(solution.device);
  for (std::uint32_t i = 0; i < system.num_states(); ++i) result.state_values[system.model_states[i]] = solution.values[i];
  result.times.solve_s = seconds_since(start);
}

}  // namespace mdpvi
