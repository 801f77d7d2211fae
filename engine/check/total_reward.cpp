#include "engine/check/total_reward.h"

#include "engine/check/rewards.h"
#include "engine/model/bit_words.h"
#include "engine/model/stopwatch.h"
#include "engine/solve/end_component_quotient.h"
#include "graph/end_components.h"
#include "graph/qualitative.h"
#include "graph/scc.h"

#include <oneapi/tbb/parallel_for.h>

#include <chrono>
#include <limits>

namespace mdpvi {

namespace {

// The choice rows that collect nothing (neither their own reward nor their state's).
StateSet zero_reward_rows(const SparseMdp& mdp, const RewardStructure& rewards) {
  BitWords rows(mdp.num_choices());  // in parallel: two states' rows may share a word
  oneapi::tbb::parallel_for(std::uint32_t{0}, mdp.num_states(), [&](std::uint32_t s) {
    for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
      if (rewards.row_reward(s, r) == 0.0) rows.claim(r);
    }
  });
  return rows.to_set(mdp.num_choices());
}

NumericResult minimal_total_reward(const SparseMdp& mdp, const graph::SearchBackend& search,
                                   const RewardStructure& rewards, const SolverOptions& options,
                                   const DeviceOptions& device) {
  const StateSet all = all_states(mdp.num_states());
  const StateSet zero_reward_components =
      graph::states_in_components(graph::maximal_end_components(search, all, zero_reward_rows(mdp, rewards)));
  return compute_reachability_reward(mdp, search, Optimization::minimize, rewards, zero_reward_components, options,
                                     device);
}

NumericResult maximal_total_reward(const SparseMdp& mdp, const graph::SearchBackend& search,
                                   const RewardStructure& rewards, const SolverOptions& options,
                                   const DeviceOptions& device) {
  NumericResult result;
  result.reward = true;
  auto start = std::chrono::steady_clock::now();
  const StateSet all = all_states(mdp.num_states());
  const StateSet all_rows = all_states(mdp.num_choices());
  // The end components with a rewarding row inside, and everything that may reach one.
  const graph::EndComponents components = graph::maximal_end_components(search, all, all_rows);
  std::vector<bool> component_rewards(components.count, false);
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
      if (components.internal_rows.test(r) && rewards.row_reward(s, r) > 0.0) {
        component_rewards[components.component_of[s]] = true;
      }
    }
  }
  StateSet rewarding(mdp.num_states());
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    const std::uint32_t c = components.component_of[s];
    if (c != graph::EndComponents::kNone && component_rewards[c]) rewarding.set(s);
  }
  const StateSet finite = graph::prob0a(search, all, rewarding);
  result.qualitative = {0, mdp.num_states() - finite.count(), finite.count(), seconds_since(start),
                        to_string(search.kind())};
  result.values = numbers_on(finite, 0.0, std::numeric_limits<double>::infinity());
  if (finite.none()) return result;
  // No row of a finite state reaches an infinite one (it would be infinite itself), so
  // the end components among the finite states are those of the model there.
  start = std::chrono::steady_clock::now();
  const graph::EndComponents zero_components = graph::maximal_end_components(search, finite, all_rows);
  const CollapsedModel collapsed = collapse_end_components(mdp, zero_components, &rewards, /*with_stop_rows=*/true);
  graph::SccDecomposition sccs = graph::maybe_state_sccs(search, collapsed.mdp, finite);
  const char* sccs_ran_on = sccs.ran_on;
  MaybeSystem system = build_maybe_system(collapsed.mdp, std::move(sccs), result.values, &collapsed.rewards);
  result.sccs = {system.num_sccs(), seconds_since(start), sccs_ran_on};
  solve_into({.system = system, .direction = Optimization::maximize, .options = options}, device, result);
  return result;
}

}  // namespace

NumericResult compute_total_reward(const SparseMdp& mdp, const graph::SearchBackend& search, Optimization direction,
                                   const RewardStructure& rewards, const SolverOptions& options,
                                   const DeviceOptions& device) {
  require_fit_rewards(rewards, "total rewards (R[C])");
  if (direction == Optimization::minimize || has_one_choice_per_state(mdp.type)) {
    return minimal_total_reward(mdp, search, rewards, options, device);
  }
  return maximal_total_reward(mdp, search, rewards, options, device);
}

}  // namespace mdpvi
