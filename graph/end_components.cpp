#include "graph/end_components.h"

#include "graph/scc.h"

namespace mdpvi::graph {

EndComponents maximal_end_components(const SparseMdp& mdp, StateSet states, StateSet enabled_rows, SearchKind kind) {
  constexpr std::uint32_t kNone = EndComponents::kNone;
  std::vector<std::uint32_t> scc_of;
  bool changed = true;
  while (changed) {
    changed = false;
    scc_of = scc_labels(kind, mdp, states, &enabled_rows);  // the partition is all this needs
    for (auto s = states.find_first(); s != StateSet::npos; s = states.find_next(s)) {
      bool keeps_a_row = false;
      for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
        if (!enabled_rows.test(r)) continue;
        bool stays = true;
        for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1] && stays; ++k) {
          stays = scc_of[mdp.columns[k]] == scc_of[s];
        }
        if (stays) {
          keeps_a_row = true;
        } else {
          enabled_rows.reset(r);
          changed = true;
        }
      }
      if (!keeps_a_row) {
        states.reset(s);
        changed = true;
      }
    }
  }
  // Now every remaining state has rows, all staying in its SCC: each SCC is a MEC.
  EndComponents result;
  result.component_of.assign(mdp.num_states(), kNone);
  std::vector<std::uint32_t> renumbered(mdp.num_states(), kNone);
  for (auto s = states.find_first(); s != StateSet::npos; s = states.find_next(s)) {
    std::uint32_t& number = renumbered[scc_of[s]];
    if (number == kNone) number = result.count++;
    result.component_of[s] = number;
  }
  // A state dropped along the way lost all its rows first: what is left is internal.
  result.internal_rows = std::move(enabled_rows);
  return result;
}

}  // namespace mdpvi::graph
