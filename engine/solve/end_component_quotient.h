#pragma once
// Collapsing end components (the quotient of de Alfaro 1997, without renumbering):
// the first state of each component gets, as its choices, all the rows of the
// component's states that leave it (the rows that stay inside are gone); every other
// state of the component gets one choice, to the first with probability 1 and reward
// 0. All states of a component then have the quotient's value, no scheduler can stay
// in the component forever, and the size grows by at most one row per state. The
// states keep their numbers, so labels and results need no translation.
#include "engine/model/sparse_mdp.h"
#include "graph/end_components.h"

namespace mdpvi {

// Each component's states, in increasing order.
std::vector<std::vector<std::uint32_t>> component_members(const graph::EndComponents& components);

struct CollapsedModel {
  SparseMdp mdp;             // structure only: no labels, valuations or initial states
  RewardStructure rewards;   // per row: the owner's state reward plus the row's own
};

// with_stop_rows: each component's first state also gets an empty row of reward 0,
// whose value is 0: stopping there, a total reward's option to stay in a component
// that collects nothing, forever.
// Pre: every component has a leaving row (else its states would have no choices),
// unless with_stop_rows.
CollapsedModel collapse_end_components(const SparseMdp& mdp, const graph::EndComponents& components,
                                       const RewardStructure* rewards = nullptr, bool with_stop_rows = false);

}  // namespace mdpvi
