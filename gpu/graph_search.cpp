// The host-side parts of gpu/graph_search.h that do not need CUDA (both builds).
#include "gpu/graph_search.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace mdpvi::gpu {

namespace {
std::uint64_t words_of(std::uint64_t bits) { return (bits + 63) / 64; }
}  // namespace

bool graph_vertices_fit(std::uint64_t states, std::uint64_t rows) {
  return states + rows < std::numeric_limits<std::uint32_t>::max();
}

// The graph (offsets, columns; the predecessor entries' offsets, owners and local rows,
// these in 1 byte: models whose states have more than 256 rows take 1 or 3 more an
// entry), five state sets, two row sets, two frontier queues and the rows-missing
// counters; while the predecessors are built, their fill positions too.
std::size_t graph_footprint_bytes(std::uint64_t states, std::uint64_t rows, std::uint64_t entries) {
  const std::uint64_t offset_bytes = offsets_fit_4_bytes(entries) ? 4 : 8;
  const std::uint64_t group_bytes = offsets_fit_4_bytes(rows) ? 4 : 8;
  const std::uint64_t forward = (states + 1) * group_bytes + (rows + 1) * offset_bytes + entries * 4;
  const std::uint64_t backward = (states + 1) * offset_bytes + entries * (4 + 1);
  const std::uint64_t working = 5 * words_of(states) * 8 + 2 * words_of(rows + 64) * 8 + 3 * (states + 1) * 4;
  const std::uint64_t building = (states + 1) * offset_bytes;
  return forward + backward + std::max(working, building) + (1u << 20);
}

}  // namespace mdpvi::gpu
