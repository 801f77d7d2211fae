#pragma once
// The building blocks every sweep kernel is made of, written once (in the manner of
// CUB's warp and block primitives): a group of G lanes per state, the grid-stride
// walk over the states, the optimum over a state's choices for K iterates at once,
// and the block-wide reductions of a sweep's result into one device word.
// Internal to gpu/.
#include "gpu/cuda_support.cuh"

#include <cub/block/block_reduce.cuh>

namespace mdpvi::gpu::detail {

// G consecutive lanes of a warp that share one state: each row's dot product is
// split over them and summed with shuffles inside the group. G: 1, 2, 4, ..., 32.
template <int G>
struct LaneGroup {
  unsigned lane;
  unsigned mask;

  __device__ LaneGroup()
      : lane(threadIdx.x % G),
        mask(G == 32 ? 0xffffffffu : (((1u << G) - 1u) << (((threadIdx.x % 32) / G) * G))) {}

  __device__ bool leader() const { return lane == 0; }

  __device__ double sum(double value) const {
    if constexpr (G > 1) {
      for (int offset = G / 2; offset > 0; offset /= 2) value += __shfl_xor_sync(mask, value, offset, G);
    }
    return value;
  }

  template <bool kMaximize>
  __device__ double optimum(double value) const {
    if constexpr (G > 1) {
      for (int offset = G / 2; offset > 0; offset /= 2) {
        const double other = __shfl_xor_sync(mask, value, offset, G);
        value = kMaximize ? fmax(value, other) : fmin(value, other);
      }
    }
    return value;
  }
};

// Calls visit(s) for every state s in [first, end) this thread's group owns: groups
// stride over the states, so any grid size covers any window of any chunk.
template <int G, typename Visit>
__device__ void for_each_state(std::uint64_t first, std::uint64_t end, Visit visit) {
  const std::uint64_t groups = static_cast<std::uint64_t>(gridDim.x) * blockDim.x / G;
  for (std::uint64_t s = first + (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / G; s < end;
       s += groups) {
    visit(s);
  }
}

// K values carried side by side (one per iterate).
template <int K>
struct Values {
  double v[K];
};

// For each of K iterates x_i with its own constants b_i: the optimum over the rows r
// of state s of b_i(r) + sum_k P(r,k) * x_i(column k). The K dot products share the
// column and value loads, the bulk of a sweep's traffic. Every lane of the group
// returns the same values. The lanes split each row's entries among them, or, with
// kOverRows, take the state's rows in turn, each summing whole rows: where a state has
// many short rows, a warp's loads then fall on consecutive entries.
// A view (kView: DeviceChunk::is_view) makes one b for every iterate as it reads the row:
// its reward first, then its entries out of the chunk in order (with one lane, in
// the order of the system's build, so the same bits); a row whose b is +infinity is
// left out, and a state with none left has the value +infinity, as in the system.
template <int G, bool kMaximize, int K, bool kOverRows = false, bool kView = false>
__device__ Values<K> optimize_over_choices(const DeviceChunk& m, const LaneGroup<G>& group, std::uint64_t s,
                                           const double* const (&d_x)[K], const double* const (&d_b)[K]) {
  Values<K> best;
  for (int i = 0; i < K; ++i) best.v[i] = kMaximize ? -INFINITY : INFINITY;
  const std::uint64_t state = kView ? m.d_order[s] : s;
  const std::uint64_t row_end = m.d_row_group_starts[state + 1];
  constexpr int kRowStep = kOverRows ? G : 1;
  constexpr int kEntryLanes = kOverRows ? 1 : G;
  const std::uint64_t lane = group.lane;
  for (std::uint64_t r = m.d_row_group_starts[state] + (kOverRows ? lane : 0); r < row_end; r += kRowStep) {
    double sum[K];
    for (int i = 0; i < K; ++i) sum[i] = 0.0;
    double constant = kView && (kOverRows || group.leader()) ? m.constants.reward(state, r) : 0.0;
    const std::uint64_t k_begin = kView ? m.view_row_starts[r] : m.d_row_starts[r];
    const std::uint64_t k_end = kView ? m.view_row_starts[r + 1] : m.d_row_starts[r + 1];
    for (std::uint64_t k = k_begin + (kOverRows ? 0 : lane); k < k_end; k += kEntryLanes) {
      const double p = m.values[k];
      std::uint32_t c = m.d_columns[k];
      if constexpr (kView) {
        const std::uint32_t local = m.d_local[c];
        if (local == kOutsideChunk) {
          constant = m.constants.plus_outside(constant, p, c);
          continue;
        }
        c = local;
      }
      for (int i = 0; i < K; ++i) sum[i] += p * d_x[i][c];
    }
    if constexpr (kView) {
      if (!kOverRows) constant = group.sum(constant);  // the same in every lane: they skip alike
      if (isinf(constant) && constant > 0) continue;
    }
    for (int i = 0; i < K; ++i) {
      const double value = (kOverRows ? sum[i] : group.sum(sum[i])) + (kView ? constant : d_b[i][r]);
      best.v[i] = kMaximize ? fmax(best.v[i], value) : fmin(best.v[i], value);
    }
  }
  if constexpr (kOverRows) {
    for (int i = 0; i < K; ++i) best.v[i] = group.template optimum<kMaximize>(best.v[i]);
  }
  if constexpr (kMaximize && kView) {
    for (int i = 0; i < K; ++i) best.v[i] = best.v[i] == -INFINITY ? INFINITY : best.v[i];
  }
  return best;
}

struct Maximum {
  __device__ double operator()(double a, double b) const { return fmax(a, b); }
};

// The block's largest value, folded into *d_out with one atomic. Pre: values >= 0
// (non-negative doubles order like their bit patterns); *d_out starts at 0.
__device__ inline void block_max_into(double value, unsigned long long* d_out) {
  using BlockReduce = cub::BlockReduce<double, kBlockSize>;
  __shared__ typename BlockReduce::TempStorage scratch;
  const double block_max = BlockReduce(scratch).Reduce(value, Maximum());
  if (threadIdx.x == 0 && block_max > 0.0) {
    atomicMax(d_out, static_cast<unsigned long long>(__double_as_longlong(block_max)));
  }
}

// The block's flags (bits among `bits`), or-ed into *d_out with one atomic.
__device__ inline void block_or_into(unsigned flags, unsigned bits, unsigned* d_out) {
  unsigned block_flags = 0;
  for (unsigned bit = 1; bit <= bits; bit <<= 1) {
    if ((bits & bit) && __syncthreads_or(flags & bit)) block_flags |= bit;
  }
  if (threadIdx.x == 0 && block_flags) atomicOr(d_out, block_flags);
}

}  // namespace mdpvi::gpu::detail
