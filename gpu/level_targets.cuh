#pragma once
// Interval iteration's width targets computed on the device, where the chunk is the
// whole system: the same chain levels as engine/solve/interval_iteration.cpp's
// scc_width_targets (per SCC there, per state here), a height level at a time.
// Internal to gpu/.
#include "gpu/cuda_support.cuh"

namespace mdpvi::gpu::detail {

// Per state of the chunk, 2 * epsilon * level / H into d_targets; returns H and each
// height level's least positive level (gpu/device_solver.h's LevelTargets).
LevelTargets compute_level_targets(const DeviceChunk& m, const LevelTargetInputs& in, double* d_targets,
                                   cudaStream_t stream, int sm_count);

}  // namespace mdpvi::gpu::detail
