// The qualitative searches on the device: level-synchronous, a thread per frontier
// state walking its predecessor rows; a state is claimed with one atomicOr on its
// word of the result and pushed onto the next frontier by the one thread that set
// its bit. The host reads each level's size back (a few microseconds a level).
#include "gpu/cuda_support.cuh"
#include "gpu/graph_search.h"

#include <cuda_runtime.h>

#include <utility>

namespace mdpvi::gpu {

namespace {

using detail::check;
using detail::DeviceArray;
using detail::kBlockSize;

__device__ inline bool test_bit(const unsigned long long* d_words, std::uint64_t i) {
  return (d_words[i / 64] >> (i % 64)) & 1ull;
}

// Sets bit i; true for the one thread that found it clear.
__device__ inline bool claim_bit(unsigned long long* d_words, std::uint64_t i) {
  const unsigned long long mask = 1ull << (i % 64);
  if (d_words[i / 64] & mask) return false;
  return !(atomicOr(d_words + i / 64, mask) & mask);
}

__device__ inline void push(std::uint32_t* d_queue, unsigned* d_count, std::uint32_t state) {
  d_queue[atomicAdd(d_count, 1u)] = state;
}

// Every thread's index and the grid's stride, for grid-stride loops.
__device__ inline std::uint64_t thread_index() { return static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ inline std::uint64_t grid_stride() { return static_cast<std::uint64_t>(gridDim.x) * blockDim.x; }

struct DeviceGraph {
  std::uint32_t num_states;
  std::uint64_t num_rows;
  const std::uint64_t* __restrict__ d_row_group_starts;
  const std::uint64_t* __restrict__ d_row_starts;
  const std::uint32_t* __restrict__ d_columns;
  const std::uint64_t* __restrict__ d_pred_offsets;
  const std::uint32_t* __restrict__ d_pred_rows;  // num_states + row
  const std::uint32_t* __restrict__ d_owners;
};

__global__ void owners_kernel(DeviceGraph g, std::uint32_t* d_owners) {
  for (std::uint64_t s = thread_index(); s < g.num_states; s += grid_stride()) {
    for (std::uint64_t r = g.d_row_group_starts[s]; r < g.d_row_group_starts[s + 1]; ++r) d_owners[r] = static_cast<std::uint32_t>(s);
  }
}

// The members of a bit set, in any order, onto a queue.
__global__ void members_kernel(const unsigned long long* d_set, std::uint64_t bits, std::uint32_t* d_queue,
                               unsigned* d_count) {
  for (std::uint64_t i = thread_index(); i < bits; i += grid_stride()) {
    if (test_bit(d_set, i)) push(d_queue, d_count, static_cast<std::uint32_t>(i));
  }
}

__global__ void exists_level_kernel(DeviceGraph g, const std::uint32_t* d_frontier, unsigned frontier_size,
                                    const unsigned long long* d_allowed_states,
                                    const unsigned long long* d_allowed_rows, unsigned long long* d_reached,
                                    std::uint32_t* d_next, unsigned* d_next_count) {
  for (std::uint64_t i = thread_index(); i < frontier_size; i += grid_stride()) {
    const std::uint32_t t = d_frontier[i];
    for (std::uint64_t e = g.d_pred_offsets[t]; e < g.d_pred_offsets[t + 1]; ++e) {
      const std::uint64_t row = g.d_pred_rows[e] - g.num_states;
      if (d_allowed_rows && !test_bit(d_allowed_rows, row)) continue;
      const std::uint32_t owner = g.d_owners[row];
      if (test_bit(d_allowed_states, owner) && claim_bit(d_reached, owner)) push(d_next, d_next_count, owner);
    }
  }
}

__global__ void rows_missing_kernel(DeviceGraph g, std::uint32_t* d_rows_missing) {
  for (std::uint64_t s = thread_index(); s < g.num_states; s += grid_stride()) {
    d_rows_missing[s] = static_cast<std::uint32_t>(g.d_row_group_starts[s + 1] - g.d_row_group_starts[s]);
  }
}

__global__ void forall_level_kernel(DeviceGraph g, const std::uint32_t* d_frontier, unsigned frontier_size,
                                    const unsigned long long* d_allowed_states, unsigned long long* d_row_hit,
                                    std::uint32_t* d_rows_missing, unsigned long long* d_attracted,
                                    std::uint32_t* d_next, unsigned* d_next_count) {
  for (std::uint64_t i = thread_index(); i < frontier_size; i += grid_stride()) {
    const std::uint32_t t = d_frontier[i];
    for (std::uint64_t e = g.d_pred_offsets[t]; e < g.d_pred_offsets[t + 1]; ++e) {
      const std::uint64_t row = g.d_pred_rows[e] - g.num_states;
      if (!claim_bit(d_row_hit, row)) continue;  // a row counts once
      const std::uint32_t owner = g.d_owners[row];
      if (test_bit(d_attracted, owner) || !test_bit(d_allowed_states, owner)) continue;
      // The last row of the owner to be hit attracts it: exactly one thread sees 1.
      if (atomicSub(d_rows_missing + owner, 1u) == 1u && claim_bit(d_attracted, owner)) {
        push(d_next, d_next_count, owner);
      }
    }
  }
}

// A warp handles 32 consecutive rows and writes their bits as one 32-bit word (the
// lower or upper half of a 64-bit word: the devices are little-endian).
__global__ void stays_kernel(DeviceGraph g, const unsigned long long* d_inside, unsigned* d_stays32) {
  const unsigned lane = threadIdx.x % 32;
  const std::uint64_t warp = thread_index() / 32, warps = grid_stride() / 32;
  for (std::uint64_t base = warp * 32; base < g.num_rows; base += warps * 32) {
    const std::uint64_t r = base + lane;
    bool stays = false;
    if (r < g.num_rows && test_bit(d_inside, g.d_owners[r])) {
      stays = true;
      for (std::uint64_t k = g.d_row_starts[r]; k < g.d_row_starts[r + 1] && stays; ++k) {
        stays = test_bit(d_inside, g.d_columns[k]);
      }
    }
    const unsigned bits = __ballot_sync(0xffffffffu, stays);
    if (lane == 0) d_stays32[base / 32] = bits;
  }
}

std::uint64_t words_of(std::uint64_t bits) { return (bits + 63) / 64; }

unsigned grid_for(std::uint64_t threads, int sm_count) {
  const std::uint64_t blocks = (threads + kBlockSize - 1) / kBlockSize;
  return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(blocks, std::uint64_t(sm_count) * 32)));
}

class CudaGraphSearch final : public DeviceGraphSearch {
 public:
  explicit CudaGraphSearch(const GraphArrays& a)
      : states_(a.num_states),
        rows_(a.num_rows),
        d_row_group_starts_(a.row_group_starts, a.num_states + 1),
        d_row_starts_(a.row_starts, a.num_rows + 1),
        d_columns_(a.columns, a.num_entries),
        d_pred_offsets_(a.pred_offsets, a.num_states + 1),
        d_pred_rows_(a.pred_rows, a.pred_offsets[a.num_states]),
        d_owners_(a.num_rows),
        d_state_sets_{DeviceArray<unsigned long long>(words_of(states_)), DeviceArray<unsigned long long>(words_of(states_))},
        d_row_sets_{DeviceArray<unsigned long long>(words_of(rows_ + 64)), DeviceArray<unsigned long long>(words_of(rows_ + 64))},
        d_queues_{DeviceArray<std::uint32_t>(states_ + 1), DeviceArray<std::uint32_t>(states_ + 1)},
        d_rows_missing_(states_ + 1),
        d_count_(1),
        sm_count_(detail::multiprocessor_count()) {
    owners_kernel<<<grid_for(states_, sm_count_), kBlockSize>>>(view(), d_owners_.get());
    check(cudaGetLastError(), "owners kernel launch");
    check(cudaDeviceSynchronize(), "uploading the graph");
  }

