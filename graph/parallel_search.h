#pragma once
// The oneTBB backend of the qualitative searches (graph/search_backend.h): for
// machines without a GPU and for graphs that do not fit on the device.
#include "graph/host_search.h"
#include "engine/model/pod_vector.h"

namespace mdpvi::graph {

class ParallelSearch final : public HostSearch {
 public:
  using HostSearch::HostSearch;

  SearchKind kind() const override { return SearchKind::cpu_parallel; }
  StateSet backward_exists(const StateSet& sources, const StateSet& allowed_states,
                           const StateSet* allowed_rows) const override;
  StateSet backward_forall(const StateSet& sources, const StateSet& allowed_states) const override;
  StateSet rows_staying_in(const StateSet& inside) const override;
  StateSet stay_and_reach(const StateSet& targets, const StateSet& allowed, StateSet inside) const override;

 private:
  StateSet search_backward(const StateSet& sources, const StateSet& allowed_states, const StateSet* allowed_rows,
                           PodVector<std::uint32_t>* ranks) const;
};

}  // namespace mdpvi::graph
