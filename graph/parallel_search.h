#pragma once
// The oneTBB backend of the qualitative searches (graph/search_backend.h): for
// machines without a GPU and for graphs that do not fit on the device.
#include "graph/qualitative.h"
#include "graph/search_backend.h"

namespace mdpvi::graph {

class ParallelSearch final : public SearchBackend {
 public:
  ParallelSearch(const SparseMdp& mdp, const ChoicePredecessorGraph& graph);

  SearchKind kind() const override { return SearchKind::cpu_parallel; }
  const SparseMdp& mdp() const override { return mdp_; }
  StateSet backward_exists(const StateSet& sources, const StateSet& allowed_states,
                           const StateSet* allowed_rows) const override;
  StateSet backward_forall(const StateSet& sources, const StateSet& allowed_states) const override;
  StateSet rows_staying_in(const StateSet& inside) const override;

 private:
  const SparseMdp& mdp_;
  const ChoicePredecessorGraph& g_;
  // Each row's state, one load where the graph needs two (4 bytes a row).
  std::vector<Vertex> owners_;
};

}  // namespace mdpvi::graph
