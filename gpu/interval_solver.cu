// Interval iteration on the device: the lower and the upper iterate in one fused
// sweep, so that the matrix (the bulk of the traffic) is read once for both.
#include "engine/stopwatch.h"
#include "gpu/chunk_solver.h"
#include "gpu/cuda_support.cuh"

#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <vector>

namespace mdpvi::gpu {

namespace {

using detail::check;
using detail::DeviceArray;
using detail::DeviceChunk;
using detail::kBlockSize;

enum Flag : unsigned { kAboveTarget = 1u, kUpperRaised = 2u, kCrossed = 4u };

// As engine/bellman.h's kRaiseTolerance, the same expression (gpu/ does not include
// the engine's headers); the equivalence test compares the flags both produce.
constexpr double kRaiseTolerance = 8 * std::numeric_limits<double>::epsilon();

// As sweep_kernel (gpu/chunk_solver.cu), with two dot products per row sharing the
// column and value loads. Per state: lower = max(lower, B lower), upper = min(upper,
// B upper), the width, and the flags; per block one atomicMax of the width (clamped
// at 0, so that the bit patterns order) and one atomicOr of the flags.
template <int G, bool kMaximize, bool kRelative>
__global__ void __launch_bounds__(kBlockSize)
    interval_kernel(DeviceChunk m, const double* __restrict__ b_upper, const double* __restrict__ targets,
                    const double* __restrict__ lower_in, const double* __restrict__ upper_in,
                    double* __restrict__ lower_out, double* __restrict__ upper_out, unsigned long long* d_width,
                    unsigned* d_flags) {
  const unsigned lane = threadIdx.x % G;
  const unsigned group_in_warp = (threadIdx.x % 32) / G;
  const unsigned mask = G == 32 ? 0xffffffffu : (((1u << G) - 1u) << (group_in_warp * G));
  const std::uint64_t groups = static_cast<std::uint64_t>(gridDim.x) * blockDim.x / G;
  double widest = 0.0;
  unsigned flags = 0;
  for (std::uint64_t s = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / G; s < m.num_states;
       s += groups) {
    double best_lower = kMaximize ? -INFINITY : INFINITY;
    double best_upper = best_lower;
    const std::uint64_t row_end = m.row_group_starts[s + 1];
    for (std::uint64_t r = m.row_group_starts[s]; r < row_end; ++r) {
      double lo = 0.0, up = 0.0;
      const std::uint64_t k_end = m.row_starts[r + 1];
      for (std::uint64_t k = m.row_starts[r] + lane; k < k_end; k += G) {
        const double p = m.values[k];
        const std::uint32_t c = m.columns[k];
        lo += p * lower_in[c];
        up += p * upper_in[c];
      }
      if constexpr (G > 1) {
        for (int offset = G / 2; offset > 0; offset /= 2) {
          lo += __shfl_xor_sync(mask, lo, offset, G);
          up += __shfl_xor_sync(mask, up, offset, G);
        }
      }
      lo += m.row_constants[r];
      up += b_upper[r];
      best_lower = kMaximize ? fmax(best_lower, lo) : fmin(best_lower, lo);
      best_upper = kMaximize ? fmax(best_upper, up) : fmin(best_upper, up);
    }
    if (lane == 0) {
      const double lower = fmax(lower_in[s], best_lower);
      const double upper = fmin(upper_in[s], best_upper);
      double width = upper - lower;
      if (kRelative && lower > 0.0) width /= lower;
      if (width > targets[s]) flags |= kAboveTarget;
      if (best_upper > upper_in[s] * (1 + kRaiseTolerance)) flags |= kUpperRaised;
      if (upper < lower) flags |= kCrossed;
      widest = fmax(widest, width);
      lower_out[s] = lower;
      upper_out[s] = upper;
    }
  }
  using BlockReduce = cub::BlockReduce<double, kBlockSize>;
  __shared__ typename BlockReduce::TempStorage scratch;
  double block_widest = BlockReduce(scratch).Reduce(widest, detail::Maximum());
  unsigned block_flags = 0;
  for (unsigned bit : {kAboveTarget, kUpperRaised, kCrossed}) {
    if (__syncthreads_or(flags & bit)) block_flags |= bit;
  }
  if (threadIdx.x == 0) {
    if (block_widest > 0.0) atomicMax(d_width, static_cast<unsigned long long>(__double_as_longlong(block_widest)));
    if (block_flags) atomicOr(d_flags, block_flags);
  }
}

using IntervalKernel = void (*)(DeviceChunk, const double*, const double*, const double*, const double*, double*,
                                double*, unsigned long long*, unsigned*);

struct IntervalKernels {
  template <int G, bool Maximize, bool Relative>
  static IntervalKernel get() { return interval_kernel<G, Maximize, Relative>; }
};

IntervalKernel interval_kernel_for(int group_size, bool maximize, bool relative) {
  return detail::kernel_variant<IntervalKernels>(group_size, maximize, relative);
}

// A chunk resident for interval iteration: the matrix, both b, the targets, two
// buffers per iterate, and per-sweep width and flags for a batch of sweeps.
class IntervalResident {
 public:
  static constexpr std::size_t kMaxBatch = 64;

