#include "engine/maybe_system.h"

#include <cmath>
#include <limits>

namespace mdpvi {

namespace {

double row_reward(const RewardStructure* rewards, std::uint32_t state, std::uint64_t row) {
  if (rewards == nullptr) return 0.0;
  double reward = 0.0;
  if (!rewards->state_rewards.empty()) reward += rewards->state_rewards[state];
  if (!rewards->choice_rewards.empty()) reward += rewards->choice_rewards[row];
  return reward;
}

}  // namespace

MaybeSystem build_maybe_system(const SparseMdp& mdp, const graph::SccDecomposition& sccs,
                               const std::vector<double>& outside_values, const RewardStructure* rewards) {
  constexpr std::uint32_t kOutside = std::numeric_limits<std::uint32_t>::max();
  MaybeSystem system;
  system.model_states = sccs.order;
  system.scc_starts = sccs.scc_starts;
  std::vector<std::uint32_t> local_of(mdp.num_states(), kOutside);
  for (std::uint32_t i = 0; i < system.num_states(); ++i) local_of[system.model_states[i]] = i;

  system.row_group_starts.reserve(system.num_states() + 1);
  system.row_group_starts.push_back(0);
  system.row_starts.push_back(0);
  for (std::uint32_t s : system.model_states) {
    const std::uint64_t group_start = system.row_constants.size();
    for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
      const std::size_t entries_before = system.columns.size();
      double constant = row_reward(rewards, s, r);
      for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
        std::uint32_t t = mdp.columns[k];
        if (local_of[t] != kOutside) {
          system.columns.push_back(local_of[t]);
          system.values.push_back(mdp.values[k]);
        } else {
          constant += mdp.values[k] * outside_values[t];
        }
      }
      bool last_chance = r + 1 == mdp.row_group_starts[s + 1] && system.row_constants.size() == group_start;
      if (std::isinf(constant) && constant > 0 && !last_chance) {
        system.columns.resize(entries_before);
        system.values.resize(entries_before);
        continue;
      }
      system.row_constants.push_back(constant);
      system.row_starts.push_back(system.columns.size());
    }
    system.row_group_starts.push_back(system.row_constants.size());
  }
  return system;
}

MaybeSystem build_maybe_system(const SparseMdp& mdp, const graph::QualitativePartition& partition,
                               const graph::SccDecomposition& sccs) {
  std::vector<double> outside(mdp.num_states(), 0.0);
  for (auto s = partition.yes.find_first(); s != StateSet::npos; s = partition.yes.find_next(s)) outside[s] = 1.0;
  return build_maybe_system(mdp, sccs, outside);
}

graph::SccDecomposition single_block(const StateSet& states) {
  graph::SccDecomposition block;
  block.order.reserve(states.count());
  for (auto s = states.find_first(); s != StateSet::npos; s = states.find_next(s)) {
    block.order.push_back(static_cast<std::uint32_t>(s));
  }
  block.scc_starts = {0, block.order.size()};
  if (block.order.empty()) block.scc_starts.clear();
  return block;
}

}  // namespace mdpvi
