#include "graph/qualitative.h"

#include "graph/search_backend.h"

#include <oneapi/tbb/parallel_for.h>

#include <atomic>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace mdpvi::graph {

// Built on all cores: the edges into a state are counted and placed with atomics, so
// their order within the state's list varies from run to run; no search depends on it.
// (Sequential, the two passes took seconds of a large model's run.)
ChoicePredecessorGraph build_choice_predecessor_graph(const SparseMdp& mdp) {
  const std::uint64_t states = mdp.num_states();
  const std::uint64_t choices = mdp.num_choices();
  if (states + choices >= std::numeric_limits<Vertex>::max()) {
    throw std::length_error("model too large for the qualitative analysis: states + choices >= 2^32");
  }
  ChoicePredecessorGraph result;
  result.num_states = static_cast<Vertex>(states);
  std::vector<std::uint64_t>& offsets = result.graph.offsets;
  offsets.assign(states + choices + 1, 0);
  oneapi::tbb::parallel_for(std::uint64_t{0}, choices, [&](std::uint64_t r) {
    offsets[states + r + 1] = 1;  // a row's one edge, to its state
    for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
      std::atomic_ref<std::uint64_t>(offsets[mdp.columns[k] + 1]).fetch_add(1, std::memory_order_relaxed);
    }
  });
  std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
  std::vector<Vertex>& targets = result.graph.targets;
  targets.resize(offsets.back());
  std::vector<std::uint64_t> fill(offsets.begin(), offsets.begin() + states);
  oneapi::tbb::parallel_for(std::uint64_t{0}, states, [&](std::uint64_t s) {
    for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
      const Vertex row_vertex = static_cast<Vertex>(states + r);
      targets[offsets[row_vertex]] = static_cast<Vertex>(s);
      for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
        targets[std::atomic_ref<std::uint64_t>(fill[mdp.columns[k]]).fetch_add(1, std::memory_order_relaxed)] = row_vertex;
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
// round keeps the states that reach psi inside U by choices that stay inside U
// (SearchBackend::stay_and_reach). Rounds repeat until U no longer shrinks (tens of
// rounds on the consensus models).
StateSet prob1e(const SearchBackend& search, const StateSet& phi, const StateSet& psi, const StateSet& prob0a_states) {
  return search.stay_and_reach(psi, phi | psi, ~prob0a_states);
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
