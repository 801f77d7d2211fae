#pragma once
// The strongly connected components of the maybe-states, in the order a topological
// solver needs them: every SCC comes after all the SCCs it can reach (successors
// first), so that when it is solved, the values it depends on outside itself are final.
#include "engine/model/sparse_mdp.h"
#include "graph/scc_decomposition.h"
#include "graph/search_backend.h"

#include <cstdint>
#include <vector>

namespace mdpvi::graph {

// Only edges between maybe-states count, and with enabled_rows only those of the
// enabled choice rows (Pre: maybe.size() == mdp.num_states(); enabled_rows, where
// given, has num_choices bits).
SccDecomposition maybe_state_sccs(const SparseMdp& mdp, const StateSet& maybe, const StateSet* enabled_rows = nullptr);

// As maybe_state_sccs on the CPU: the Boost reference above for SearchKind::reference,
// graph/parallel_scc.h's decomposition otherwise.
SccDecomposition maybe_state_sccs(SearchKind kind, const SparseMdp& mdp, const StateSet& maybe,
                                  const StateSet* enabled_rows = nullptr);

// As maybe_state_sccs on the backend's device (gpu/graph_search.h) when mdp is the
// backend's model and the backend has one, else on the CPU as its kind says.
SccDecomposition maybe_state_sccs(const SearchBackend& search, const SparseMdp& mdp, const StateSet& maybe,
                                  const StateSet* enabled_rows = nullptr);

// The partition alone: per model state, a label shared by exactly the states of its
// SCC; UINT32_MAX outside states.
std::vector<std::uint32_t> scc_labels(SearchKind kind, const SparseMdp& mdp, const StateSet& states,
                                      const StateSet* enabled_rows);
std::vector<std::uint32_t> scc_labels(const SearchBackend& search, const SparseMdp& mdp, const StateSet& states,
                                      const StateSet* enabled_rows);

}  // namespace mdpvi::graph
