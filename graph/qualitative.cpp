#include "graph/qualitative.h"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/graph/two_bit_color_map.hpp>
#include <boost/pending/queue.hpp>
#include <boost/property_map/property_map.hpp>

#include <limits>
#include <stdexcept>

namespace mdpvi::graph {

namespace {

// Which vertices a search may enter. Boost default-constructs filter predicates, so
// this is a plain struct rather than a lambda.
struct VertexFilter {
  const StateSet* allowed_states = nullptr;
  const StateSet* allowed_choices = nullptr;  // nullptr: every choice
  Vertex num_states = 0;

  bool operator()(Vertex v) const {
    if (v < num_states) return allowed_states->test(v);
    return allowed_choices == nullptr || allowed_choices->test(v - num_states);
  }
};

// The states reachable backwards from sources through allowed vertices (sources
// included; each source must itself be allowed).
StateSet backward_reachable(const ChoicePredecessorGraph& g, const StateSet& sources, const StateSet& allowed_states,
                            const StateSet* allowed_choices = nullptr) {
  VertexFilter filter{&allowed_states, allowed_choices, g.num_states};
  boost::filtered_graph<CsrDigraph, boost::keep_all, VertexFilter> view(g.graph, boost::keep_all(), filter);
  std::vector<Vertex> roots;
  for (auto s = sources.find_first(); s != StateSet::npos; s = sources.find_next(s)) roots.push_back(static_cast<Vertex>(s));

  using IndexMap = boost::typed_identity_property_map<Vertex>;
  boost::two_bit_color_map<IndexMap> color(g.graph.vertex_count(), IndexMap());
  boost::queue<Vertex> queue;
  boost::breadth_first_search(view, roots.begin(), roots.end(), queue, boost::default_bfs_visitor(), color);

  StateSet reached(g.num_states);
  for (Vertex s = 0; s < g.num_states; ++s) {
    if (get(color, s) != boost::two_bit_white) reached.set(s);
  }
  return reached;
}

}  // namespace

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

StateSet prob0a(const ChoicePredecessorGraph& g, const StateSet& phi, const StateSet& psi) {
  return ~backward_reachable(g, psi, phi | psi);
}

// A backward attractor with a universal step: s joins when *every* choice of s has a
// successor inside. A breadth-first search cannot express "every", so this counts
// the choices still outside per state, a linear-time worklist over the same graph.
StateSet prob0e(const ChoicePredecessorGraph& g, const SparseMdp& mdp, const StateSet& phi, const StateSet& psi) {
  const Vertex states = g.num_states;
  StateSet attracted = psi;
  StateSet row_hit(mdp.num_choices());
  std::vector<std::uint32_t> rows_missing(states);
  for (Vertex s = 0; s < states; ++s) {
    rows_missing[s] = static_cast<std::uint32_t>(mdp.row_group_starts[s + 1] - mdp.row_group_starts[s]);
  }
  std::vector<Vertex> worklist;
  for (auto s = psi.find_first(); s != StateSet::npos; s = psi.find_next(s)) worklist.push_back(static_cast<Vertex>(s));
  const CsrDigraph& graph = g.graph;
  while (!worklist.empty()) {
    Vertex t = worklist.back();
    worklist.pop_back();
    for (std::uint64_t e = graph.offsets[t]; e < graph.offsets[t + 1]; ++e) {
      Vertex row_vertex = graph.targets[e];
      std::uint64_t row = row_vertex - states;
      if (row_hit.test(row)) continue;
      row_hit.set(row);
      Vertex owner = graph.targets[graph.offsets[row_vertex]];
      if (attracted.test(owner) || !phi.test(owner)) continue;
      if (--rows_missing[owner] == 0) {
        attracted.set(owner);
        worklist.push_back(owner);
      }
    }
  }
  return ~attracted;
}

StateSet prob1a(const ChoicePredecessorGraph& g, const StateSet& phi, const StateSet& psi, const StateSet& prob0e_states) {
  return ~backward_reachable(g, prob0e_states, (phi - psi) | prob0e_states);
}

StateSet prob1e(const ChoicePredecessorGraph& g, const SparseMdp& mdp, const StateSet& phi, const StateSet& psi,
                const StateSet& prob0a_states) {
  const Vertex states = g.num_states;
  StateSet inside = ~prob0a_states;
  StateSet choice_stays(mdp.num_choices());
  while (true) {
    choice_stays.reset();
    for (Vertex s = 0; s < states; ++s) {
      if (!inside.test(s)) continue;
      for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
        bool stays = true;
        for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1] && stays; ++k) stays = inside.test(mdp.columns[k]);
        if (stays) choice_stays.set(r);
      }
    }
    StateSet reached = backward_reachable(g, psi & inside, inside & (phi | psi), &choice_stays);
    if (reached == inside) return inside;
    inside = std::move(reached);
  }
}

QualitativePartition partition_for_min(const SparseMdp& mdp, const ChoicePredecessorGraph& g, const StateSet& phi,
                                       const StateSet& psi) {
  QualitativePartition p;
  p.no = prob0e(g, mdp, phi, psi);
  p.yes = prob1a(g, phi, psi, p.no);
  p.maybe = ~(p.yes | p.no);
  return p;
}

QualitativePartition partition_for_max(const SparseMdp& mdp, const ChoicePredecessorGraph& g, const StateSet& phi,
                                       const StateSet& psi) {
  QualitativePartition p;
  p.no = prob0a(g, phi, psi);
  p.yes = prob1e(g, mdp, phi, psi, p.no);
  p.maybe = ~(p.yes | p.no);
  return p;
}

}  // namespace mdpvi::graph