  void backward_exists(const std::uint64_t* sources, const std::uint64_t* allowed_states,
                       const std::uint64_t* allowed_rows, std::uint64_t* reached) override {
    unsigned long long* d_reached = d_state_sets_[0].get();
    upload_words(d_reached, sources, words_of(states_));
    upload_words(d_state_sets_[1].get(), allowed_states, words_of(states_));
    if (allowed_rows) upload_words(d_row_sets_[0].get(), allowed_rows, words_of(rows_));
    const unsigned long long* d_rows = allowed_rows ? d_row_sets_[0].get() : nullptr;
    each_level(d_reached, [&](const std::uint32_t* d_frontier, unsigned size, std::uint32_t* d_next) {
      exists_level_kernel<<<grid_for(size, sm_count_), kBlockSize>>>(view(), d_frontier, size, d_state_sets_[1].get(),
                                                                      d_rows, d_reached, d_next, d_count_.get());
    });
    download_words(reached, d_reached, words_of(states_));
  }

  void backward_forall(const std::uint64_t* sources, const std::uint64_t* allowed_states,
                       std::uint64_t* attracted) override {
    unsigned long long* d_attracted = d_state_sets_[0].get();
    upload_words(d_attracted, sources, words_of(states_));
    upload_words(d_state_sets_[1].get(), allowed_states, words_of(states_));
    check(cudaMemset(d_row_sets_[0].get(), 0, words_of(rows_) * 8), "cudaMemset");
    rows_missing_kernel<<<grid_for(states_, sm_count_), kBlockSize>>>(view(), d_rows_missing_.get());
    check(cudaGetLastError(), "rows-missing kernel launch");
    each_level(d_attracted, [&](const std::uint32_t* d_frontier, unsigned size, std::uint32_t* d_next) {
      forall_level_kernel<<<grid_for(size, sm_count_), kBlockSize>>>(view(), d_frontier, size, d_state_sets_[1].get(),
                                                                      d_row_sets_[0].get(), d_rows_missing_.get(),
                                                                      d_attracted, d_next, d_count_.get());
    });
    download_words(attracted, d_attracted, words_of(states_));
  }

