#pragma once
// The maybe-states' SCCs for a system whose end components of some rows are collapsed
// first (Rmin's zero-reward ones, an upper Pmax iterate's all): the SCCs come first,
// and the end components are looked for only among the states that can hold one
// (graph/end_components.h's end_component_candidates), which are few where the SCCs
// are mostly single states, as on leader (bench/NOTES.md, session 19). Where
// components are found, the model is collapsed and its SCCs found again.
#include "engine/solve/end_component_quotient.h"
#include "graph/scc_decomposition.h"
#include "graph/search_backend.h"

#include <optional>

namespace mdpvi {

struct CollapsedSccs {
  std::optional<CollapsedModel> collapsed;  // none where rows hold no end component among maybe
  graph::SccDecomposition sccs;             // of the collapsed model where there is one, else of mdp
  const SparseMdp& model(const SparseMdp& mdp) const { return collapsed ? collapsed->mdp : mdp; }
};

// rows: the choices the end components may use (num_choices bits); rewards: carried
// into the collapsed model, as collapse_end_components does.
CollapsedSccs sccs_after_collapsing(const graph::SearchBackend& search, const SparseMdp& mdp, const StateSet& maybe,
                                    StateSet rows, const RewardStructure* rewards = nullptr);

}  // namespace mdpvi
