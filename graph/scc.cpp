#include "graph/scc.h"

#include "graph/csr_digraph.h"
#include "graph/parallel_scc.h"
#include "graph/search_backend.h"
#include "engine/model/process_memory.h"

#include <spdlog/spdlog.h>

#include <boost/graph/strong_components.hpp>
#include <boost/graph/two_bit_color_map.hpp>
#include <boost/property_map/property_map.hpp>

#include <algorithm>
#include <limits>
#include <numeric>

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
  local_of = std::vector<Vertex>();  // freed: "= {}" would keep the capacity

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

  // Each component's height, in one pass in component order: a component's
  // successors are numbered before it, so their heights are final.
  std::vector<Vertex> members(n), member_starts(static_cast<std::size_t>(num_sccs) + 1, 0);
  for (Vertex v = 0; v < n; ++v) ++member_starts[component[v] + 1];
  for (Vertex c = 0; c < num_sccs; ++c) member_starts[c + 1] += member_starts[c];
  {
    std::vector<Vertex> fill(member_starts.begin(), member_starts.end() - 1);
    for (Vertex v = 0; v < n; ++v) members[fill[component[v]]++] = v;
  }
  std::vector<std::uint32_t> height(num_sccs, 0);
  for (Vertex c = 0; c < num_sccs; ++c) {
    for (Vertex i = member_starts[c]; i < member_starts[c + 1]; ++i) {
      const Vertex v = members[i];
      for (std::uint64_t k = g.offsets[v]; k < g.offsets[v + 1]; ++k) {
        const Vertex w = component[g.targets[k]];
        if (w != c) height[c] = std::max(height[c], height[w] + 1);
      }
    }
  }
  // The components by height (stably: ties in Tarjan's order), states grouped by them.
  std::vector<Vertex> ranked(num_sccs);
  std::iota(ranked.begin(), ranked.end(), Vertex{0});
  std::stable_sort(ranked.begin(), ranked.end(), [&](Vertex a, Vertex b) { return height[a] < height[b]; });
  result.scc_starts.assign(static_cast<std::size_t>(num_sccs) + 1, 0);
  result.order.resize(n);
  std::vector<std::uint32_t> sorted_heights(num_sccs);
  for (Vertex i = 0; i < num_sccs; ++i) {
    const Vertex c = ranked[i];
    sorted_heights[i] = height[c];
    result.scc_starts[i + 1] = result.scc_starts[i] + (member_starts[c + 1] - member_starts[c]);
    for (Vertex k = member_starts[c]; k < member_starts[c + 1]; ++k) {
      result.order[result.scc_starts[i] + (k - member_starts[c])] = states[members[k]];
    }
  }
  result.level_starts = level_starts_of(sorted_heights);
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

namespace {

// Before the SCCs of `states` on the cores: the searches' graph goes where they may
// take half the unused memory, or where no property follows (the end components after
// them build what they need: bench/NOTES.md, session 25). Boost's reference is for
// tests, and keeps it.
void make_room_for_cpu_sccs(const SearchBackend& search, const SparseMdp& mdp, const StateSet& states) {
  if (search.kind() == SearchKind::reference) return;
  release_for_the_last_property(search);
  make_room_for(search, parallel_scc_bytes(mdp, states), "the SCCs");
}

}  // namespace

namespace {

SccDecomposition decomposed_now(const SearchBackend& search, const SparseMdp& mdp, const StateSet& maybe,
                                const StateSet* enabled_rows) {
  if (&mdp == &search.mdp()) {
    if (auto sccs = search.device_sccs(maybe, enabled_rows)) return std::move(*sccs);
  }
  make_room_for_cpu_sccs(search, mdp, maybe);
  return maybe_state_sccs(search.kind(), mdp, maybe, enabled_rows);
}

}  // namespace

// Decomposed over every row of the backend's model, the SCCs are kept for the next
// property with the same states (SearchBackend::remember_sccs_while), where a kept
// copy (graph/kept_sccs.h) takes at most a quarter of the unused memory.
SccDecomposition maybe_state_sccs(const SearchBackend& search, const SparseMdp& mdp, const StateSet& maybe,
                                  const StateSet* enabled_rows) {
  const bool rememberable = &mdp == &search.mdp() && enabled_rows == nullptr;
  if (const KeptSccs* known = rememberable ? search.remembered_sccs(maybe) : nullptr) {
    spdlog::debug("SCCs of {} states: those an earlier property found", maybe.count());
    // The last property that may want them takes them; another gets a copy.
    SccDecomposition sccs = search.remembering_sccs() ? known->copy() : search.take_remembered_sccs();
    sccs.ran_on = "remembered";
    return sccs;
  }
  SccDecomposition sccs = decomposed_now(search, mdp, maybe, enabled_rows);
  if (rememberable && search.remembering_sccs()) {
    search.forget_sccs();
    if (KeptSccs::bytes_for(sccs) + maybe.size() / 8 <= unused_memory_bytes() / 4) {
      search.remember_sccs(maybe, KeptSccs::copy_of(sccs));
    }
  }
  return sccs;
}

std::vector<std::uint32_t> scc_labels(const SearchBackend& search, const SparseMdp& mdp, const StateSet& states,
                                      const StateSet* enabled_rows) {
  if (&mdp == &search.mdp()) {
    if (auto labels = search.device_scc_labels(states, enabled_rows)) return std::move(*labels);
  }
  make_room_for_cpu_sccs(search, mdp, states);
  return scc_labels(search.kind(), mdp, states, enabled_rows);
}

}  // namespace mdpvi::graph
