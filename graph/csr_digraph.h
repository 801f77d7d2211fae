#pragma once
// A compact directed graph in CSR form that models Boost.Graph's IncidenceGraph and
// VertexListGraph concepts, so that Boost's strong_components (the reference SCCs,
// graph/scc.cpp) runs on it directly: 12 bytes per vertex and 4 per
// edge, no copy into an adjacency_list.
#include <boost/graph/graph_traits.hpp>
#include <boost/iterator/counting_iterator.hpp>
#include <boost/iterator/transform_iterator.hpp>

#include <cstdint>
#include <utility>
#include <vector>

namespace mdpvi::graph {

using Vertex = std::uint32_t;

struct CsrDigraph {
  std::vector<std::uint64_t> offsets;  // num_vertices + 1
  std::vector<Vertex> targets;

  Vertex vertex_count() const { return offsets.empty() ? 0 : static_cast<Vertex>(offsets.size() - 1); }
};

struct Arc {
  Vertex source;
  Vertex target;
  bool operator==(const Arc&) const = default;
};

// Turns the position of an edge in CsrDigraph::targets into an Arc.
struct ArcAt {
  Vertex source = 0;
  const Vertex* targets = nullptr;
  Arc operator()(std::uint64_t position) const { return {source, targets[position]}; }
};

using OutArcIterator = boost::transform_iterator<ArcAt, boost::counting_iterator<std::uint64_t>, Arc, Arc>;
using VertexIterator = boost::counting_iterator<Vertex>;

inline std::pair<OutArcIterator, OutArcIterator> out_edges(Vertex v, const CsrDigraph& g) {
  ArcAt at{v, g.targets.data()};
  return {OutArcIterator(boost::counting_iterator<std::uint64_t>(g.offsets[v]), at),
          OutArcIterator(boost::counting_iterator<std::uint64_t>(g.offsets[v + 1]), at)};
}
inline std::uint64_t out_degree(Vertex v, const CsrDigraph& g) { return g.offsets[v + 1] - g.offsets[v]; }
inline Vertex source(const Arc& e, const CsrDigraph&) { return e.source; }
inline Vertex target(const Arc& e, const CsrDigraph&) { return e.target; }
inline std::pair<VertexIterator, VertexIterator> vertices(const CsrDigraph& g) {
  return {VertexIterator(0), VertexIterator(g.vertex_count())};
}
inline Vertex num_vertices(const CsrDigraph& g) { return g.vertex_count(); }

// Builds a CsrDigraph from a function that calls emit(source, target) for every
// edge, twice (one pass counts, one fills): no edge list is materialised.
template <typename ForEachEdge>
CsrDigraph build_csr_digraph(Vertex num_vertices, ForEachEdge for_each_edge) {
  CsrDigraph g;
  g.offsets.assign(static_cast<std::size_t>(num_vertices) + 1, 0);
  for_each_edge([&](Vertex from, Vertex) { ++g.offsets[from + 1]; });
  for (std::size_t v = 0; v < num_vertices; ++v) g.offsets[v + 1] += g.offsets[v];
  g.targets.resize(g.offsets.back());
  std::vector<std::uint64_t> fill(g.offsets.begin(), g.offsets.end() - 1);
  for_each_edge([&](Vertex from, Vertex to) { g.targets[fill[from]++] = to; });
  return g;
}

}  // namespace mdpvi::graph

namespace boost {

template <>
struct graph_traits<mdpvi::graph::CsrDigraph> {
  using vertex_descriptor = mdpvi::graph::Vertex;
  using edge_descriptor = mdpvi::graph::Arc;
  using directed_category = directed_tag;
  using edge_parallel_category = allow_parallel_edge_tag;
  struct traversal_category : incidence_graph_tag, vertex_list_graph_tag {};
  using out_edge_iterator = mdpvi::graph::OutArcIterator;
  using vertex_iterator = mdpvi::graph::VertexIterator;
  // Boost's adaptors name these types; the algorithm used here never calls them.
  using in_edge_iterator = out_edge_iterator;
  using adjacency_iterator = vertex_iterator;
  using edge_iterator = out_edge_iterator;
  using degree_size_type = std::uint64_t;
  using vertices_size_type = mdpvi::graph::Vertex;
  using edges_size_type = std::uint64_t;
  static vertex_descriptor null_vertex() { return ~vertex_descriptor{0}; }
};

}  // namespace boost
