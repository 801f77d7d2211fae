#pragma once
// A system's rows on the device, each summed as the host's sweeps sum it: b first,
// then every entry in turn. A .cu that includes this compiles without fused
// multiply-adds (gpu/CMakeLists.txt), so each row's value is the host's bit for bit.
// Shared by the parts' sweeps (partitioned_sweeps.cu) and uniformisation's steps.
#include <cstdint>

namespace mdpvi::gpu::detail {

struct HostOrderRows {
  const std::uint64_t* __restrict__ row_starts;
  const std::uint32_t* __restrict__ columns;
  const double* __restrict__ values;
  const double* __restrict__ b;

  __device__ double value(std::uint64_t r, const double* __restrict__ x) const {
    double sum = b[r];
    for (std::uint64_t k = row_starts[r]; k < row_starts[r + 1]; ++k) sum += values[k] * x[columns[k]];
    return sum;
  }
};

}  // namespace mdpvi::gpu::detail
