#pragma once
// What the CUDA graph algorithms (graph_search.cu, graph_scc.cu) share: the resident
// model structure as kernels read it, bit-set and queue primitives, and the
// level-synchronous loop. Internal to gpu/.
#include "gpu/cuda_support.cuh"

#include <cub/block/block_reduce.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace mdpvi::gpu::detail {

__device__ inline bool test_bit(const unsigned long long* d_words, std::uint64_t i) {
  return (d_words[i / 64] >> (i % 64)) & 1ull;
}

// Sets bit i; true for the one thread that found it clear.
__device__ inline bool claim_bit(unsigned long long* d_words, std::uint64_t i) {
  const unsigned long long mask = 1ull << (i % 64);
  if (d_words[i / 64] & mask) return false;
  return !(atomicOr(d_words + i / 64, mask) & mask);
}

__device__ inline void push(std::uint32_t* d_queue, unsigned* d_count, std::uint32_t item) {
  d_queue[atomicAdd(d_count, 1u)] = item;
}

// Every thread's index and the grid's stride, for grid-stride loops.
__device__ inline std::uint64_t thread_index() { return static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ inline std::uint64_t grid_stride() { return static_cast<std::uint64_t>(gridDim.x) * blockDim.x; }

inline std::uint64_t words_of(std::uint64_t bits) { return (bits + 63) / 64; }

// Each of the block's N counts summed and added into d_sums[0, N), one atomic each.
template <int N>
__device__ void block_sums_into(const unsigned long long (&counts)[N], unsigned long long* d_sums) {
  using BlockReduce = cub::BlockReduce<unsigned long long, kBlockSize>;
  __shared__ typename BlockReduce::TempStorage scratch;
  for (int k = 0; k < N; ++k) {
    const unsigned long long block_sum = BlockReduce(scratch).Sum(counts[k]);
    if (threadIdx.x == 0 && block_sum > 0) atomicAdd(d_sums + k, block_sum);
    __syncthreads();
  }
}

// Blocks for a grid-stride loop over `threads` items.
inline unsigned grid_for(std::uint64_t threads, int sm_count) {
  const std::uint64_t blocks = (threads + kBlockSize - 1) / kBlockSize;
  return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(blocks, std::uint64_t(sm_count) * 32)));
}

// Runs a CUB device algorithm: call(temp, bytes) once for the size, once to work.
template <typename Call>
void with_temp_storage(const char* what, Call call) {
  std::size_t bytes = 0;
  check(call(nullptr, bytes), what);
  DeviceArray<unsigned char> temp(bytes);
  check(call(temp.get(), bytes), what);
}

// The model's structure on the device (gpu/graph_search.h's GraphArrays, plus each
// row's owner).
struct DeviceGraph {
  std::uint32_t num_states;
  std::uint64_t num_rows;
  const std::uint64_t* __restrict__ d_row_group_starts;
  RowOffsets d_row_starts;
  const std::uint32_t* __restrict__ d_columns;
  const std::uint64_t* __restrict__ d_pred_offsets;
  const std::uint32_t* __restrict__ d_pred_rows;  // num_states + row
  const std::uint32_t* __restrict__ d_owners;

  // visit(w) for each successor w of state s through rows in d_rows (null: all rows).
  template <typename Visit>
  __device__ void each_successor(std::uint32_t s, const unsigned long long* d_rows, Visit visit) const {
    for (std::uint64_t r = d_row_group_starts[s]; r < d_row_group_starts[s + 1]; ++r) {
      if (d_rows && !test_bit(d_rows, r)) continue;
      for (std::uint64_t k = d_row_starts[r]; k < d_row_starts[r + 1]; ++k) visit(d_columns[k]);
    }
  }
  // visit(u) for the owner u of each row in d_rows (null: all rows) with t as a
  // successor, once per occurrence of t in the row (as each_successor counts it).
  template <typename Visit>
  __device__ void each_predecessor(std::uint32_t t, const unsigned long long* d_rows, Visit visit) const {
    for (std::uint64_t e = d_pred_offsets[t]; e < d_pred_offsets[t + 1]; ++e) {
      const std::uint64_t row = d_pred_rows[e] - num_states;
      if (d_rows && !test_bit(d_rows, row)) continue;
      visit(d_owners[row]);
    }
  }
};

// Two frontier queues and the device counter of the next one's length: a level
// kernel reads one queue and pushes onto the other. The host reads each level's
// length back (a few microseconds a level).
class LevelQueues {
 public:
  explicit LevelQueues(std::uint64_t capacity)
      : queues_{DeviceArray<std::uint32_t>(capacity), DeviceArray<std::uint32_t>(capacity)}, count_(1) {
    check(cudaMallocHost(&host_count_, sizeof(unsigned)), "cudaMallocHost");
  }
  ~LevelQueues() { cudaFreeHost(host_count_); }
  LevelQueues(const LevelQueues&) = delete;
  LevelQueues& operator=(const LevelQueues&) = delete;

  // fill(d_queue, d_count) seeds the first level; then launch(d_frontier, size,
  // d_next, d_count) for each level until one pushes nothing. Returns the number of
  // levels run.
  template <typename Fill, typename Launch>
  unsigned run(Fill fill, Launch launch) {
    int current = 0;
    reset_count();
    fill(queues_[0].get(), count_.get());
    check(cudaGetLastError(), "seeding a frontier");
    unsigned size = read_count(), levels = 0;
    while (size > 0) {
      reset_count();
      launch(queues_[current].get(), size, queues_[1 - current].get(), count_.get());
      check(cudaGetLastError(), "level kernel launch");
      size = read_count();
      current = 1 - current;
      ++levels;
    }
    return levels;
  }

 private:
  // Asynchronous on the default stream, into pinned memory: a level costs one wait.
  void reset_count() { check(cudaMemsetAsync(count_.get(), 0, sizeof(unsigned)), "cudaMemsetAsync"); }
  unsigned read_count() {
    check(cudaMemcpyAsync(host_count_, count_.get(), sizeof(unsigned), cudaMemcpyDeviceToHost), "reading a level's size");
    check(cudaStreamSynchronize(0), "waiting for a level");
    return *host_count_;
  }

  DeviceArray<std::uint32_t> queues_[2];
  DeviceArray<unsigned> count_;
  unsigned* host_count_ = nullptr;
};

}  // namespace mdpvi::gpu::detail