  void rows_staying_in(const std::uint64_t* inside, std::uint64_t* stays) override {
    upload_words(d_state_sets_[0].get(), inside, words_of(states_));
    check(cudaMemset(d_row_sets_[1].get(), 0, words_of(rows_) * 8), "cudaMemset");
    // Whole warps of 32 rows: the last word may hold bits past num_rows, all clear.
    stays_kernel<<<grid_for(rows_, sm_count_), kBlockSize>>>(view(), d_state_sets_[0].get(),
                                                              reinterpret_cast<unsigned*>(d_row_sets_[1].get()));
    check(cudaGetLastError(), "stays kernel launch");
    download_words(stays, d_row_sets_[1].get(), words_of(rows_));
  }

 private:
  DeviceGraph view() const {
    return {states_,
            rows_,
            d_row_group_starts_.get(),
            d_row_starts_.get(),
            d_columns_.get(),
            d_pred_offsets_.get(),
            d_pred_rows_.get(),
            d_owners_.get()};
  }

  // Level after level from the members of d_set, until a level adds nothing.
  template <typename Launch>
  void each_level(const unsigned long long* d_set, Launch launch) {
    int current = 0;
    unsigned size = 0;
    reset_count();
    members_kernel<<<grid_for(states_, sm_count_), kBlockSize>>>(d_set, states_, d_queues_[0].get(), d_count_.get());
    check(cudaGetLastError(), "members kernel launch");
    size = read_count();
    while (size > 0) {
      reset_count();
      launch(d_queues_[current].get(), size, d_queues_[1 - current].get());
      check(cudaGetLastError(), "level kernel launch");
      size = read_count();
      current = 1 - current;
    }
  }

  void reset_count() { check(cudaMemset(d_count_.get(), 0, sizeof(unsigned)), "cudaMemset"); }
  unsigned read_count() {
    unsigned count = 0;
    check(cudaMemcpy(&count, d_count_.get(), sizeof count, cudaMemcpyDeviceToHost), "reading a level's size");
    return count;
  }

  static void upload_words(unsigned long long* d_to, const std::uint64_t* from, std::uint64_t words) {
    check(cudaMemcpy(d_to, from, words * 8, cudaMemcpyHostToDevice), "uploading a set");
  }
  static void download_words(std::uint64_t* to, const unsigned long long* d_from, std::uint64_t words) {
    check(cudaMemcpy(to, d_from, words * 8, cudaMemcpyDeviceToHost), "downloading a set");
  }

  std::uint32_t states_;
  std::uint64_t rows_;
  DeviceArray<std::uint64_t> d_row_group_starts_, d_row_starts_;
  DeviceArray<std::uint32_t> d_columns_;
  DeviceArray<std::uint64_t> d_pred_offsets_;
  DeviceArray<std::uint32_t> d_pred_rows_, d_owners_;
  DeviceArray<unsigned long long> d_state_sets_[2];  // the result, the allowed states
  DeviceArray<unsigned long long> d_row_sets_[2];    // allowed or hit rows, staying rows
  DeviceArray<std::uint32_t> d_queues_[2];           // this level's frontier, the next
  DeviceArray<std::uint32_t> d_rows_missing_;
  DeviceArray<unsigned> d_count_;
  int sm_count_;
};

}  // namespace

std::unique_ptr<DeviceGraphSearch> upload_graph(const GraphArrays& graph) {
  if (!free_device_memory()) return nullptr;
  return std::make_unique<CudaGraphSearch>(graph);
}

}  // namespace mdpvi::gpu
