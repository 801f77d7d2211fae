#pragma once
// Policy iteration's steps on a resident chunk (gpu/device_solver.h's improve_policy
// and solve_scheduler): the improvement kernel, and a scheduler's rows gathered into
// a chain for BiCGStab. Internal to gpu/.
#include "gpu/cuda_support.cuh"
#include "gpu/krylov.cuh"

namespace mdpvi::gpu::detail {

// improve_policy on chunk (uploaded: its own offsets, chunk-local columns), with b
// its rows' constants on the device (unread with step.steps_to_leave).
std::uint64_t improve_on_device(const DeviceChunk& chunk, const double* d_b, const ChunkImprovement& step,
                                const double* x, std::uint64_t* chosen, cudaStream_t stream, int sm_count);

// A scheduler's rows of a chunk as a chain: row i is chosen[i]'s entries, c[i] its b
// (1 with step.steps_to_leave).
struct GatheredChain {
  std::uint64_t n = 0, entries = 0;
  DeviceArray<std::uint64_t> starts{0};  // n + 1
  DeviceArray<std::uint32_t> columns{0};
  DeviceArray<double> values{0};
  DeviceArray<double> c{0};
  DeviceRows rows() const { return {n, starts.get(), columns.get(), DeviceValues{values.get()}}; }
};

GatheredChain gather_chain(const DeviceChunk& chunk, const double* d_b, const ChunkImprovement& step,
                           const std::uint64_t* chosen, cudaStream_t stream, int sm_count);

}  // namespace mdpvi::gpu::detail
