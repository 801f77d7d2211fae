#include "engine/check/long_run_mdp.h"

#include "engine/model/stopwatch.h"
#include "engine/solve/end_component_quotient.h"
#include "engine/model/parallel_indices.h"
#include "graph/end_components.h"
#include "graph/scc.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

namespace mdpvi {

namespace {

struct Gain {
  double value = 0.0;
  double radius = 0.0;  // the gain lies within value +/- radius
};

// One sweep's Bellman value of state i of a MEC (states: its states; local: each one's
// index among them): the best internal row's reward plus half the successors' values
// and half its own (the lazy, aperiodic chain).
double lazy_bellman(const SparseMdp& mdp, const graph::EndComponents& mecs, const RewardStructure& per_step,
                    Optimization direction, const std::vector<std::uint32_t>& states,
                    const std::vector<std::uint32_t>& local, const std::vector<double>& v, std::size_t i) {
  const std::uint32_t s = states[i];
  const bool maximize = direction == Optimization::maximize;
  double best = maximize ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
    if (!mecs.internal_rows.test(r)) continue;
    double next = 0.0;
    for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) next += mdp.values[k] * v[local[mdp.columns[k]]];
    const double value = per_step.row_reward(s, r) + 0.5 * next + 0.5 * v[i];
    best = maximize ? std::max(best, value) : std::min(best, value);
  }
  return best;
}

// The MEC's gain by relative value iteration: stop when the least and largest change
// of a sweep are within twice epsilon (relative: of their size) of each other.
Gain mec_gain(const SparseMdp& mdp, const graph::EndComponents& mecs, const RewardStructure& per_step,
              Optimization direction, const std::vector<std::uint32_t>& states,
              const std::vector<std::uint32_t>& local, const SolverOptions& options, SolveStats& stats) {
  const std::size_t n = states.size();
  std::vector<double> v(n, 0.0), next(n);
  for (std::uint64_t sweep = 1; sweep <= options.stop.max_sweeps; ++sweep) {
    parallel_indices(0, n, 1024, [&](std::size_t i) {
      next[i] = lazy_bellman(mdp, mecs, per_step, direction, states, local, v, i);
    });
    double least = std::numeric_limits<double>::infinity(), largest = -least;
    for (std::size_t i = 0; i < n; ++i) {
      least = std::min(least, next[i] - v[i]);
      largest = std::max(largest, next[i] - v[i]);
    }
    const double scale = options.stop.criterion == ConvergenceCriterion::relative
                             ? std::max(std::abs(least), std::abs(largest))
                             : 1.0;
    if (largest - least <= 2 * options.stop.epsilon * scale) {
      stats.add_run(sweep);
      return {(least + largest) / 2, (largest - least) / 2};
    }
    const double shift = next[0];  // relative values: they stay near 0
    for (std::size_t i = 0; i < n; ++i) v[i] = next[i] - shift;
  }
  stats.add_run(options.stop.max_sweeps);
  stats.converged = false;
  return {};
}

// The collapsed model's rewards: each MEC's stop row (the empty row its first state
// gets) earns the MEC's gain; every other row nothing.
RewardStructure stop_rewards(const CollapsedModel& collapsed, const graph::EndComponents& mecs,
                             const std::vector<Gain>& gains) {
  const SparseMdp& q = collapsed.mdp;
  PodVector<double> rewards(q.num_choices());
  for (std::uint32_t s = 0; s < q.num_states(); ++s) {
    for (std::uint64_t r = q.row_group_starts[s]; r < q.row_group_starts[s + 1]; ++r) {
      const bool stop = q.row_starts[r] == q.row_starts[r + 1];
      rewards[r] = stop ? gains[mecs.component_of[s]].value : 0.0;
    }
  }
  RewardStructure structure;
  structure.choice_rewards = CompactValues(std::move(rewards));
  return structure;
}

}  // namespace

NumericResult compute_long_run_mdp(const SparseMdp& mdp, const graph::SearchBackend& search, Optimization direction,
                                   const RewardStructure& per_step, const SolverOptions& options,
                                   const DeviceOptions& device) {
  NumericResult result;
  result.reward = true;
  auto start = std::chrono::steady_clock::now();
  const StateSet all = all_states(mdp.num_states());
  const graph::EndComponents mecs = graph::maximal_end_components(search, all, all_states(mdp.num_choices()));
  result.qualitative = {0, 0, mdp.num_states(), seconds_since(start), to_string(search.kind())};
  // Each MEC's gain, its states gathered first.
  const std::vector<std::vector<std::uint32_t>> members = component_members(mecs);
  start = std::chrono::steady_clock::now();
  std::vector<std::uint32_t> local(mdp.num_states(), 0);
  std::vector<Gain> gains(mecs.count);
  double widest = 0.0;
  SolveStats gain_stats;
  for (std::uint32_t c = 0; c < mecs.count; ++c) {
    for (std::size_t i = 0; i < members[c].size(); ++i) local[members[c][i]] = static_cast<std::uint32_t>(i);
    gains[c] = mec_gain(mdp, mecs, per_step, direction, members[c], local, options, gain_stats);
    if (!gain_stats.converged) {
      result.solve.stats = gain_stats;
      throw NotConvergedError("the long-run average of an end component of " + std::to_string(members[c].size()) +
                                  " states did not settle within " + std::to_string(options.stop.max_sweeps) + " sweeps",
                              std::move(result).summary());
    }
    widest = std::max(widest, gains[c].radius);
  }
  const double gains_s = seconds_since(start);
  // The best MEC to end in: a total reward on the quotient, every state in its system.
  start = std::chrono::steady_clock::now();
  const CollapsedModel collapsed = collapse_end_components(mdp, mecs, nullptr, /*with_stop_rows=*/true);
  const RewardStructure rewards = stop_rewards(collapsed, mecs, gains);
  graph::SccDecomposition sccs = graph::maybe_state_sccs(search, collapsed.mdp, all);
  const char* sccs_ran_on = sccs.ran_on;
  MaybeSystem system = build_maybe_system(collapsed.mdp, std::move(sccs), filled(mdp.num_states(), 0.0), &rewards);
  result.sccs = {system.num_sccs(), seconds_since(start), sccs_ran_on};
  result.values = filled(mdp.num_states(), 0.0);
  solve_into({.system = system, .direction = direction, .options = options}, device, result);
  result.solve.time_s += gains_s;
  result.solve.stats.iterations += gain_stats.iterations;
  // Each gain within its radius moves every value by at most the widest radius: a
  // scheduler's values weigh the gains it ends in by probabilities summing to 1.
  // (Values solved exactly come without bounds: they get them here.)
  if (widest > 0.0 && result.lower.empty() && result.upper.empty()) {
    result.lower = copy_of(result.values.data(), result.values.size());
    result.upper = copy_of(result.values.data(), result.values.size());
  }
  for (double& l : result.lower) l -= widest;
  for (double& u : result.upper) u += widest;
  return result;
}

}  // namespace mdpvi
