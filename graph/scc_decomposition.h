#pragma once
// What an SCC decomposition of the maybe-states hands the solver (graph/scc.h makes it).
#include <cstdint>
#include <vector>

namespace mdpvi::graph {

struct SccDecomposition {
  // The maybe-states (model indices), grouped by SCC, the SCCs in topological order
  // with successors first.
  std::vector<std::uint32_t> order;
  // SCC i is order[scc_starts[i] .. scc_starts[i+1]); size num_sccs + 1.
  std::vector<std::uint64_t> scc_starts;
  // Where the decomposition ran: "gpu", "cpu-parallel" or "cpu-reference"; or
  // "remembered", an earlier property's (SearchBackend::remember_sccs_while).
  const char* ran_on = "cpu-reference";
  // The SCCs by height in the SCC DAG (0: reaches no other SCC, else one more than
  // the highest it reaches), which the order sorts by: level h is SCCs
  // [level_starts[h], level_starts[h+1]). The SCCs of one level are independent of
  // each other, and depend on lower levels only. num_levels + 1 entries.
  std::vector<std::uint64_t> level_starts{};

  std::size_t num_sccs() const { return scc_starts.empty() ? 0 : scc_starts.size() - 1; }
};

// level_starts of SCCs sorted by height (heights: per SCC in order, non-decreasing).
inline std::vector<std::uint64_t> level_starts_of(const std::vector<std::uint32_t>& sorted_heights) {
  if (sorted_heights.empty()) return {};
  std::vector<std::uint64_t> starts{0};
  for (std::size_t c = 1; c < sorted_heights.size(); ++c) {
    if (sorted_heights[c] != sorted_heights[c - 1]) starts.push_back(c);
  }
  starts.push_back(sorted_heights.size());
  return starts;
}

}  // namespace mdpvi::graph
