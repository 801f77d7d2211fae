#include "engine/check/fairness.h"

#include "graph/scc.h"


namespace mdpvi {

std::vector<std::uint32_t> bottom_scc_labels(const SparseMdp& mdp, const graph::SearchBackend& search,
                                             const StateSet& inside) {
  const std::uint32_t n = mdp.num_states();
  std::vector<std::uint32_t> label = graph::scc_labels(search, mdp, all_states(n), nullptr);
  std::vector<char> fits(n, 1);  // per label: bottom, and inside
  for (std::uint32_t s = 0; s < n; ++s) {
    if (!inside.test(s)) fits[label[s]] = 0;
    for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
      for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
        if (label[mdp.columns[k]] != label[s]) fits[label[s]] = 0;
      }
    }
  }
  for (std::uint32_t s = 0; s < n; ++s) {
    if (!fits[label[s]]) label[s] = kNotBottom;
  }
  return label;
}

namespace {

StateSet bottom_sccs_inside(const SparseMdp& mdp, const graph::SearchBackend& search, const StateSet& inside) {
  const std::vector<std::uint32_t> label = bottom_scc_labels(mdp, search, inside);
  StateSet bottom(mdp.num_states());
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    if (label[s] != kNotBottom) bottom.set(s);
  }
  return bottom;
}

}  // namespace

NumericResult compute_fair_minimal_until(const SparseMdp& mdp, const graph::SearchBackend& search, const StateSet& phi,
                                         const StateSet& psi, const SolverOptions& options, const DeviceOptions& device) {
  const StateSet waiting = phi - psi;
  const StateSet failed = ~(phi | psi);
  return complemented(compute_until_probabilities(mdp, search, Optimization::maximize, waiting,
                                                  failed | bottom_sccs_inside(mdp, search, waiting), options, device));
}

}  // namespace mdpvi
