#include "engine/check/collapsed_sccs.h"

#include "engine/model/stopwatch.h"
#include "graph/end_components.h"
#include "graph/scc.h"

#include <spdlog/spdlog.h>

#include <chrono>

namespace mdpvi {

CollapsedSccs sccs_after_collapsing(const graph::SearchBackend& search, const SparseMdp& mdp, const StateSet& maybe,
                                    StateSet rows, const RewardStructure* rewards) {
  const auto start = std::chrono::steady_clock::now();
  CollapsedSccs result;
  result.sccs = graph::maybe_state_sccs(search, mdp, maybe);
  if (rows.none()) return result;
  const StateSet candidates = graph::end_component_candidates(mdp, maybe, result.sccs, rows);
  const double sccs_s = seconds_since(start);
  if (candidates.none()) {
    spdlog::debug("end components: none possible (no SCC of two states or row back to itself), {:.3f} s", sccs_s);
    return result;
  }
  const std::size_t searched = candidates.count();
  // Over every row, the candidates' SCCs are the decomposition's (they are whole SCCs
  // of it): the search's first labelling is known (1.0 s on coin8_2's G F product).
  std::vector<std::uint32_t> first_labels;
  if (rows.all()) first_labels = graph::scc_labels_within(result.sccs, candidates, mdp.num_states());
  const graph::EndComponents components =
      graph::maximal_end_components(search, candidates, std::move(rows), std::move(first_labels));
  spdlog::debug("end components: {} among {} of {} maybe-states, {:.3f} s after the SCCs' {:.3f} s", components.count,
                searched, maybe.count(), seconds_since(start) - sccs_s, sccs_s);
  if (components.count == 0) return result;
  result.collapsed = collapse_end_components(mdp, components, rewards);
  result.sccs = graph::maybe_state_sccs(search, result.collapsed->mdp, maybe);
  return result;
}

}  // namespace mdpvi
