#include "graph/qualitative.h"

#include "graph/search_backend.h"

#include <limits>
#include <stdexcept>

namespace mdpvi::graph {

ChoicePredecessorGraph build_choice_predecessor_graph(const SparseMdp& mdp) {
  const std::uint64_t states = mdp.num_states();
  const std::uint64_t choices = mdp.num_choices();
  if (states + choices >= std::numeric_limits<Vertex>::max()) {
    throw std::length_error("model too large for the qualitative analysis: states + choices >= 2^32");
  }
  ChoicePredecessorGraph result;
  result.num_states = static_cast<Vertex>(states);
  result.graph = build_csr_digraph(static_cast<Vertex>(states + choices), [&](auto emit) {
    for (std::uint64_t s = 0; s < states; ++s) {
      for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
        Vertex row_vertex = static_cast<Vertex>(states + r);
        for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) emit(mdp.columns[k], row_vertex);
        emit(row_vertex, static_cast<Vertex>(s));
      }
    }
  });
  return result;
}

StateSet prob0a(const SearchBackend& search, const StateSet& phi, const StateSet& psi) {
  return ~search.backward_exists(psi, phi | psi, nullptr);
}

StateSet prob0e(const SearchBackend& search, const StateSet& phi, const StateSet& psi) {
  return ~search.backward_forall(psi, phi);
}

StateSet prob1a(const SearchBackend& search, const StateSet& phi, const StateSet& psi, const StateSet& prob0e_states) {
  return ~search.backward_exists(prob0e_states, (phi - psi) | prob0e_states, nullptr);
}

// The nested fixed point: U starts as the states that can reach psi at all; each
// round keeps the states that reach psi inside U by choices that stay inside U.
// Rounds repeat until U no longer shrinks (coin6_2: 28 rounds).
StateSet prob1e(const SearchBackend& search, const StateSet& phi, const StateSet& psi, const StateSet& prob0a_states) {
  StateSet inside = ~prob0a_states;
  while (true) {
    StateSet stays = search.rows_staying_in(inside);
    StateSet reached = search.backward_exists(psi & inside, inside & (phi | psi), &stays);
    if (reached == inside) return inside;
    inside = std::move(reached);
  }
}

QualitativePartition partition_for_min(const SearchBackend& search, const StateSet& phi, const StateSet& psi) {
  QualitativePartition p;
  p.no = prob0e(search, phi, psi);
  p.yes = prob1a(search, phi, psi, p.no);
  p.maybe = ~(p.yes | p.no);
  return p;
}

QualitativePartition partition_for_max(const SearchBackend& search, const StateSet& phi, const StateSet& psi) {
  QualitativePartition p;
  p.no = prob0a(search, phi, psi);
  p.yes = prob1e(search, phi, psi, p.no);
  p.maybe = ~(p.yes | p.no);
  return p;
}

}  // namespace mdpvi::graph
