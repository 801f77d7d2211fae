// Width targets on the device (gpu/level_targets.cuh). A state's level is the
// largest level among its successors outside its SCC, plus one where its SCC is not
// trivial (more than one state, or a self-loop); an SCC's states share it. Height
// levels are done in order, each in two launches: the first takes each state's
// successors' maximum (a one-state SCC finishes there), the second gives the other
// SCCs' states their SCC's maximum, folded in with one atomic per state.
#include "gpu/level_targets.cuh"

#include "gpu/kept_rows.cuh"

#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <limits>
#include <vector>

namespace mdpvi::gpu::detail {

namespace {

constexpr std::uint32_t kNoLevel = std::numeric_limits<std::uint32_t>::max();

struct Most {
  __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const { return max(a, b); }
};
struct Fewest {
  __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const { return min(a, b); }
};

struct SccView {
  const std::uint64_t* __restrict__ starts;  // num_sccs + 1, states
  std::uint64_t num_sccs;
};

// The SCC of each state: the last SCC starting at or before it.
__global__ void scc_of_kernel(SccView sccs, std::uint64_t n, std::uint32_t* __restrict__ d_scc_of) {
  for (std::uint64_t s = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; s < n;
       s += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    std::uint64_t low = 0, high = sccs.num_sccs;  // starts[low] <= s < starts[high]
    while (high - low > 1) {
      const std::uint64_t mid = (low + high) / 2;
      if (sccs.starts[mid] <= s) low = mid; else high = mid;
    }
    d_scc_of[s] = static_cast<std::uint32_t>(low);
  }
}

// visit(local column) for each entry of chunk state s: a copy's own rows, or a
// view's kept rows (gpu/kept_rows.cuh) and their entries into the chunk.
template <typename Visit>
__device__ void each_column(const DeviceChunk& m, std::uint64_t s, Visit visit) {
  if (!m.is_view()) {
    for (std::uint64_t k = m.d_row_starts[m.d_row_group_starts[s]]; k < m.d_row_starts[m.d_row_group_starts[s + 1]]; ++k) {
      visit(m.d_columns[k]);
    }
    return;
  }
  kept_rows(m.d_row_group_starts, m.view_row_starts, m.d_columns, m.constants, m.d_local, m.model_state(s),
            [&](std::uint64_t r, double) {
              for (std::uint64_t k = m.view_row_starts[r]; k < m.view_row_starts[r + 1]; ++k) {
                const std::uint32_t local = m.d_local[m.d_columns[k]];
                if (local != kOutsideChunk) visit(local);
              }
            });
}

// First launch of a height level: the successors' maximum outside the SCC.
__global__ void successors_kernel(DeviceChunk m, SccView sccs, Window w, const std::uint32_t* __restrict__ d_scc_of,
                                  std::uint32_t* __restrict__ d_level, std::uint32_t* __restrict__ d_scc_level) {
  for (std::uint64_t s = w.first + blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; s < w.end;
       s += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    const std::uint32_t c = d_scc_of[s];
    const std::uint64_t first = sccs.starts[c], end = sccs.starts[c + 1];
    std::uint32_t below = 0;
    bool self_loop = false;
    each_column(m, s, [&](std::uint32_t column) {
      if (column < first || column >= end) {
        below = max(below, d_level[column]);
      } else if (column == s) {
        self_loop = true;
      }
    });
    if (end - first == 1) {
      d_level[s] = below + (self_loop ? 1u : 0u);
    } else {
      atomicMax(d_scc_level + c, below);
    }
  }
}

// Second launch: the SCC's maximum plus one for the states of SCCs of several
// states; every state's level folded into the largest and the level's least positive.
__global__ void finish_kernel(SccView sccs, Window w, const std::uint32_t* __restrict__ d_scc_of,
                              const std::uint32_t* __restrict__ d_scc_level, std::uint32_t* __restrict__ d_level,
                              std::uint32_t* __restrict__ d_highest, std::uint32_t* __restrict__ d_least) {
  std::uint32_t most = 0, fewest = kNoLevel;
  for (std::uint64_t s = w.first + blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; s < w.end;
       s += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    const std::uint32_t c = d_scc_of[s];
    if (sccs.starts[c + 1] - sccs.starts[c] > 1) d_level[s] = d_scc_level[c] + 1;
    const std::uint32_t own = d_level[s];
    most = max(most, own);
    if (own > 0) fewest = min(fewest, own);
  }
  using BlockReduce = cub::BlockReduce<std::uint32_t, kBlockSize>;
  __shared__ typename BlockReduce::TempStorage scratch;
  const std::uint32_t block_most = BlockReduce(scratch).Reduce(most, Most());
  __syncthreads();
  const std::uint32_t block_fewest = BlockReduce(scratch).Reduce(fewest, Fewest());
  if (threadIdx.x == 0) {
    atomicMax(d_highest, block_most);
    atomicMin(d_least, block_fewest);
  }
}

__global__ void targets_kernel(std::uint64_t n, const std::uint32_t* __restrict__ d_level,
                               const std::uint32_t* __restrict__ d_highest, double epsilon, double* __restrict__ d_targets) {
  const double h = static_cast<double>(max(*d_highest, 1u));
  for (std::uint64_t s = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; s < n;
       s += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    d_targets[s] = 2.0 * epsilon * static_cast<double>(d_level[s]) / h;
  }
}

unsigned blocks_for(std::uint64_t items, int sm_count) { return sweep_blocks(items, 1, sm_count); }

}  // namespace

LevelTargets compute_level_targets(const DeviceChunk& m, const LevelTargetInputs& in, double* d_targets,
                                   cudaStream_t stream, int sm_count) {
  const std::uint64_t n = m.num_states;
  LevelTargets result;
  result.least.assign(in.num_levels, 0);
  if (n == 0) return result;
  DeviceArray<std::uint64_t> d_starts(in.num_sccs + 1);
  DeviceArray<std::uint32_t> scc_of(n), level(n), scc_level(in.num_sccs), d_highest(1), d_least(std::max<std::size_t>(in.num_levels, 1));
  d_starts.upload(in.scc_starts, in.num_sccs + 1, stream);
  check(cudaMemsetAsync(level.get(), 0, n * sizeof(std::uint32_t), stream), "cudaMemset");
  check(cudaMemsetAsync(scc_level.get(), 0, in.num_sccs * sizeof(std::uint32_t), stream), "cudaMemset");
  check(cudaMemsetAsync(d_highest.get(), 0, sizeof(std::uint32_t), stream), "cudaMemset");
  check(cudaMemsetAsync(d_least.get(), 0xff, std::max<std::size_t>(in.num_levels, 1) * sizeof(std::uint32_t), stream),
        "cudaMemset");
  const SccView sccs{d_starts.get(), in.num_sccs};
  scc_of_kernel<<<blocks_for(n, sm_count), kBlockSize, 0, stream>>>(sccs, n, scc_of.get());
  check(cudaGetLastError(), "scc_of kernel launch");
  // Levels below the first with cycles hold trivial SCCs reading only each other: level 0.
  for (std::size_t h = in.first_cyclic; h < in.num_levels; ++h) {
    const Window w{in.scc_starts[in.level_starts[h]], in.scc_starts[in.level_starts[h + 1]]};
    if (w.end == w.first) continue;
    successors_kernel<<<blocks_for(w.end - w.first, sm_count), kBlockSize, 0, stream>>>(m, sccs, w, scc_of.get(),
                                                                                       level.get(), scc_level.get());
    finish_kernel<<<blocks_for(w.end - w.first, sm_count), kBlockSize, 0, stream>>>(
        sccs, w, scc_of.get(), scc_level.get(), level.get(), d_highest.get(), d_least.get() + h);
    check(cudaGetLastError(), "level target kernel launch");
  }
  targets_kernel<<<blocks_for(n, sm_count), kBlockSize, 0, stream>>>(n, level.get(), d_highest.get(), in.epsilon,
                                                                     d_targets);
  check(cudaGetLastError(), "targets kernel launch");
  std::vector<std::uint32_t> least(std::max<std::size_t>(in.num_levels, 1));
  check(cudaMemcpyAsync(&result.highest, d_highest.get(), sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream), "download");
  check(cudaMemcpyAsync(least.data(), d_least.get(), least.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream),
        "download");
  check(cudaStreamSynchronize(stream), "level targets");
  result.highest = std::max<std::uint32_t>(result.highest, 1);
  for (std::size_t h = 0; h < in.num_levels; ++h) result.least[h] = least[h] == kNoLevel ? 0 : least[h];
  return result;
}

}  // namespace mdpvi::gpu::detail