  IntervalResident(const ChunkMatrix& c, const IntervalInputs& in, const double* lower, const double* upper)
      : states_(c.num_states),
        matrix_(c, 0),
        b_lower_(in.b_lower, c.num_rows),
        b_upper_(in.b_upper, c.num_rows),
        targets_(in.targets, c.num_states),
        lower_{DeviceArray<double>(lower, c.num_states), DeviceArray<double>(c.num_states)},
        upper_{DeviceArray<double>(upper, c.num_states), DeviceArray<double>(c.num_states)},
        widths_(kMaxBatch),
        flags_(kMaxBatch),
        sm_count_(detail::multiprocessor_count()) {}

  void clear(std::size_t count) {
    check(cudaMemsetAsync(widths_.get(), 0, count * sizeof(unsigned long long)), "cudaMemset");
    check(cudaMemsetAsync(flags_.get(), 0, count * sizeof(unsigned)), "cudaMemset");
  }

  // Sweep from buffer `from` into the other one; results into slot.
  void launch(IntervalKernel kernel, int group_size, int from, std::size_t slot) {
    unsigned blocks = detail::sweep_blocks(states_, group_size, sm_count_);
    kernel<<<blocks, kBlockSize>>>(matrix_.view(b_lower_.get()), b_upper_.get(), targets_.get(), lower_[from].get(),
                                   upper_[from].get(), lower_[1 - from].get(), upper_[1 - from].get(),
                                   widths_.get() + slot, flags_.get() + slot);
    check(cudaGetLastError(), "interval kernel launch");
  }

  std::vector<IntervalSweepResult> read(std::size_t count) {
    std::vector<unsigned long long> widths(count);
    std::vector<unsigned> flags(count);
    widths_.download(widths.data(), count);
    flags_.download(flags.data(), count);
    std::vector<IntervalSweepResult> results(count);
    for (std::size_t i = 0; i < count; ++i) {
      std::memcpy(&results[i].width, &widths[i], sizeof(double));
      results[i].above_target = flags[i] & kAboveTarget;
      results[i].upper_raised = flags[i] & kUpperRaised;
      results[i].crossed = flags[i] & kCrossed;
    }
    return results;
  }

  void download(int from, double* lower, double* upper) {
    lower_[from].download(lower, states_);
    upper_[from].download(upper, states_);
  }

 private:
  std::uint64_t states_;
  detail::DeviceMatrix matrix_;
  DeviceArray<double> b_lower_, b_upper_, targets_;
  DeviceArray<double> lower_[2], upper_[2];
  DeviceArray<unsigned long long> widths_;
  DeviceArray<unsigned> flags_;
  int sm_count_;
};

int group_size_for(const ChunkMatrix& chunk, const SweepSettings& settings) {
  return settings.group_size > 0 ? settings.group_size : choose_group_size(chunk);
}

}  // namespace

IntervalChunkStats solve_chunk_interval_on_device(const ChunkMatrix& chunk, const IntervalInputs& inputs,
                                                  const SweepSettings& settings, double* lower, double* upper) {
  IntervalChunkStats result;
  ChunkSolveStats& stats = result.stats;
  stats.group_size = group_size_for(chunk, settings);
  if (chunk.num_states == 0) return result;
  auto start = std::chrono::steady_clock::now();
  IntervalResident resident(chunk, inputs, lower, upper);
  check(cudaDeviceSynchronize(), "upload");
  stats.upload_s = seconds_since(start);
  start = std::chrono::steady_clock::now();
  IntervalKernel kernel = interval_kernel_for(stats.group_size, settings.maximize, settings.relative);
  // Batches as in the plain solver: the flags are read once per batch of sweeps.
  // Sweeps of a batch after a crossing only move both iterates closer together.
  int from = 0;
  bool done = false;
  result.verified = !inputs.verify_upper;
  while (!done && !result.crossed && stats.iterations < settings.max_iterations) {
    std::size_t batch = std::clamp<std::uint64_t>(stats.iterations / 10, 1, IntervalResident::kMaxBatch);
    batch = std::min<std::uint64_t>(batch, settings.max_iterations - stats.iterations);
    resident.clear(batch);
    for (std::size_t i = 0; i < batch; ++i) {
      resident.launch(kernel, stats.group_size, from, i);
      from = 1 - from;
    }
    stats.iterations += batch;
    for (const IntervalSweepResult& r : resident.read(batch)) {
      if (!result.verified && r.crossed) result.crossed = true;
      if (!result.crossed) result.verified = result.verified || !r.upper_raised;
      done = done || (result.verified && !r.above_target);
    }
  }
  stats.converged = done;
  stats.solve_s = seconds_since(start);
  start = std::chrono::steady_clock::now();
  resident.download(from, lower, upper);
  stats.download_s = seconds_since(start);
  return result;
}

IntervalSweepResult interval_sweep_once_on_device(const ChunkMatrix& chunk, const IntervalInputs& inputs,
                                                  const SweepSettings& settings, const double* lower_in,
                                                  const double* upper_in, double* lower_out, double* upper_out) {
  IntervalResident resident(chunk, inputs, lower_in, upper_in);
  resident.clear(1);
  resident.launch(interval_kernel_for(group_size_for(chunk, settings), settings.maximize, settings.relative),
                  group_size_for(chunk, settings), 0, 0);
  IntervalSweepResult result = resident.read(1).front();
  resident.download(1, lower_out, upper_out);
  return result;
}

}  // namespace mdpvi::gpu
