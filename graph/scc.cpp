#include "graph/scc.h"

#include "graph/csr_digraph.h"
#include "graph/parallel_scc.h"

#include <boost/graph/strong_components.hpp>
#include <boost/graph/two_bit_color_map.hpp>
#include <boost/property_map/property_map.hpp>

#include <limits>

namespace mdpvi::graph {

namespace {

constexpr Vertex kNotMaybe = std::numeric_limits<Vertex>::max();

}  // namespace

SccDecomposition maybe_state_sccs(const SparseMdp& mdp, const StateSet& maybe, const StateSet* enabled_rows) {
  SccDecomposition result;
  std::vector<Vertex> local_of(mdp.num_states(), kNotMaybe);
  std::vector<std::uint32_t> states;
  for (auto s = maybe.find_first(); s != StateSet::npos; s = maybe.find_next(s)) {
    local_of[s] = static_cast<Vertex>(states.size());
    states.push_back(static_cast<std::uint32_t>(s));
  }
  const Vertex n = static_cast<Vertex>(states.size());
  result.scc_starts.assign(1, 0);
  if (n == 0) return result;

  CsrDigraph g = build_csr_digraph(n, [&](auto emit) {
    for (Vertex v = 0; v < n; ++v) {
      std::uint32_t s = states[v];
      for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
        if (enabled_rows && !enabled_rows->test(r)) continue;
        for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
          Vertex t = local_of[mdp.columns[k]];
          if (t != kNotMaybe) emit(v, t);
        }
      }
    }
  });
  local_of = {};

  // Boost's Tarjan numbers an SCC when it is finished, and an SCC finishes only after
  // every SCC it reaches: component numbers are already successors-first.
  using IndexMap = boost::typed_identity_property_map<Vertex>;
  std::vector<Vertex> component(n), root(n), discover_time(n);
  boost::two_bit_color_map<IndexMap> color(n, IndexMap());
  const Vertex num_sccs = static_cast<Vertex>(boost::strong_components(
      g, boost::make_iterator_property_map(component.data(), IndexMap()),
      boost::root_map(boost::make_iterator_property_map(root.data(), IndexMap()))
          .discover_time_map(boost::make_iterator_property_map(discover_time.data(), IndexMap()))
          .color_map(color)
          .vertex_index_map(IndexMap())));

  // Counting sort of the states by component number.
  result.scc_starts.assign(static_cast<std::size_t>(num_sccs) + 1, 0);
  for (Vertex v = 0; v < n; ++v) ++result.scc_starts[component[v] + 1];
  for (Vertex c = 0; c < num_sccs; ++c) result.scc_starts[c + 1] += result.scc_starts[c];
  std::vector<std::uint64_t> fill(result.scc_starts.begin(), result.scc_starts.end() - 1);
  result.order.resize(n);
  for (Vertex v = 0; v < n; ++v) result.order[fill[component[v]]++] = states[v];
  return result;
}

std::vector<std::uint32_t> scc_labels(SearchKind kind, const SparseMdp& mdp, const StateSet& states,
                                      const StateSet* enabled_rows) {
  if (kind != SearchKind::reference) return parallel_scc_labels(mdp, states, enabled_rows);
  std::vector<std::uint32_t> label(mdp.num_states(), kNotMaybe);
  SccDecomposition sccs = maybe_state_sccs(mdp, states, enabled_rows);
  for (std::size_t c = 0; c < sccs.num_sccs(); ++c) {
    for (std::uint64_t i = sccs.scc_starts[c]; i < sccs.scc_starts[c + 1]; ++i) label[sccs.order[i]] = static_cast<std::uint32_t>(c);
  }
  return label;
}

SccDecomposition maybe_state_sccs(SearchKind kind, const SparseMdp& mdp, const StateSet& maybe,
                                  const StateSet* enabled_rows) {
  if (kind == SearchKind::reference) return maybe_state_sccs(mdp, maybe, enabled_rows);
  return parallel_maybe_state_sccs(mdp, maybe, enabled_rows);
}

SccDecomposition maybe_state_sccs(const SearchBackend& search, const SparseMdp& mdp, const StateSet& maybe,
                                  const StateSet* enabled_rows) {
  if (&mdp == &search.mdp()) {
    if (auto sccs = search.device_sccs(maybe, enabled_rows)) return std::move(*sccs);
  }
  return maybe_state_sccs(search.kind(), mdp, maybe, enabled_rows);
}

std::vector<std::uint32_t> scc_labels(const SearchBackend& search, const SparseMdp& mdp, const StateSet& states,
                                      const StateSet* enabled_rows) {
  if (&mdp == &search.mdp()) {
    if (auto labels = search.device_scc_labels(states, enabled_rows)) return std::move(*labels);
  }
  return scc_labels(search.kind(), mdp, states, enabled_rows);
}

}  // namespace mdpvi::graph
