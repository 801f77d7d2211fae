// Device discovery for the solver and the copy bandwidth.
#include "gpu/cuda_support.cuh"
#include "gpu/device_solver.h"

#include <cuda_runtime.h>

#include <cstdlib>
#include <new>

namespace mdpvi::gpu {

using detail::check;
using detail::DeviceArray;

std::optional<std::size_t> free_device_memory() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    return std::nullopt;
  }
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;
  }
  return free_bytes;
}

double measure_copy_bandwidth(std::size_t bytes) {
  DeviceArray<char> d_a(bytes), d_b(bytes);
  check(cudaMemset(d_a.get(), 1, bytes), "cudaMemset");
  cudaEvent_t begin, end;
  check(cudaEventCreate(&begin), "cudaEventCreate");
  check(cudaEventCreate(&end), "cudaEventCreate");
  check(cudaMemcpy(d_b.get(), d_a.get(), bytes, cudaMemcpyDeviceToDevice), "warm-up copy");
  constexpr int kRepeats = 10;
  check(cudaEventRecord(begin), "cudaEventRecord");
  for (int i = 0; i < kRepeats; ++i) check(cudaMemcpyAsync(d_b.get(), d_a.get(), bytes, cudaMemcpyDeviceToDevice), "copy");
  check(cudaEventRecord(end), "cudaEventRecord");
  check(cudaEventSynchronize(end), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
  cudaEventDestroy(begin);
  cudaEventDestroy(end);
  return 2.0 * bytes * kRepeats / (ms / 1000.0);  // read + write
}

}  // namespace mdpvi::gpu
