#include "engine/step_bounded.h"

#include "engine/stopwatch.h"

#include <chrono>

namespace mdpvi {

namespace {

SolverOptions exactly(std::uint64_t steps, SolverOptions options) {
  options.fixed_iterations = true;
  options.max_iterations = steps;
  return options;
}

}  // namespace

ReachabilityResult compute_bounded_until(const SparseMdp& mdp, const graph::ChoicePredecessorGraph& graph,
                                         Optimization direction, const StateSet& phi, const StateSet& psi,
                                         std::uint64_t steps, const SolverOptions& options,
                                         const DeviceOptions& device) {
  ReachabilityResult result;
  result.step_bounded = true;
  auto start = std::chrono::steady_clock::now();
  // Where psi cannot be reached at all, it cannot be reached within k steps either.
  StateSet no = graph::prob0a(graph, phi, psi);
  StateSet maybe = phi - psi - no;
  result.yes_states = psi.count();
  result.no_states = no.count();
  result.maybe_states = steps == 0 ? 0 : maybe.count();
  result.times.qualitative_s = seconds_since(start);

  result.state_values.assign(mdp.num_states(), 0.0);
  for (auto s = psi.find_first(); s != StateSet::npos; s = psi.find_next(s)) result.state_values[s] = 1.0;
  if (steps == 0 || maybe.none()) return result;
  start = std::chrono::steady_clock::now();
  MaybeSystem system = build_maybe_system(mdp, single_block(maybe), result.state_values);
  result.num_sccs = 1;
  result.times.scc_s = seconds_since(start);
  solve_into(system, direction, exactly(steps, options), device, result);
  return result;
}

ReachabilityResult compute_next(const SparseMdp& mdp, Optimization direction, const StateSet& phi) {
  ReachabilityResult result;
  result.step_bounded = true;
  auto start = std::chrono::steady_clock::now();
  result.state_values.resize(mdp.num_states());
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    double best = direction == Optimization::minimize ? 1.0 : 0.0;
    for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
      double p = 0.0;
      for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
        if (phi.test(mdp.columns[k])) p += mdp.values[k];
      }
      best = direction == Optimization::minimize ? std::min(best, p) : std::max(best, p);
    }
    result.state_values[s] = best;
  }
  result.solve.iterations = 1;
  result.times.solve_s = seconds_since(start);
  return result;
}

ReachabilityResult compute_cumulative_reward(const SparseMdp& mdp, Optimization direction,
                                             const RewardStructure& rewards, std::uint64_t steps,
                                             const SolverOptions& options, const DeviceOptions& device) {
  ReachabilityResult result;
  result.reward = true;
  result.step_bounded = true;
  result.state_values.assign(mdp.num_states(), 0.0);
  if (steps == 0) return result;
  auto start = std::chrono::steady_clock::now();
  StateSet all = all_states(mdp.num_states());
  result.maybe_states = all.count();
  MaybeSystem system = build_maybe_system(mdp, single_block(all), result.state_values, &rewards);
  result.num_sccs = 1;
  result.times.scc_s = seconds_since(start);
  solve_into(system, direction, exactly(steps, options), device, result);
  return result;
}

ReachabilityResult compute_instantaneous_reward(const SparseMdp& mdp, Optimization direction,
                                                const RewardStructure& rewards, std::uint64_t steps,
                                                const SolverOptions& options) {
  ReachabilityResult result;
  result.reward = true;
  result.step_bounded = true;
  std::vector<double> current(rewards.state_rewards.begin(), rewards.state_rewards.end());
  current.resize(mdp.num_states(), 0.0);  // no state rewards: all 0
  if (steps > 0) {
    auto start = std::chrono::steady_clock::now();
    StateSet all = all_states(mdp.num_states());
    result.maybe_states = all.count();
    MaybeSystem system = build_maybe_system(mdp, single_block(all), current);  // b = 0: no outside
    std::vector<double> next = current;
    solve_sccs_on_cpu(system, direction, exactly(steps, options), 0, system.num_sccs(), current, next, result.solve);
    result.num_sccs = 1;
    result.times.solve_s = seconds_since(start);
  }
  result.state_values = std::move(current);
  return result;
}

}  // namespace mdpvi
