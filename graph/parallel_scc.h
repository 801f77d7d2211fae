#pragma once
// The SCCs of the maybe-states on all cores (oneTBB): trimming, max-label coloring,
// and an order by height in the SCC DAG. Same contract as graph/scc.h's
// maybe_state_sccs (the Boost reference it is tested against): the same partition,
// in an order where every SCC comes after the SCCs it reaches; the order differs.
#include "graph/scc.h"

namespace mdpvi::graph {

// scc_heights, where given, receives each SCC's height (in the order's numbering):
// the longest path from it to an SCC without successors, which SCCs of one height
// share with none of the others they reach.
SccDecomposition parallel_maybe_state_sccs(const SparseMdp& mdp, const StateSet& maybe, const StateSet* enabled_rows,
                                           std::vector<std::uint32_t>* scc_heights = nullptr);

// The partition alone, without the order: per model state, the index of a state of
// its SCC (the same for all of them); none (UINT32_MAX) outside states. What end
// components need, at a fraction of the cost (no heights, no sorting).
std::vector<std::uint32_t> parallel_scc_labels(const SparseMdp& mdp, const StateSet& states,
                                               const StateSet* enabled_rows);

}  // namespace mdpvi::graph
