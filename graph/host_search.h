#pragma once
// What the CPU backends of the qualitative searches share: the model and its
// choice-predecessor graph, on the host. The graph is either the caller's, or the
// backend's own: made with the backend, released for a solve that needs the memory
// (release_search_memory), and made again by the next search.
#include "graph/qualitative.h"
#include "graph/search_backend.h"

#include <optional>

namespace mdpvi::graph {

class HostSearch : public SearchBackend {
 public:
  HostSearch(const SparseMdp& mdp, const ChoicePredecessorGraph& graph) : mdp_(mdp), given_(&graph) {}
  explicit HostSearch(const SparseMdp& mdp) : mdp_(mdp), own_(build_choice_predecessor_graph(mdp)) {}
  const SparseMdp& mdp() const override { return mdp_; }
  void release_search_memory() const override { own_.reset(); }

 protected:
  const ChoicePredecessorGraph& graph() const {
    if (given_ != nullptr) return *given_;
    if (!own_) own_.emplace(build_choice_predecessor_graph(mdp_));
    return *own_;
  }

  const SparseMdp& mdp_;

 private:
  const ChoicePredecessorGraph* given_ = nullptr;
  mutable std::optional<ChoicePredecessorGraph> own_;
};

}  // namespace mdpvi::graph
