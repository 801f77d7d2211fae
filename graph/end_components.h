#pragma once
// Maximal end components (MECs): sets of states and choices in which a scheduler can
// stay forever with probability 1 (de Alfaro 1997; Baier & Katoen, Algorithm 47).
// Value iteration from 0 converges to the wrong fixed point inside some of them
// (zero-reward ones for Rmin, all of them for an upper Pmax iterate), so they are
// found here and collapsed by the caller.
#include "engine/model/sparse_mdp.h"
#include "graph/scc_decomposition.h"
#include "graph/search_backend.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace mdpvi::graph {

struct EndComponents {
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> component_of;  // per model state: its MEC, or kNone
  StateSet internal_rows;                   // per choice row: it stays inside its state's MEC
  std::uint32_t count = 0;
};

// The states of `states` that can lie in an end component of the sub-MDP restricted
// to rows: members of SCCs of two or more states, and states with a row of rows that
// returns only to themselves. An end component is strongly connected through its own
// rows, so it lies within one SCC of any decomposition of `states` over all their
// rows (sccs: such a decomposition, as maybe_state_sccs makes it); the candidates are
// all a search for the end components needs.
// Pre: sccs decomposes states; rows has num_choices bits.
StateSet end_component_candidates(const SparseMdp& mdp, const StateSet& states, const SccDecomposition& sccs,
                                  const StateSet& rows);

// The MECs of the sub-MDP of `states` restricted to `enabled_rows`: the usual
// refinement, SCCs, then dropping every row that can leave its SCC and every state
// left without rows, until nothing changes.
// Pre: states has num_states bits, enabled_rows num_choices bits. The SCCs come from
// the decomposition of the given kind (graph/scc.h).
EndComponents maximal_end_components(const SparseMdp& mdp, StateSet states, StateSet enabled_rows,
                                     SearchKind kind = SearchKind::reference);
// The same on the search backend's model, its SCCs on its device where it has one.
// first_labels, where not empty: the first round's SCC labels of states over
// enabled_rows, known already (scc_labels_within), in place of a labelling.
EndComponents maximal_end_components(const SearchBackend& search, StateSet states, StateSet enabled_rows,
                                     std::vector<std::uint32_t> first_labels = {});

// The states of every component; of those chosen (one flag a component); of those
// that hold a state of `marked`.
StateSet states_in_components(const EndComponents& components);
StateSet states_in_chosen_components(const EndComponents& components, const std::vector<char>& chosen);
StateSet states_in_components_holding(const EndComponents& components, const StateSet& marked);

// The SCC labels of `states` over every row, as graph/scc.h's scc_labels gives them, from
// a decomposition (sccs) of a set that holds them, where states is a union of its SCCs
// (end_component_candidates are): the first state of each member's SCC; kNone outside
// states. The SCCs of a union of SCCs are those SCCs: no cycle leaves its SCC.
std::vector<std::uint32_t> scc_labels_within(const SccDecomposition& sccs, const StateSet& states,
                                             std::uint32_t num_states);

}  // namespace mdpvi::graph
