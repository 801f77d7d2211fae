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

// A predecessor entry's row as its index among its owner's rows, in the fewest bytes
// that hold the most rows a state has (1, 2 or 4).
struct LocalRows {
  const std::uint8_t* __restrict__ narrow = nullptr;
  const std::uint16_t* __restrict__ medium = nullptr;
  const std::uint32_t* __restrict__ wide = nullptr;

  __device__ std::uint32_t operator[](std::uint64_t e) const { return narrow ? narrow[e] : medium ? medium[e] : wide[e]; }
};

// The model's structure on the device (gpu/graph_search.h's GraphArrays), and what the
// backward searches read: per state its predecessor entries (offsets, 4 bytes where
// the entries fit), each the owner of a row with the state as a successor and that
// row's index among the owner's rows: 5 bytes an entry where most models have 1 local
// byte, where a row number per entry and an owner per row took 4 bytes an entry and 4
// a row (bench/NOTES.md, session 26).
struct DeviceGraph {
  std::uint32_t num_states;
  std::uint64_t num_rows;
  RowOffsets d_row_group_starts;
  RowOffsets d_row_starts;
  const std::uint32_t* __restrict__ d_columns;
  RowOffsets d_pred_offsets;
  const std::uint32_t* __restrict__ d_pred_owners;
  LocalRows d_pred_local;

  // The row of predecessor entry e, whose owner is owner.
  __device__ std::uint64_t pred_row(std::uint64_t e, std::uint32_t owner) const {
    return d_row_group_starts[owner] + d_pred_local[e];
  }
  // The state whose rows hold row r: the last state whose first row is at most r (a
  // state without rows shares its first row with the next).
  __device__ std::uint32_t owner_of_row(std::uint64_t r) const {
    std::uint32_t low = 0, high = num_states;  // d_row_group_starts[low] <= r < d_row_group_starts[high]
    while (high - low > 1) {
      const std::uint32_t middle = low + (high - low) / 2;
      if (d_row_group_starts[middle] <= r) {
        low = middle;
      } else {
        high = middle;
      }
    }
    return low;
  }

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
    for (std::uint64_t e = d_pred_offsets[t], end = d_pred_offsets[t + 1]; e < end; ++e) {
      const std::uint32_t owner = d_pred_owners[e];
      if (d_rows && !test_bit(d_rows, pred_row(e, owner))) continue;
      visit(owner);
    }
  }
};

// A level as its kernel sees it: the frontier, its length (on the device), and the
// next level's queue and length.
struct Level {
  const std::uint32_t* frontier;
  const unsigned* size;
  std::uint32_t* next;
  unsigned* next_size;

  __device__ void push_next(std::uint32_t item) const { push(next, next_size, item); }
};

// Two frontier queues and, per level, the device counter of its length: a level
// kernel reads its frontier's length from the device (d_size) and pushes onto the
// other queue. The host enqueues a batch of levels and reads their lengths back once:
// a wait costs about 20 microseconds, and a search may run for tens of thousands of
// levels (tandem c=4095's SCCs: 24,573). Levels after an empty one push nothing.
class LevelQueues {
 public:
  explicit LevelQueues(std::uint64_t capacity)
      : queues_{DeviceArray<std::uint32_t>(capacity), DeviceArray<std::uint32_t>(capacity)}, counts_(kMostLevels + 1) {
    check(cudaMallocHost(&host_counts_, (kMostLevels + 1) * sizeof(unsigned)), "cudaMallocHost");
  }
  ~LevelQueues() { cudaFreeHost(host_counts_); }
  LevelQueues(const LevelQueues&) = delete;
  LevelQueues& operator=(const LevelQueues&) = delete;

  // fill(d_queue, d_count) seeds the first level; then launch(level, hint) for each
  // level until one pushes nothing. hint is the largest length the last batch saw,
  // for the grid's size: a level's length may differ (the kernels loop over
  // *level.size, whatever the grid). Batches double up to
  // kMostLevels while the lengths stay within twice the hint, and fall back to one
  // level where they grow faster, so a search of a few levels, or of quickly growing
  // ones, launches few idle or undersized levels. Returns the number of levels run.
  template <typename Fill, typename Launch>
  unsigned run(Fill fill, Launch launch) {
    return run_batched(fill, launch, kMostLevels);
  }
  // The same a level at a time: hint is the level's length (for callers whose launch
  // needs it on the host).
  template <typename Fill, typename Launch>
  unsigned run_level_by_level(Fill fill, Launch launch) {
    return run_batched(fill, launch, 1);
  }

 private:
  static constexpr unsigned kMostLevels = 64;

  template <typename Fill, typename Launch>
  unsigned run_batched(Fill fill, Launch launch, unsigned most_levels) {
    int current = 0;
    check(cudaMemsetAsync(counts_.get(), 0, sizeof(unsigned)), "cudaMemsetAsync");
    fill(queues_[0].get(), counts_.get());
    check(cudaGetLastError(), "seeding a frontier");
    unsigned size = read_counts(0, 1)[0], hint = size, levels = 0, batch = 1;
    while (size > 0) {
      // counts_[0] holds the frontier's length; level j's is counts_[j].
      check(cudaMemsetAsync(counts_.get() + 1, 0, batch * sizeof(unsigned)), "cudaMemsetAsync");
      for (unsigned j = 0; j < batch; ++j, current = 1 - current) {
        const Level level{queues_[current].get(), counts_.get() + j, queues_[1 - current].get(), counts_.get() + j + 1};
        launch(level, hint);
        check(cudaGetLastError(), "level kernel launch");
      }
      const unsigned* lengths = read_counts(1, batch);  // lengths[j]: counts_[j + 1]
      ++levels;
      for (unsigned j = 0; j + 1 < batch && lengths[j] > 0; ++j) ++levels;
      const unsigned largest = *std::max_element(lengths, lengths + batch);
      size = lengths[batch - 1];
      if (size > 0) {
        check(cudaMemcpyAsync(counts_.get(), counts_.get() + batch, sizeof(unsigned), cudaMemcpyDeviceToDevice),
              "carrying a level's length");
      }
      batch = largest <= 2 * std::uint64_t{hint} ? std::min(2 * batch, most_levels) : 1;
      hint = largest;
    }
    return levels;
  }

  // counts_[first, first + count) through pinned memory: one wait.
  const unsigned* read_counts(unsigned first, unsigned count) {
    check(cudaMemcpyAsync(host_counts_, counts_.get() + first, count * sizeof(unsigned), cudaMemcpyDeviceToHost),
          "reading the levels' lengths");
    check(cudaStreamSynchronize(0), "waiting for the levels");
    return host_counts_;
  }

  DeviceArray<std::uint32_t> queues_[2];
  DeviceArray<unsigned> counts_;
  unsigned* host_counts_ = nullptr;
};

}  // namespace mdpvi::gpu::detail
