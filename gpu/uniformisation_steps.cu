// Compiled without fused multiply-adds (gpu/CMakeLists.txt): each sum as the host's.
#include "gpu/uniformisation_steps.h"

#include "gpu/cuda_support.cuh"
#include "gpu/graph_device.cuh"
#include "gpu/host_order_rows.cuh"

#include <cub/block/block_reduce.cuh>

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
  detail::HostOrderRows rows;  // one a state
};

// The early stop's state on the device. The least next value of step k is reduced
// into least[k % 3] (a double's bits: the values are not negative, so their bits
// order as they do); step k + 1 reads it, and step k clears the slot step k + 1
// writes, which no step then running reads.
struct SettleState {
  unsigned long long* least;  // 3 slots
  unsigned* settled;
  std::uint64_t* settled_step;
  double* settled_least;
};

struct StepParams {
  std::uint64_t k;
  double weight;
  bool more;            // a next value to make (not the last step weighed)
  bool check;           // this step's least is tested (the host's rule)
  bool check_previous;  // the previous step's was
  double close;
};

constexpr unsigned long long kInfinityBits = 0x7ff0000000000000ull;

// One step of every state, as the host's pass: sum += weight * x; where more, next =
// the row's value (host_order_rows.cuh). First the host's test of the previous
// step (every next value within close of 1, the least taken with 1 as the host's
// reduction starts from it): where it passes, the steps settled there and this one,
// like every later one, does nothing. One launch a step.
__global__ void step_kernel(StepArrays a, const double* __restrict__ x, double* __restrict__ next, double* sum,
                            StepParams p, SettleState s) {
  if (*s.settled) return;
  if (p.check_previous) {
    const double low = fmin(1.0, __longlong_as_double(static_cast<long long>(s.least[(p.k + 2) % 3])));
    if (1.0 - low <= p.close) {
      if (blockIdx.x == 0 && threadIdx.x == 0) {
        *s.settled = 1;
        *s.settled_step = p.k - 1;
        *s.settled_least = low;
      }
      return;
    }
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) s.least[(p.k + 1) % 3] = kInfinityBits;
  double least = __longlong_as_double(static_cast<long long>(kInfinityBits));
  for (std::uint64_t i = thread_index(); i < a.n; i += grid_stride()) {
    sum[i] += p.weight * x[i];
    if (!p.more) continue;
    const double value = a.rows.value(i, x);
    next[i] = value;
    least = fmin(least, value);
  }
  if (!p.check) return;
  using BlockReduce = cub::BlockReduce<double, kBlockSize>;
  __shared__ typename BlockReduce::TempStorage scratch;
  const double block_least = BlockReduce(scratch).Reduce(least, [](double u, double v) { return fmin(u, v); });
  if (threadIdx.x == 0) atomicMin(s.least + p.k % 3, static_cast<unsigned long long>(__double_as_longlong(block_least)));
}

__global__ void add_rest_kernel(std::uint64_t n, const double* x, double* sum, double rest) {
  for (std::uint64_t i = thread_index(); i < n; i += grid_stride()) sum[i] += rest * x[i];
}

// The flag is read back every kBatch steps: the steps queued past the settling one
// do nothing.
constexpr std::uint64_t kBatch = 256;

}  // namespace

std::optional<WeightedSteps> weighted_steps(const ChunkMatrix& system, const double* b, const double* start,
                                            const std::vector<double>& weights, std::uint64_t first, double close) {
  const auto begin = std::chrono::steady_clock::now();
  const std::uint64_t n = system.num_states;
  if (system.values.plain == nullptr && system.num_entries > 0) throw DeviceError("uniformisation steps: values not plain");
  WeightedSteps out;
  DeviceArray<std::uint64_t> d_row_starts(system.row_starts, n + 1);
  DeviceArray<std::uint32_t> d_columns(system.columns, system.num_entries);
  DeviceArray<double> d_values(system.values.plain, system.num_entries), d_b(b, n);
  DeviceArray<double> d_buffers[2] = {DeviceArray<double>(start, n), DeviceArray<double>(n)};
  DeviceArray<double> d_sum(n), d_settled_least(1);
  DeviceArray<unsigned long long> d_least(3);
  DeviceArray<unsigned> d_settled(1);
  DeviceArray<std::uint64_t> d_settled_step(1);
  check(cudaMemset(d_sum.get(), 0, n * sizeof(double)), "cudaMemset");
  check(cudaMemset(d_settled.get(), 0, sizeof(unsigned)), "cudaMemset");
  const unsigned long long infinities[3] = {kInfinityBits, kInfinityBits, kInfinityBits};
  d_least.upload(infinities, 3);
  check(cudaDeviceSynchronize(), "uploading the uniformised chain");
  out.upload_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();

  const unsigned blocks = grid_for(n, detail::multiprocessor_count());
  const StepArrays a{n, {d_row_starts.get(), d_columns.get(), d_values.get(), d_b.get()}};
  const SettleState settle{d_least.get(), d_settled.get(), d_settled_step.get(), d_settled_least.get()};
  const std::uint64_t end = first + weights.size();  // one past the last step weighed
  // The last step is never tested (it makes no next value), so every tested step's
  // test runs in the step after it.
  bool checked = false;  // the previous step's least was tested
  for (std::uint64_t k = 0; k < end; ++k) {
    StepParams p{k, k >= first ? weights[k - first] : 0.0, k + 1 < end, false, checked, close};
    p.check = close >= 0.0 && p.more && k + 1 >= first;
    step_kernel<<<blocks, kBlockSize>>>(a, d_buffers[k % 2].get(), d_buffers[(k + 1) % 2].get(), d_sum.get(), p, settle);
    checked = p.check;
    if (checked && (k + 1) % kBatch == 0 && read_from_device(d_settled.get(), "the settled flag")) break;
  }
  check(cudaGetLastError(), "the uniformisation steps");
  out.settled = read_from_device(d_settled.get(), "the settled flag") != 0;
  out.steps = end;
  if (out.settled) {
    const std::uint64_t s = read_from_device(d_settled_step.get(), "the settled step");
    out.steps = s + 1;
    out.least = read_from_device(d_settled_least.get(), "the least value");
    for (std::uint64_t j = s + 1; j < end; ++j) out.rest += weights[j - first];
    add_rest_kernel<<<blocks, kBlockSize>>>(n, d_buffers[(s + 1) % 2].get(), d_sum.get(), out.rest);
    check(cudaGetLastError(), "the uniformisation steps");
  }
  out.sum.resize(n);
  check(cudaMemcpy(out.sum.data(), d_sum.get(), n * sizeof(double), cudaMemcpyDeviceToHost), "downloading the sum");
  out.device_bytes = (n + 1) * sizeof(std::uint64_t) + system.num_entries * (sizeof(std::uint32_t) + sizeof(double)) +
                     4 * n * sizeof(double);  // b, two iterates and the sum
  out.in_use_bytes = detail::memory_in_use();
  out.solve_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() - out.upload_s;
  return out;
}

}  // namespace mdpvi::gpu
