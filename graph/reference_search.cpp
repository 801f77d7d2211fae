// The plain CPU reference of graph/search_backend.h: Boost.Graph's breadth-first
// search over the choice-predecessor graph, and serial loops.
#include "graph/reference_search.h"

#include "graph/qualitative.h"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/graph/two_bit_color_map.hpp>
#include <boost/pending/queue.hpp>
#include <boost/property_map/property_map.hpp>

namespace mdpvi::graph {

namespace {

// Which vertices a search may enter. Boost default-constructs filter predicates, so
// this is a plain struct rather than a lambda.
struct VertexFilter {
  const StateSet* allowed_states = nullptr;
  const StateSet* allowed_rows = nullptr;  // nullptr: every row
  Vertex num_states = 0;

  bool operator()(Vertex v) const {
    if (v < num_states) return allowed_states->test(v);
    return allowed_rows == nullptr || allowed_rows->test(v - num_states);
  }
};

}  // namespace

StateSet ReferenceSearch::backward_exists(const StateSet& sources, const StateSet& allowed_states,
                                          const StateSet* allowed_rows) const {
  VertexFilter filter{&allowed_states, allowed_rows, g_.num_states};
  boost::filtered_graph<CsrDigraph, boost::keep_all, VertexFilter> view(g_.graph, boost::keep_all(), filter);
  std::vector<Vertex> roots;
  for (auto s = sources.find_first(); s != StateSet::npos; s = sources.find_next(s)) roots.push_back(static_cast<Vertex>(s));

  using IndexMap = boost::typed_identity_property_map<Vertex>;
  boost::two_bit_color_map<IndexMap> color(g_.graph.vertex_count(), IndexMap());
  boost::queue<Vertex> queue;
  boost::breadth_first_search(view, roots.begin(), roots.end(), queue, boost::default_bfs_visitor(), color);

  StateSet reached(g_.num_states);
  for (Vertex s = 0; s < g_.num_states; ++s) {
    if (get(color, s) != boost::two_bit_white) reached.set(s);
  }
  return reached;
}

// A breadth-first search cannot express "every", so this counts the rows still
// outside per state: a linear-time worklist over the same graph.
StateSet ReferenceSearch::backward_forall(const StateSet& sources, const StateSet& allowed_states) const {
  const Vertex states = g_.num_states;
  StateSet attracted = sources;
  StateSet row_hit(mdp_.num_choices());
  std::vector<std::uint32_t> rows_missing(states);
  for (Vertex s = 0; s < states; ++s) {
    rows_missing[s] = static_cast<std::uint32_t>(mdp_.row_group_starts[s + 1] - mdp_.row_group_starts[s]);
  }
  std::vector<Vertex> worklist;
  for (auto s = sources.find_first(); s != StateSet::npos; s = sources.find_next(s)) worklist.push_back(static_cast<Vertex>(s));
  const CsrDigraph& graph = g_.graph;
  while (!worklist.empty()) {
    Vertex t = worklist.back();
    worklist.pop_back();
    for (std::uint64_t e = graph.offsets[t]; e < graph.offsets[t + 1]; ++e) {
      Vertex row_vertex = graph.targets[e];
      std::uint64_t row = row_vertex - states;
      if (row_hit.test(row)) continue;
      row_hit.set(row);
      Vertex owner = g_.owner(row);
      if (attracted.test(owner) || !allowed_states.test(owner)) continue;
      if (--rows_missing[owner] == 0) {
        attracted.set(owner);
        worklist.push_back(owner);
      }
    }
  }
  return attracted;
}

StateSet ReferenceSearch::rows_staying_in(const StateSet& inside) const {
  StateSet stays(mdp_.num_choices());
  for (auto s = inside.find_first(); s != StateSet::npos; s = inside.find_next(s)) {
    for (std::uint64_t r = mdp_.row_group_starts[s]; r < mdp_.row_group_starts[s + 1]; ++r) {
      bool all_inside = true;
      for (std::uint64_t k = mdp_.row_starts[r]; k < mdp_.row_starts[r + 1] && all_inside; ++k) {
        all_inside = inside.test(mdp_.columns[k]);
      }
      if (all_inside) stays.set(r);
    }
  }
  return stays;
}

}  // namespace mdpvi::graph
