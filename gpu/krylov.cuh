#pragma once
// BiCGStab on a resident chunk (engine/numeric/bicgstab_steps.h's steps over device vectors):
// the matrix-vector products by cuSPARSE, the reductions by CUB. Internal to gpu/.
#include "gpu/cuda_support.cuh"

namespace mdpvi::gpu::detail {

// A square matrix on the device as cuSPARSE's CSR takes it: 32-bit offsets and
// columns, plain doubles (not owned).
struct Csr32 {
  std::uint64_t n = 0, entries = 0;
  int* offsets = nullptr;  // n + 1
  void* columns = nullptr;
  void* values = nullptr;
};

// Solves (I - P) x = b over the whole chunk from x (host, num_states values), which
// receives the result; the chunk's matrix is m (resident), host its host arrays.
// Throws DeviceError where the chunk is not a DTMC's (one row per state) or too large
// for cuSPARSE's 32-bit indices.
KrylovChunkStats solve_linear_on_device(const DeviceMatrix& m, const ChunkMatrix& host, cudaStream_t stream,
                                        const double* b, const KrylovLimits& limits, double* x);

// The same on a matrix already in cuSPARSE's form, with b on the device (d_c, n values).
// Pre: csr.entries <= n^2 (cuSPARSE refuses more).
KrylovChunkStats solve_csr_on_device(const Csr32& csr, cudaStream_t stream, const double* d_c,
                                     const KrylovLimits& limits, double* x);

}  // namespace mdpvi::gpu::detail
