#pragma once
// Prob0/Prob1: the states where the probability of (phi U psi) is exactly 0 or 1,
// for the minimising and the maximising scheduler, by graph search alone (Baier &
// Katoen, Principles of Model Checking, section 10.6). They make the numerical
// problem smaller and give it a unique solution. Each is written once over the
// searches of graph/search_backend.h, and runs on whichever backend is given.
#include "engine/model/sparse_mdp.h"
#include "engine/model/pod_vector.h"
#include "graph/row_ids.h"
#include "graph/qualitative_sets.h"

namespace mdpvi::graph {

class SearchBackend;

// The searches go backwards: for each state t, the rows with t as a successor (once
// per entry, so a row with t twice is listed twice), and each row's state. "Some choice
// of s leads to X" is then t -> row -> owner. States are counted in 32 bits and rows
// in 64, so no count limits the model (rows are listed in 4 bytes where they fit):
// 8 bytes a state, 4 or 8 an entry and 4 a row.
struct ChoicePredecessorGraph {
  std::uint32_t num_states = 0;
  PodVector<std::uint64_t> offsets;  // num_states + 1: t's rows are rows[offsets[t] .. offsets[t + 1])
  RowIds rows;
  PodVector<std::uint32_t> owners;  // num_choices

  std::uint32_t owner(std::uint64_t row) const { return owners[row]; }
  std::uint64_t bytes() const { return offsets.size() * 8 + rows.bytes() + owners.size() * 4; }
};

// width: the rows' list in 4 bytes (automatic: where the model has fewer than 2^32
// choices) or 8 (tests take wide on small models).
ChoicePredecessorGraph build_choice_predecessor_graph(const SparseMdp& mdp, RowIdWidth width = RowIdWidth::automatic);

// Pmax(phi U psi) = 0: psi cannot be reached through phi-states at all.
StateSet prob0a(const SearchBackend& search, const StateSet& phi, const StateSet& psi);
// Pmin(phi U psi) = 0: some scheduler avoids psi forever (or leaves phi first).
StateSet prob0e(const SearchBackend& search, const StateSet& phi, const StateSet& psi);
// The states of `set` from which some scheduler surely stays in it forever: Prob0E of
// reaching its complement, the set less its complement's attractor (one backward search).
StateSet surely_staying(const SearchBackend& search, const StateSet& set);
// Pmin(phi U psi) = 1, given prob0e's result: no path through (phi & !psi)-states
// leads into a state where some scheduler gets probability 0.
StateSet prob1a(const SearchBackend& search, const StateSet& phi, const StateSet& psi, const StateSet& prob0e_states);
// Pmax(phi U psi) = 1, given prob0a's result: the greatest set U such that from each
// state some choice stays inside U and psi is reached inside U.
StateSet prob1e(const SearchBackend& search, const StateSet& phi, const StateSet& psi, const StateSet& prob0a_states);

QualitativePartition partition_for_min(const SearchBackend& search, const StateSet& phi, const StateSet& psi);
QualitativePartition partition_for_max(const SearchBackend& search, const StateSet& phi, const StateSet& psi);

}  // namespace mdpvi::graph
