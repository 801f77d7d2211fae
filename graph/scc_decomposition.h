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
  // Where the decomposition ran: "gpu", "cpu-parallel" or "cpu-reference".
  const char* ran_on = "cpu-reference";

  std::size_t num_sccs() const { return scc_starts.empty() ? 0 : scc_starts.size() - 1; }
};

}  // namespace mdpvi::graph
