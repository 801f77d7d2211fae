#pragma once
// The numerical problem left after Prob0/Prob1: the maybe-states only, renumbered so
// that the SCCs are contiguous and in solving order (successors first). Entries into
// yes-states are folded into a per-row constant b(r); entries into no-states vanish.
// A solver then needs nothing but this struct, which is also what a chunk uploaded
// to the GPU is cut from.
#include "engine/sparse_mdp.h"
#include "graph/qualitative.h"
#include "graph/scc.h"

#include <cstdint>
#include <vector>

namespace mdpvi {

struct MaybeSystem {
  std::vector<std::uint64_t> row_group_starts;  // local states + 1
  std::vector<std::uint64_t> row_starts;        // rows + 1
  std::vector<std::uint32_t> columns;           // local state indices
  std::vector<double> values;
  std::vector<double> row_constants;            // b(r), one per row
  std::vector<std::uint64_t> scc_starts;        // local state ranges, solving order
  std::vector<std::uint32_t> model_states;      // local index -> model state

  std::uint32_t num_states() const { return static_cast<std::uint32_t>(model_states.size()); }
  std::uint64_t num_rows() const { return row_constants.size(); }
  std::size_t num_sccs() const { return scc_starts.empty() ? 0 : scc_starts.size() - 1; }
};

// Pre: sccs decomposes exactly partition.maybe.
MaybeSystem build_maybe_system(const SparseMdp& mdp, const graph::QualitativePartition& partition,
                               const graph::SccDecomposition& sccs);

}  // namespace mdpvi
