#pragma once
// What the CPU backends of the qualitative searches share: the model and its
// choice-predecessor graph, on the host.
#include "graph/qualitative.h"
#include "graph/search_backend.h"

namespace mdpvi::graph {

class HostSearch : public SearchBackend {
 public:
  HostSearch(const SparseMdp& mdp, const ChoicePredecessorGraph& graph) : mdp_(mdp), g_(graph) {}
  const SparseMdp& mdp() const override { return mdp_; }

 protected:
  const SparseMdp& mdp_;
  const ChoicePredecessorGraph& g_;
};

}  // namespace mdpvi::graph
