#pragma once
// Prob0/Prob1: the states where the probability of (phi U psi) is exactly 0 or 1,
// for the minimising and the maximising scheduler, by graph search alone (Baier &
// Katoen, Principles of Model Checking, section 10.6). They make the numerical
// problem smaller and give it a unique solution. Each is written once over the
// searches of graph/search_backend.h, and runs on whichever backend is given.
#include "engine/model/sparse_mdp.h"
#include "graph/csr_digraph.h"
#include "graph/qualitative_sets.h"

namespace mdpvi::graph {

class SearchBackend;

// The searches go backwards over a bipartite graph: vertices 0..S-1 are states,
// S..S+C-1 are choice rows; state t has an edge to each row with t as a successor,
// row r an edge to the state that owns it. "Some choice of s leads to X" is then a
// path t -> r -> s.
struct ChoicePredecessorGraph {
  CsrDigraph graph;
  Vertex num_states = 0;

  // The state that owns row r.
  Vertex owner(std::uint64_t row) const { return graph.targets[graph.offsets[num_states + row]]; }
};

// Pre: states + choices < 2^32 (else std::length_error).
ChoicePredecessorGraph build_choice_predecessor_graph(const SparseMdp& mdp);

// Pmax(phi U psi) = 0: psi cannot be reached through phi-states at all.
StateSet prob0a(const SearchBackend& search, const StateSet& phi, const StateSet& psi);
// Pmin(phi U psi) = 0: some scheduler avoids psi forever (or leaves phi first).
StateSet prob0e(const SearchBackend& search, const StateSet& phi, const StateSet& psi);
// Pmin(phi U psi) = 1, given prob0e's result: no path through (phi & !psi)-states
// leads into a state where some scheduler gets probability 0.
StateSet prob1a(const SearchBackend& search, const StateSet& phi, const StateSet& psi, const StateSet& prob0e_states);
// Pmax(phi U psi) = 1, given prob0a's result: the greatest set U such that from each
// state some choice stays inside U and psi is reached inside U.
StateSet prob1e(const SearchBackend& search, const StateSet& phi, const StateSet& psi, const StateSet& prob0a_states);

QualitativePartition partition_for_min(const SearchBackend& search, const StateSet& phi, const StateSet& psi);
QualitativePartition partition_for_max(const SearchBackend& search, const StateSet& phi, const StateSet& psi);

}  // namespace mdpvi::graph
