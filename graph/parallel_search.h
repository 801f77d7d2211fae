#pragma once
// The oneTBB backend of the qualitative searches (graph/search_backend.h): for
// machines without a GPU and for graphs that do not fit on the device.
#include "graph/host_search.h"

#include <vector>

namespace mdpvi::graph {

class ParallelSearch final : public HostSearch {
 public:
  ParallelSearch(const SparseMdp& mdp, const ChoicePredecessorGraph& graph);

  SearchKind kind() const override { return SearchKind::cpu_parallel; }
  StateSet backward_exists(const StateSet& sources, const StateSet& allowed_states,
                           const StateSet* allowed_rows) const override;
  StateSet backward_forall(const StateSet& sources, const StateSet& allowed_states) const override;
  StateSet rows_staying_in(const StateSet& inside) const override;

 private:
  // Each row's state, one load where the graph needs two (4 bytes a row).
  std::vector<Vertex> owners_;
};

}  // namespace mdpvi::graph
