#pragma once
// The graph searches' backends as a test parameter (graph/search_backend.h), and each
// one's name in the test names ("cpu_reference", "cpu_parallel", "gpu").
#include "graph/qualitative.h"
#include "graph/search_backend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

namespace mdpvi::test {

inline auto every_search_backend() {
  return ::testing::Values(graph::SearchKind::reference, graph::SearchKind::cpu_parallel, graph::SearchKind::gpu);
}

inline std::string search_backend_name(const ::testing::TestParamInfo<graph::SearchKind>& info) {
  std::string name = graph::to_string(info.param);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

// A model's predecessor graph and the reference search over it, made together.
struct ReferenceSearch {
  graph::ChoicePredecessorGraph graph;
  std::unique_ptr<graph::SearchBackend> search;
  explicit ReferenceSearch(const SparseMdp& mdp)
      : graph(graph::build_choice_predecessor_graph(mdp)),
        search(graph::make_search_backend(mdp, graph, graph::SearchKind::reference)) {}
};

}  // namespace mdpvi::test
