#include "engine/maybe_system.h"

#include <limits>

namespace mdpvi {

MaybeSystem build_maybe_system(const SparseMdp& mdp, const graph::QualitativePartition& partition,
                               const graph::SccDecomposition& sccs) {
  constexpr std::uint32_t kOutside = std::numeric_limits<std::uint32_t>::max();
  MaybeSystem system;
  system.model_states = sccs.order;
  system.scc_starts = sccs.scc_starts;
  std::vector<std::uint32_t> local_of(mdp.num_states(), kOutside);
  for (std::uint32_t i = 0; i < system.num_states(); ++i) local_of[system.model_states[i]] = i;

  system.row_group_starts.reserve(system.num_states() + 1);
  system.row_group_starts.push_back(0);
  system.row_starts.push_back(0);
  for (std::uint32_t s : system.model_states) {
    for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
      double to_yes = 0.0;
      for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
        std::uint32_t t = mdp.columns[k];
        if (local_of[t] != kOutside) {
          system.columns.push_back(local_of[t]);
          system.values.push_back(mdp.values[k]);
        } else if (partition.yes.test(t)) {
          to_yes += mdp.values[k];
        }
      }
      system.row_constants.push_back(to_yes);
      system.row_starts.push_back(system.columns.size());
    }
    system.row_group_starts.push_back(system.row_constants.size());
  }
  return system;
}

}  // namespace mdpvi
