// Compiled without fused multiply-adds (gpu/CMakeLists.txt): each sum as the host's.
#include "gpu/uniformisation_steps.h"

#include "gpu/cuda_support.cuh"
#include "gpu/graph_device.cuh"

#include <cub/device/device_reduce.cuh>

#include <chrono>
#include <utility>

namespace mdpvi::gpu {

namespace {

using detail::check;
using detail::DeviceArray;
using detail::grid_for;
using detail::grid_stride;
using detail::kBlockSize;
using detail::read_from_device;
using detail::thread_index;

struct StepArrays {
  std::uint64_t n;
  const std::uint64_t* __restrict__ row_starts;
  const std::uint32_t* __restrict__ columns;
  const double* __restrict__ values;
  const double* __restrict__ b;
};

// One step of every state, as the host's pass: sum += weight * x; where more, next =
// b + the row's entries times x in order. A no-op once the steps have settled.
__global__ void step_kernel(StepArrays a, const double* __restrict__ x, double* __restrict__ next, double* sum,
                            double weight, bool more, const unsigned* settled) {
  if (*settled) return;
  for (std::uint64_t i = thread_index(); i < a.n; i += grid_stride()) {
    sum[i] += weight * x[i];
    if (!more) continue;
    double value = a.b[i];
    for (std::uint64_t e = a.row_starts[i]; e < a.row_starts[i + 1]; ++e) value += a.values[e] * x[a.columns[e]];
    next[i] = value;
  }
}

// The host's test after step `step`: every next value within close of 1 (the least
// taken with 1, as the host's reduction starts from it).
__global__ void settle_kernel(const double* least, double close, std::uint64_t step, unsigned* settled,
                              std::uint64_t* settled_step, double* settled_least) {
  if (*settled) return;
  const double low = fmin(1.0, *least);
  if (1.0 - low > close) return;
  *settled = 1;
  *settled_step = step;
  *settled_least = low;
}

__global__ void add_rest_kernel(std::uint64_t n, const double* x, double* sum, double rest) {
  for (std::uint64_t i = thread_index(); i < n; i += grid_stride()) sum[i] += rest * x[i];
}

struct MinOp {
  __device__ double operator()(double a, double b) const { return fmin(a, b); }
};

// The flag is read back every kBatch steps: the steps queued after the settling one
// do nothing.
constexpr std::uint64_t kBatch = 256;

}  // namespace

std::optional<WeightedSteps> weighted_steps(const ChunkMatrix& system, const double* b, const double* start,
                                            const std::vector<double>& weights, std::uint64_t first, double close) {
  const auto begin = std::chrono::steady_clock::now();
  const std::uint64_t n = system.num_states;
  WeightedSteps out;
  DeviceArray<std::uint64_t> d_row_starts(system.row_starts, n + 1);
  DeviceArray<std::uint32_t> d_columns(system.columns, system.num_entries);
  DeviceArray<double> d_values(system.values, system.num_entries), d_b(b, n);
  DeviceArray<double> d_buffers[2] = {DeviceArray<double>(start, n), DeviceArray<double>(n)};
  DeviceArray<double> d_sum(n), d_least(2);
  DeviceArray<unsigned> d_settled(1);
  DeviceArray<std::uint64_t> d_settled_step(1);
  check(cudaMemset(d_sum.get(), 0, n * sizeof(double)), "cudaMemset");
  check(cudaMemset(d_settled.get(), 0, sizeof(unsigned)), "cudaMemset");
  std::size_t scratch_bytes = 0;
  check(cub::DeviceReduce::Reduce(nullptr, scratch_bytes, d_buffers[1].get(), d_least.get(), n, MinOp{}, 1.0),
        "cub::DeviceReduce");
  DeviceArray<unsigned char> d_scratch(scratch_bytes);
  check(cudaDeviceSynchronize(), "uploading the uniformised chain");
  out.upload_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();

  const int sm_count = detail::multiprocessor_count();
  const unsigned blocks = grid_for(n, sm_count);
  const StepArrays a{n, d_row_starts.get(), d_columns.get(), d_values.get(), d_b.get()};
  const std::uint64_t end = first + weights.size();  // one past the last step weighed
  std::uint64_t k = 0;
  for (; k < end; ++k) {
    const double weight = k >= first ? weights[k - first] : 0.0;
    const bool more = k + 1 < end;
    double* x = d_buffers[k % 2].get();
    double* next = d_buffers[(k + 1) % 2].get();
    step_kernel<<<blocks, kBlockSize>>>(a, x, next, d_sum.get(), weight, more, d_settled.get());
    if (close >= 0.0 && more && k + 1 >= first) {
      check(cub::DeviceReduce::Reduce(d_scratch.get(), scratch_bytes, next, d_least.get(), n, MinOp{}, 1.0),
            "cub::DeviceReduce");
      settle_kernel<<<1, 1>>>(d_least.get(), close, k, d_settled.get(), d_settled_step.get(), d_least.get() + 1);
      if ((k + 1) % kBatch == 0 && read_from_device(d_settled.get(), "the settled flag")) break;
    }
  }
  check(cudaGetLastError(), "the uniformisation steps");
  out.settled = read_from_device(d_settled.get(), "the settled flag") != 0;
  out.steps = end;
  if (out.settled) {
    const std::uint64_t s = read_from_device(d_settled_step.get(), "the settled step");
    out.steps = s + 1;
    out.least = read_from_device(d_least.get() + 1, "the least value");
    for (std::uint64_t j = s + 1; j < end; ++j) out.rest += weights[j - first];
    add_rest_kernel<<<blocks, kBlockSize>>>(n, d_buffers[(s + 1) % 2].get(), d_sum.get(), out.rest);
    check(cudaGetLastError(), "the uniformisation steps");
  }
  out.sum.resize(n);
  check(cudaMemcpy(out.sum.data(), d_sum.get(), n * sizeof(double), cudaMemcpyDeviceToHost), "downloading the sum");
  out.solve_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() - out.upload_s;
  return out;
}

}  // namespace mdpvi::gpu
