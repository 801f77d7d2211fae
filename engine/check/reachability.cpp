#include "engine/check/reachability.h"

#include "engine/model/stopwatch.h"
#include "engine/solve/end_component_quotient.h"
#include "graph/qualitative.h"
#include "graph/scc.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <optional>

namespace mdpvi {

graph::QualitativePartition qualitative_partition(const graph::SearchBackend& search, Optimization direction,
                                                  const StateSet& phi, const StateSet& psi) {
  return direction == Optimization::minimize ? graph::partition_for_min(search, phi, psi)
                                             : graph::partition_for_max(search, phi, psi);
}

NumericResult compute_until_probabilities(const SparseMdp& mdp, const graph::SearchBackend& search,
                                          Optimization direction, const StateSet& phi, const StateSet& psi,
                                          const SolverOptions& options, const DeviceOptions& device) {
  NumericResult result;
  auto start = std::chrono::steady_clock::now();
  graph::QualitativePartition partition = qualitative_partition(search, direction, phi, psi);
  result.qualitative = {partition.yes.count(), partition.no.count(), partition.maybe.count(), seconds_since(start),
                        to_string(search.kind())};

  start = std::chrono::steady_clock::now();
  // The upper iterate of Pmax would stay at 1 in an end component of maybe-states.
  std::optional<CollapsedModel> collapsed;
  if (is_sound(options.method) && direction == Optimization::maximize) {
    graph::EndComponents components = graph::maximal_end_components(search, partition.maybe, all_states(mdp.num_choices()));
    if (components.count > 0) collapsed = collapse_end_components(mdp, components);
  }
  const SparseMdp& model = collapsed ? collapsed->mdp : mdp;
  graph::SccDecomposition sccs = graph::maybe_state_sccs(search, model, partition.maybe);
  spdlog::debug("SCCs of {} maybe-states: {:.3f} s", sccs.order.size(), seconds_since(start));
  const char* sccs_ran_on = sccs.ran_on;
  MaybeSystem system = build_maybe_system(model, partition, std::move(sccs));
  spdlog::debug("maybe-state system: {} rows, {:.3f} s since the SCCs began", system.num_rows(), seconds_since(start));
  result.sccs = {system.num_sccs(), seconds_since(start), sccs_ran_on};

  result.values.assign(mdp.num_states(), 0.0);
  for (auto s = partition.yes.find_first(); s != StateSet::npos; s = partition.yes.find_next(s)) result.values[s] = 1.0;
  solve_into({.system = system, .direction = direction, .options = options, .known_upper_bound = 1.0}, device, result);
  return result;
}

void solve_into(const SolveRequest& request, const DeviceOptions& device, NumericResult& result) {
  SolveResult solution = solve(request, device);
  const std::vector<std::uint32_t>& model_states = request.system.model_states;
  if (solution.bounded()) {
    result.lower = result.values;
    result.upper = result.values;
    for (std::uint32_t i = 0; i < model_states.size(); ++i) {
      result.lower[model_states[i]] = solution.lower[i];
      result.upper[model_states[i]] = solution.upper[i];
    }
  }
  for (std::uint32_t i = 0; i < model_states.size(); ++i) result.values[model_states[i]] = solution.value(i);
  result.solve = std::move(solution.report);
  const SolveStats& stats = result.solve.stats;
  if (!stats.converged) {
    // The message first: the summary takes the stats with it.
    const std::string message =
        fmt::format("did not converge within {} iterations per SCC (--max-iters; {} SCC{} or GPU chunk{} stopped there, "
                    "the first: {}); no result (raise --max-iters, or loosen --epsilon)",
                    request.options.stop.max_sweeps, stats.unconverged, stats.unconverged == 1 ? "" : "s",
                    stats.unconverged == 1 ? "" : "s", stats.first_unconverged);
    throw NotConvergedError(message, std::move(result).summary());
  }
}

}  // namespace mdpvi
