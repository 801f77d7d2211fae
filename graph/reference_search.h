#pragma once
// The plain CPU reference of the qualitative searches (graph/search_backend.h), which
// the faster backends are tested against.
#include "graph/host_search.h"

namespace mdpvi::graph {

class ReferenceSearch final : public HostSearch {
 public:
  using HostSearch::HostSearch;

  SearchKind kind() const override { return SearchKind::reference; }
  StateSet backward_exists(const StateSet& sources, const StateSet& allowed_states,
                           const StateSet* allowed_rows) const override;
  StateSet backward_forall(const StateSet& sources, const StateSet& allowed_states) const override;
  StateSet rows_staying_in(const StateSet& inside) const override;
};

}  // namespace mdpvi::graph
