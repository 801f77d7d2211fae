#include "engine/solve/end_component_quotient.h"

#include <stdexcept>

namespace mdpvi {

std::vector<std::vector<std::uint32_t>> component_members(const graph::EndComponents& components) {
  std::vector<std::vector<std::uint32_t>> members(components.count);
  for (std::uint32_t s = 0; s < components.component_of.size(); ++s) {
    if (components.component_of[s] != graph::EndComponents::kNone) members[components.component_of[s]].push_back(s);
  }
  return members;
}

CollapsedModel collapse_end_components(const SparseMdp& mdp, const graph::EndComponents& components,
                                       const RewardStructure* rewards, bool with_stop_rows) {
  constexpr std::uint32_t kNone = graph::EndComponents::kNone;
  // The members of each component, to gather their leaving rows.
  const std::vector<std::vector<std::uint32_t>> members = component_members(components);
  CollapsedModel out;
  SparseMdp& q = out.mdp;
  q.type = mdp.type;
  q.row_group_starts.push_back(0);
  q.row_starts.push_back(0);
  auto copy_row = [&](std::uint32_t owner, std::uint64_t r) {
    for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
      q.columns.push_back(mdp.columns[k]);
      q.values.push_back(mdp.values[k]);
    }
    q.row_starts.push_back(q.columns.size());
    out.rewards.choice_rewards.push_back(rewards ? rewards->row_reward(owner, r) : 0.0);
  };
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    std::uint32_t c = components.component_of[s];
    if (c == kNone) {
      for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) copy_row(s, r);
    } else if (members[c].front() != s) {  // to the component's first state
      q.columns.push_back(members[c].front());
      q.values.push_back(1.0);
      q.row_starts.push_back(q.columns.size());
      out.rewards.choice_rewards.push_back(0.0);
    } else {
      for (std::uint32_t m : members[c]) {
        for (std::uint64_t r = mdp.row_group_starts[m]; r < mdp.row_group_starts[m + 1]; ++r) {
          if (!components.internal_rows.test(r)) copy_row(m, r);
        }
      }
      if (with_stop_rows) {
        q.row_starts.push_back(q.columns.size());
        out.rewards.choice_rewards.push_back(0.0);
      }
      if (q.row_starts.size() - 1 == q.row_group_starts.back()) {
        throw std::logic_error("collapse_end_components: an end component without a leaving row");
      }
    }
    q.row_group_starts.push_back(q.row_starts.size() - 1);
  }
  compact_model(q);  // as compact as the model it quotients
  out.rewards.choice_rewards.compress();
  return out;
}

}  // namespace mdpvi
