#pragma once
// Which rows of a model state a maybe-state system keeps, and each one's b: the rule
// of the host's build (engine/solve/maybe_system.cpp's kept_rows), for the device's
// build of the system and for what reads a view of it (gpu/cuda_support.cuh's
// DeviceChunk) row by row. Internal to gpu/.
#include "gpu/cuda_support.cuh"

namespace mdpvi::gpu::detail {

// emit(r, b) for each row r of model state s that the system keeps, in order: b is
// the row's reward plus, for each entry into a state outside the system (d_local's
// kOutsideChunk), P times its value, rounding as the host does (no fused multiply-add).
// A row whose b is +infinity is left out, unless it is the state's last and none was kept.
// RowStarts: the row offsets, a pointer or RowOffsets.
template <typename RowStarts, typename Emit>
__device__ void kept_rows(const RowOffsets& d_row_group_starts, const RowStarts& d_row_starts,
                          const std::uint32_t* d_columns, const RowConstants& c, const std::uint32_t* d_local,
                          std::uint64_t s, Emit emit) {
  bool kept_any = false;
  const std::uint64_t end = d_row_group_starts[s + 1];
  for (std::uint64_t r = d_row_group_starts[s]; r < end; ++r) {
    double constant = c.reward(s, r);
    for (std::uint64_t k = d_row_starts[r]; k < d_row_starts[r + 1]; ++k) {
      const std::uint32_t t = d_columns[k];
      if (d_local[t] != kOutsideChunk) continue;
      constant = c.plus_outside(constant, c.model_values[k], t);
    }
    const bool last_chance = r + 1 == end && !kept_any;
    if (isinf(constant) && constant > 0 && !last_chance) continue;
    kept_any = true;
    emit(r, constant);
  }
}

}  // namespace mdpvi::gpu::detail
