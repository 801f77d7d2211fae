// Compiled without fused multiply-adds (gpu/CMakeLists.txt): a row's worth is summed
// as engine/solve/policy_steps.cpp sums it, so the device and the host choose the same
// rows from the same values.
#include "gpu/policy_steps.cuh"

#include "gpu/graph_device.cuh"

#include <cub/device/device_scan.cuh>

namespace mdpvi::gpu::detail {

namespace {

__device__ double row_worth(const DeviceChunk& c, const double* __restrict__ b, bool steps_to_leave, std::uint64_t row,
                            const double* __restrict__ x) {
  double value = steps_to_leave ? 1.0 : b[row];
  for (std::uint64_t k = c.d_row_starts[row]; k < c.d_row_starts[row + 1]; ++k) {
    value += c.values[k] * x[c.d_columns[k]];
  }
  return value;
}

// Whether candidate beats incumbent, by more than the tolerance where the incumbent is kept.
__device__ bool better(const ChunkImprovement& step, double candidate, double incumbent) {
  const double margin = step.keep ? step.tolerance * fmax(1.0, fmax(fabs(candidate), fabs(incumbent))) : 0.0;
  return step.maximize ? candidate > incumbent + margin : candidate < incumbent - margin;
}

// One thread a state, as the host's loop: the kept row first, then the others in order.
__global__ void improve_kernel(DeviceChunk c, const double* __restrict__ b, ChunkImprovement step,
                               const double* __restrict__ x, std::uint64_t* __restrict__ chosen,
                               unsigned long long* d_changed) {
  unsigned long long changed[1] = {0};
  for (std::uint64_t s = thread_index(); s < c.num_states; s += grid_stride()) {
    const std::uint64_t rows_begin = c.d_row_group_starts[s], rows_end = c.d_row_group_starts[s + 1];
    const std::uint64_t kept = chosen[s] - step.first_row;
    std::uint64_t best_row = step.keep ? kept : rows_begin;
    double best = row_worth(c, b, step.steps_to_leave, best_row, x);
    for (std::uint64_t r = rows_begin; r < rows_end; ++r) {
      if (r == best_row) continue;
      const double value = row_worth(c, b, step.steps_to_leave, r, x);
      if (better(step, value, best)) {
        best = value;
        best_row = r;
      }
    }
    changed[0] += step.keep && best_row != kept;
    chosen[s] = best_row + step.first_row;
  }
  block_sums_into<1>(changed, d_changed);
}

// starts[i + 1] = the length of state i's chosen row; starts[0] = 0.
__global__ void chain_lengths_kernel(DeviceChunk c, const std::uint64_t* __restrict__ chosen, std::uint64_t first_row,
                                     std::uint64_t* __restrict__ starts) {
  for (std::uint64_t s = thread_index(); s < c.num_states; s += grid_stride()) {
    const std::uint64_t row = chosen[s] - first_row;
    starts[s + 1] = c.d_row_starts[row + 1] - c.d_row_starts[row];
  }
  if (thread_index() == 0) starts[0] = 0;
}

__global__ void chain_fill_kernel(DeviceChunk c, const double* __restrict__ b, bool steps_to_leave,
                                  const std::uint64_t* __restrict__ chosen, std::uint64_t first_row,
                                  const std::uint64_t* __restrict__ starts, std::uint32_t* __restrict__ columns, double* __restrict__ values,
                                  double* __restrict__ constants) {
  for (std::uint64_t s = thread_index(); s < c.num_states; s += grid_stride()) {
    const std::uint64_t row = chosen[s] - first_row;
    std::uint64_t at = starts[s];
    for (std::uint64_t k = c.d_row_starts[row]; k < c.d_row_starts[row + 1]; ++k, ++at) {
      columns[at] = c.d_columns[k];
      values[at] = c.values[k];
    }
    constants[s] = steps_to_leave ? 1.0 : b[row];
  }
}

}  // namespace

std::uint64_t improve_on_device(const DeviceChunk& chunk, const double* d_b, const ChunkImprovement& step,
                                const double* x, std::uint64_t* chosen, cudaStream_t stream, int sm_count) {
  const std::uint64_t n = chunk.num_states;
  if (n == 0) return 0;
  DeviceArray<double> d_x(n);
  DeviceArray<std::uint64_t> d_chosen(n);
  DeviceArray<unsigned long long> d_changed(1);
  {
    HostCopies copies(stream);
    d_x.upload(x, n, copies);
    d_chosen.upload(chosen, n, copies);
    copies.finish();
  }
  check(cudaMemsetAsync(d_changed.get(), 0, sizeof(unsigned long long), stream), "cudaMemset");
  improve_kernel<<<grid_for(n, sm_count), kBlockSize, 0, stream>>>(chunk, d_b, step, d_x.get(), d_chosen.get(),
                                                                    d_changed.get());
  check(cudaGetLastError(), "the improvement kernel");
  {
    HostCopies copies(stream);
    copies.to_host(chosen, d_chosen.get(), n * sizeof(std::uint64_t));
    copies.finish();
  }
  unsigned long long changed = 0;
  d_changed.download(&changed, 1, stream);
  check(cudaStreamSynchronize(stream), "the improvement");
  return changed;
}

GatheredChain gather_chain(const DeviceChunk& chunk, const double* d_b, const ChunkImprovement& step,
                           const std::uint64_t* chosen, cudaStream_t stream, int sm_count) {
  GatheredChain chain;
  const std::uint64_t n = chain.n = chunk.num_states;
  DeviceArray<std::uint64_t> d_chosen(n);
  {
    HostCopies copies(stream);
    d_chosen.upload(chosen, n, copies);
    copies.finish();
  }
  chain.starts = DeviceArray<std::uint64_t>(n + 1);
  chain.c = DeviceArray<double>(n);
  const unsigned grid = grid_for(n, sm_count);
  chain_lengths_kernel<<<grid, kBlockSize, 0, stream>>>(chunk, d_chosen.get(), step.first_row, chain.starts.get());
  check(cudaGetLastError(), "the chain's lengths");
  with_temp_storage("the chain's offsets", [&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::InclusiveSum(temp, bytes, chain.starts.get(), chain.starts.get(), static_cast<std::int64_t>(n + 1),
                                         stream);
  });
  check(cudaMemcpyAsync(&chain.entries, chain.starts.get() + n, sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream),
        "the chain's entries");
  check(cudaStreamSynchronize(stream), "the chain's entries");
  chain.columns = DeviceArray<std::uint32_t>(chain.entries);
  chain.values = DeviceArray<double>(chain.entries);
  chain_fill_kernel<<<grid, kBlockSize, 0, stream>>>(chunk, d_b, step.steps_to_leave, d_chosen.get(), step.first_row,
                                                     chain.starts.get(), chain.columns.get(), chain.values.get(),
                                                     chain.c.get());
  check(cudaGetLastError(), "the chain's rows");
  check(cudaStreamSynchronize(stream), "the chain's rows");  // d_chosen is freed on return
  return chain;
}

}  // namespace mdpvi::gpu::detail
