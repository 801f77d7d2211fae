#include "graph/qualitative.h"

#include "graph/search_backend.h"

#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <numeric>

namespace mdpvi::graph {

// Built on all cores: the entries into a state are counted and placed with atomics,
// so the order of a state's rows varies from run to run; no search depends on it. The
// offsets serve as the fill cursors (each ends at the next state's start) and are
// shifted back by one state after, so the build needs no second array of them.
ChoicePredecessorGraph build_choice_predecessor_graph(const SparseMdp& mdp, RowIdWidth width) {
  const std::uint32_t states = mdp.num_states();
  const std::uint64_t choices = mdp.num_choices();
  ChoicePredecessorGraph result;
  result.num_states = states;
  PodVector<std::uint64_t>& offsets = result.offsets;
  offsets.resize(std::uint64_t{states} + 1);
  oneapi::tbb::parallel_for(std::uint64_t{0}, offsets.size(), [&](std::uint64_t t) { offsets[t] = 0; });
  oneapi::tbb::parallel_for(std::uint64_t{0}, mdp.num_transitions(), [&](std::uint64_t k) {
    std::atomic_ref<std::uint64_t>(offsets[mdp.columns[k] + 1]).fetch_add(1, std::memory_order_relaxed);
  });
  std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
  result.rows.resize(offsets.back(), choices, width);
  result.owners.resize(choices);
  oneapi::tbb::parallel_for(std::uint32_t{0}, states, [&](std::uint32_t s) {
    for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
      result.owners[r] = s;
      for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
        result.rows.set(std::atomic_ref<std::uint64_t>(offsets[mdp.columns[k]]).fetch_add(1, std::memory_order_relaxed), r);
      }
    }
  });
  // offsets[t] is now t's end, which is t + 1's start.
  std::copy_backward(offsets.begin(), offsets.end() - 1, offsets.end());
  offsets[0] = 0;
  return result;
}

StateSet prob0a(const SearchBackend& search, const StateSet& phi, const StateSet& psi) {
  return ~search.backward_exists(psi, phi | psi, nullptr);
}

StateSet prob0e(const SearchBackend& search, const StateSet& phi, const StateSet& psi) {
  return ~search.backward_forall(psi, phi);
}

StateSet surely_staying(const SearchBackend& search, const StateSet& set) { return prob0e(search, set, ~set); }

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
