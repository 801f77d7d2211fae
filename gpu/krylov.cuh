#pragma once
// BiCGStab on the device (engine/numeric/bicgstab_steps.h's steps over device vectors,
// fused where one pass can serve two steps). Internal to gpu/.
#include "gpu/cuda_support.cuh"

namespace mdpvi::gpu::detail {

// A DTMC's rows on the device: row i's entries are [starts[i], starts[i + 1]).
struct DeviceRows {
  std::uint64_t n = 0;
  const std::uint64_t* starts = nullptr;  // n + 1
  const std::uint32_t* columns = nullptr;
  DeviceValues values{};
};

// Solves (I - P) x = b over the whole chunk from x (host, num_states values), which
// receives the result; the chunk's matrix is m (resident), host its sizes. Throws
// DeviceError where the chunk is not a DTMC's (one row per state).
KrylovChunkStats solve_linear_on_device(const DeviceMatrix& m, const ChunkMatrix& host, cudaStream_t stream,
                                        const double* b, const KrylovLimits& limits, double* x);

// The same on rows already on the device, with b there too (d_c, n values).
KrylovChunkStats solve_rows_on_device(const DeviceRows& rows, cudaStream_t stream, const double* d_c,
                                      const KrylovLimits& limits, double* x);

}  // namespace mdpvi::gpu::detail
