#pragma once
// The SCCs of the maybe-states on all cores (oneTBB): trimming, max-label coloring,
// and an order by height in the SCC DAG. Same contract as graph/scc.h's
// maybe_state_sccs (the Boost reference it is tested against): the same partition,
// in an order where every SCC comes after the SCCs it reaches; the order differs.
#include "graph/scc.h"

namespace mdpvi::graph {

// Where the decomposition reads the graph's forward edges: a copy of its own (4 bytes
// an entry and 8 a state; the fastest), or the model's rows (about a quarter of the
// memory less, the trimming and coloring slower). automatic: a copy where the whole
// decomposition with it takes at most half the memory still unused.
enum class ForwardEdges { automatic, copied, from_model };

// scc_heights, where given, receives each SCC's height (in the order's numbering):
// the longest path from it to an SCC without successors, which SCCs of one height
// share with none of the others they reach. The result does not depend on forward.
SccDecomposition parallel_maybe_state_sccs(const SparseMdp& mdp, const StateSet& maybe, const StateSet* enabled_rows,
                                           std::vector<std::uint32_t>* scc_heights = nullptr,
                                           ForwardEdges forward = ForwardEdges::automatic);

// What the decomposition of `states` may hold at its peak with the forward edges
// copied: about 60 bytes a state and two edges per entry of their rows (the model's
// entries in proportion to the states).
std::uint64_t parallel_scc_bytes(const SparseMdp& mdp, const StateSet& states);

// The partition alone, without the order: per model state, the index of a state of
// its SCC (the same for all of them); none (UINT32_MAX) outside states. What end
// components need, at a fraction of the cost (no heights, no sorting).
std::vector<std::uint32_t> parallel_scc_labels(const SparseMdp& mdp, const StateSet& states,
                                               const StateSet* enabled_rows,
                                               ForwardEdges forward = ForwardEdges::automatic);

}  // namespace mdpvi::graph
