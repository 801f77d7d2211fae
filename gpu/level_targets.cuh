#pragma once
// Interval iteration's width targets filled in on the device from one per height
// level (engine/solve/solve_request.h's level_width_targets). Internal to gpu/.
#include "gpu/cuda_support.cuh"

namespace mdpvi::gpu::detail {

// Each of the chunk's num_states states its level's target, into d_targets.
// Pre: levels.state_starts covers [0, num_states).
void fill_level_targets(const LevelWidthTargets& levels, std::uint64_t num_states, float* d_targets,
                        cudaStream_t stream, int sm_count);

}  // namespace mdpvi::gpu::detail
