#include "engine/rewards.h"

#include "engine/stopwatch.h"
#include "graph/scc.h"

#include <chrono>
#include <limits>

namespace mdpvi {

ReachabilityResult compute_reachability_reward(const SparseMdp& mdp, const graph::ChoicePredecessorGraph& graph,
                                               Optimization direction, const RewardStructure& rewards,
                                               const StateSet& target, const SolverOptions& options,
                                               const DeviceOptions& device) {
  ReachabilityResult result;
  result.reward = true;
  auto start = std::chrono::steady_clock::now();
  StateSet all(mdp.num_states());
  all.set();
  // Rmin needs one scheduler reaching the target almost surely (Pmax = 1); Rmax needs
  // all of them to (Pmin = 1).
  StateSet finite = direction == Optimization::minimize ? graph::partition_for_max(mdp, graph, all, target).yes
                                                        : graph::partition_for_min(mdp, graph, all, target).yes;
  StateSet maybe = finite - target;
  result.yes_states = target.count();
  result.no_states = mdp.num_states() - finite.count();
  result.maybe_states = maybe.count();
  result.times.qualitative_s = seconds_since(start);

  result.state_values.assign(mdp.num_states(), 0.0);
  const StateSet infinite = ~finite;
  for (auto s = infinite.find_first(); s != StateSet::npos; s = infinite.find_next(s)) {
    result.state_values[s] = std::numeric_limits<double>::infinity();
  }
  start = std::chrono::steady_clock::now();
  graph::SccDecomposition sccs = graph::maybe_state_sccs(mdp, maybe);
  result.num_sccs = sccs.num_sccs();
  // For Rmax no choice of a finite state can reach an infinite one (it would be
  // infinite itself); for Rmin such choices get b = infinity and are left out.
  MaybeSystem system = build_maybe_system(mdp, sccs, result.state_values, &rewards);
  result.times.scc_s = seconds_since(start);
  solve_into(system, direction, options, device, result);
  return result;
}

}  // namespace mdpvi
