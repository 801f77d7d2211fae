#pragma once
// The plain CPU reference of the qualitative searches (graph/search_backend.h), which
// the faster backends are tested against.
#include "graph/qualitative.h"
#include "graph/search_backend.h"

namespace mdpvi::graph {

class ReferenceSearch final : public SearchBackend {
 public:
  ReferenceSearch(const SparseMdp& mdp, const ChoicePredecessorGraph& graph) : mdp_(mdp), g_(graph) {}

  SearchKind kind() const override { return SearchKind::reference; }
  const SparseMdp& mdp() const override { return mdp_; }
  StateSet backward_exists(const StateSet& sources, const StateSet& allowed_states,
                           const StateSet* allowed_rows) const override;
  StateSet backward_forall(const StateSet& sources, const StateSet& allowed_states) const override;
  StateSet rows_staying_in(const StateSet& inside) const override;

 private:
  const SparseMdp& mdp_;
  const ChoicePredecessorGraph& g_;
};

}  // namespace mdpvi::graph
