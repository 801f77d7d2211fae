#pragma once
// The strongly connected components of the maybe-states, in the order a topological
// solver needs them: every SCC comes after all the SCCs it can reach (successors
// first), so that when it is solved, the values it depends on outside itself are final.
#include "engine/model/sparse_mdp.h"
#include "graph/search_backend.h"

#include <cstdint>
#include <vector>

namespace mdpvi::graph {

struct SccDecomposition {
  // The maybe-states (model indices), grouped by SCC, the SCCs in topological order
  // with successors first.
  std::vector<std::uint32_t> order;
  // SCC i is order[scc_starts[i] .. scc_starts[i+1]); size num_sccs + 1.
  std::vector<std::uint64_t> scc_starts;

  std::size_t num_sccs() const { return scc_starts.empty() ? 0 : scc_starts.size() - 1; }
};

// Only edges between maybe-states count, and with enabled_rows only those of the
// enabled choice rows (Pre: maybe.size() == mdp.num_states(); enabled_rows, where
// given, has num_choices bits).
SccDecomposition maybe_state_sccs(const SparseMdp& mdp, const StateSet& maybe, const StateSet* enabled_rows = nullptr);

// As maybe_state_sccs with the search backend's kind: the Boost reference above for
// SearchKind::reference, graph/parallel_scc.h's decomposition otherwise (the SCCs
// have no device version yet).
SccDecomposition maybe_state_sccs(SearchKind kind, const SparseMdp& mdp, const StateSet& maybe,
                                  const StateSet* enabled_rows = nullptr);

// The partition alone: per model state, a label shared by exactly the states of its
// SCC; UINT32_MAX outside states.
std::vector<std::uint32_t> scc_labels(SearchKind kind, const SparseMdp& mdp, const StateSet& states,
                                      const StateSet* enabled_rows);

// Where maybe_state_sccs(kind, ...) runs: "cpu-reference" or "cpu-parallel".
const char* scc_backend(SearchKind kind);

}  // namespace mdpvi::graph
