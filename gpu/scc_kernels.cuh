#pragma once
// The kernels of the device SCC decomposition and its topological order, each a
// level-synchronous step over the resident model (gpu/graph_device.cuh's primitives);
// gpu/graph_scc.cu launches them. Internal to gpu/.
#include "gpu/graph_device.cuh"
#include "gpu/graph_scc.cuh"

#include <cstdint>

namespace mdpvi::gpu::detail::scc_kernels {

constexpr std::uint32_t kLive = 0xffffffffu;  // in the set, SCC not known yet

// ---- the decomposition: trimming, max-label coloring, peeling ----

__device__ inline bool in_set(std::uint32_t label) { return label != kOutsideSet; }

__global__ void label_members(std::uint32_t n, const unsigned long long* d_states, std::uint32_t* d_scc) {
  for (std::uint64_t s = thread_index(); s < n; s += grid_stride())
    d_scc[s] = test_bit(d_states, s) ? kLive : kOutsideSet;
}

// Each live state's live neighbours other than itself, out and in, counted on the
// same walk (the release below walks the same edges, so counts and releases agree).
__global__ void count_live_edges(DeviceGraph g, const unsigned long long* d_rows, const std::uint32_t* d_scc,
                                 std::uint32_t* d_in_count, std::uint32_t* d_out_count) {
  for (std::uint64_t i = thread_index(); i < g.num_states; i += grid_stride()) {
    const auto s = static_cast<std::uint32_t>(i);
    if (d_scc[s] != kLive) continue;
    std::uint32_t out = 0;
    g.each_successor(s, d_rows, [&](std::uint32_t w) {
      if (w == s || d_scc[w] != kLive) return;
      ++out;
      atomicAdd(d_in_count + w, 1u);
    });
    d_out_count[s] = out;
  }
}

// A live state without live neighbours in or out is an SCC of its own.
__global__ void seed_singletons(std::uint32_t n, std::uint32_t* d_scc, const std::uint32_t* d_in_count,
                                const std::uint32_t* d_out_count, std::uint32_t* d_queue, unsigned* d_count) {
  for (std::uint64_t i = thread_index(); i < n; i += grid_stride()) {
    const auto s = static_cast<std::uint32_t>(i);
    if (d_scc[s] == kLive && (d_in_count[s] == 0 || d_out_count[s] == 0)) {
      d_scc[s] = s;
      push(d_queue, d_count, s);
    }
  }
}

// A singleton leaves: each live neighbour loses one count, and at 0 is one too.
__device__ inline void release(std::uint32_t w, std::uint32_t* d_scc, std::uint32_t* d_counts, const Level& level) {
  if (d_scc[w] == kLive && atomicSub(d_counts + w, 1u) == 1u && atomicCAS(d_scc + w, kLive, w) == kLive)
    level.push_next(w);
}

__global__ void trim_level(DeviceGraph g, const unsigned long long* d_rows, Level level, std::uint32_t* d_scc,
                           std::uint32_t* d_in_count, std::uint32_t* d_out_count) {
  const unsigned size = *level.size;
  for (std::uint64_t i = thread_index(); i < size; i += grid_stride()) {
    const std::uint32_t v = level.frontier[i];
    g.each_successor(v, d_rows, [&](std::uint32_t w) {
      if (w != v) release(w, d_scc, d_in_count, level);
    });
    g.each_predecessor(v, d_rows, [&](std::uint32_t u) {
      if (u != v) release(u, d_scc, d_out_count, level);
    });
  }
}

// ---- the largest live state's SCC by a forward and a backward search (Multistep's
// FW-BW step, Slota et al., IPDPS 2014): in a graph of one or a few large SCCs, max-label
// coloring relabels states over and over for as many levels as the graph is deep
// (tandem c=4095: 24,566 levels, 25.6 s on an H100); the two searches visit each state
// once. The pivot is the largest live state, so its SCC's label is its own index, as
// coloring would give it.

// d_pivot[0]: 1 + the largest live state (0: none is live).
__global__ void largest_live(std::uint32_t n, const std::uint32_t* d_scc, std::uint32_t* d_pivot) {
  for (std::uint64_t i = thread_index(); i < n; i += grid_stride()) {
    if (d_scc[i] == kLive) atomicMax(d_pivot, static_cast<std::uint32_t>(i) + 1);
  }
}

__global__ void seed_one(std::uint32_t s, std::uint32_t* d_stamp, std::uint32_t mark, std::uint32_t* d_queue,
                         unsigned* d_count) {
  d_stamp[s] = mark;
  push(d_queue, d_count, s);
}

// The live states the pivot reaches get the mark in d_stamp, each queued once.
__global__ void forward_level(DeviceGraph g, const unsigned long long* d_rows, Level level, const std::uint32_t* d_scc,
                              std::uint32_t* d_stamp, std::uint32_t mark) {
  const unsigned size = *level.size;
  for (std::uint64_t i = thread_index(); i < size; i += grid_stride()) {
    g.each_successor(level.frontier[i], d_rows, [&](std::uint32_t w) {
      if (d_scc[w] == kLive && d_stamp[w] != mark && atomicExch(d_stamp + w, mark) != mark) level.push_next(w);
    });
  }
}

__global__ void seed_pivot_scc(std::uint32_t pivot, std::uint32_t* d_scc, std::uint32_t* d_queue, unsigned* d_count) {
  d_scc[pivot] = pivot;
  push(d_queue, d_count, pivot);
}

// The marked live states that reach the pivot: its SCC, labelled with it.
__global__ void backward_level(DeviceGraph g, const unsigned long long* d_rows, Level level, std::uint32_t* d_scc,
                               const std::uint32_t* d_stamp, std::uint32_t mark, std::uint32_t pivot) {
  const unsigned size = *level.size;
  for (std::uint64_t i = thread_index(); i < size; i += grid_stride()) {
    g.each_predecessor(level.frontier[i], d_rows, [&](std::uint32_t u) {
      if (d_scc[u] == kLive && d_stamp[u] == mark && atomicCAS(d_scc + u, kLive, pivot) == kLive)
        level.push_next(u);
    });
  }
}

// The live states onto the queue, each colored with its own index.
__global__ void gather_live(std::uint32_t n, const std::uint32_t* d_scc, std::uint32_t* d_color, std::uint32_t* d_queue,
                            unsigned* d_count) {
  for (std::uint64_t i = thread_index(); i < n; i += grid_stride()) {
    const auto s = static_cast<std::uint32_t>(i);
    if (d_scc[s] != kLive) continue;
    d_color[s] = s;
    push(d_queue, d_count, s);
  }
}

// Max-label propagation: a state whose color rose goes onto the next level once
// (stamp holds the last level it was queued for; levels never repeat a mark).
__global__ void color_level(DeviceGraph g, const unsigned long long* d_rows, Level level, const std::uint32_t* d_scc,
                            std::uint32_t* d_color, std::uint32_t* d_stamp, std::uint32_t mark) {
  const unsigned size = *level.size;
  for (std::uint64_t i = thread_index(); i < size; i += grid_stride()) {
    const std::uint32_t v = level.frontier[i];
    const std::uint32_t c = d_color[v];
    g.each_successor(v, d_rows, [&](std::uint32_t w) {
      if (d_scc[w] == kLive && atomicMax(d_color + w, c) < c && atomicExch(d_stamp + w, mark) != mark)
        level.push_next(w);
    });
  }
}

// A live state that kept its own color is the largest of its SCC: its root.
__global__ void take_roots(std::uint32_t n, std::uint32_t* d_scc, const std::uint32_t* d_color, std::uint32_t* d_queue,
                           unsigned* d_count) {
  for (std::uint64_t i = thread_index(); i < n; i += grid_stride()) {
    const auto s = static_cast<std::uint32_t>(i);
    if (d_scc[s] == kLive && d_color[s] == s) {
      d_scc[s] = s;
      push(d_queue, d_count, s);
    }
  }
}

// A root's SCC: the states of its color that reach it backwards.
__global__ void peel_level(DeviceGraph g, const unsigned long long* d_rows, Level level, std::uint32_t* d_scc,
                           const std::uint32_t* d_color) {
  const unsigned size = *level.size;
  for (std::uint64_t i = thread_index(); i < size; i += grid_stride()) {
    const std::uint32_t v = level.frontier[i];
    const std::uint32_t c = d_color[v];
    g.each_predecessor(v, d_rows, [&](std::uint32_t u) {
      if (d_scc[u] == kLive && d_color[u] == c && atomicCAS(d_scc + u, kLive, c) == kLive) level.push_next(u);
    });
  }
}

// ---- the order: SCCs grouped, their heights on the SCC DAG, sorted by height ----

__global__ void iota_kernel(std::uint32_t* d_out, std::uint64_t n) {
  for (std::uint64_t i = thread_index(); i < n; i += grid_stride()) d_out[i] = static_cast<std::uint32_t>(i);
}

__global__ void slot_of_representative(const std::uint32_t* d_representatives, std::uint32_t count,
                                       std::uint32_t* d_slot) {
  for (std::uint64_t c = thread_index(); c < count; c += grid_stride())
    d_slot[d_representatives[c]] = static_cast<std::uint32_t>(c);
}

// Per SCC, its edges to other SCCs of the set.
__global__ void count_leaving_edges(DeviceGraph g, const unsigned long long* d_rows, const std::uint32_t* d_scc,
                                    const std::uint32_t* d_slot, std::uint32_t* d_leaving) {
  for (std::uint64_t i = thread_index(); i < g.num_states; i += grid_stride()) {
    const auto s = static_cast<std::uint32_t>(i);
    if (!in_set(d_scc[s])) continue;
    std::uint32_t count = 0;
    g.each_successor(s, d_rows, [&](std::uint32_t w) { count += in_set(d_scc[w]) && d_scc[w] != d_scc[s]; });
    if (count > 0) atomicAdd(d_leaving + d_slot[d_scc[s]], count);
  }
}

__global__ void seed_sinks(std::uint32_t count, const std::uint32_t* d_leaving, std::uint32_t* d_height,
                           std::uint32_t* d_queue, unsigned* d_count) {
  for (std::uint64_t c = thread_index(); c < count; c += grid_stride()) {
    if (d_leaving[c] != 0) continue;
    d_height[c] = 0;
    push(d_queue, d_count, static_cast<std::uint32_t>(c));
  }
}

__global__ void frontier_sizes(const std::uint32_t* d_frontier, unsigned size, const std::uint32_t* d_sizes,
                               std::uint32_t* d_out) {
  for (std::uint64_t j = thread_index(); j < size; j += grid_stride()) d_out[j] = d_sizes[d_frontier[j]];
}

// Kahn's algorithm a level at a time, a thread per member of the level's SCCs (the
// member found by binary search in the running total of their sizes, so a large
// SCC spreads over many threads): an SCC whose last leaving edge is released gets
// height one more than this level's and joins the next. The members are counted
// here, from the running total, not on the host: reading them back was a second
// wait per level, and a model may have thousands of levels.
__global__ void height_level(DeviceGraph g, const unsigned long long* d_rows, const std::uint32_t* d_frontier,
                             unsigned size, const std::uint32_t* d_running_total, const std::uint32_t* d_scc,
                             const std::uint32_t* d_group_states, const std::uint32_t* d_starts,
                             const std::uint32_t* d_slot, std::uint32_t* d_leaving, std::uint32_t* d_height,
                             std::uint32_t* d_next, unsigned* d_count) {
  const std::uint32_t level_members = d_running_total[size - 1];
  for (std::uint64_t i = thread_index(); i < level_members; i += grid_stride()) {
    unsigned lo = 0, hi = size - 1;  // the first j with d_running_total[j] > i
    while (lo < hi) {
      const unsigned mid = (lo + hi) / 2;
      if (d_running_total[mid] > i)
        hi = mid;
      else
        lo = mid + 1;
    }
    const std::uint32_t c = d_frontier[lo];
    const std::uint32_t before = lo == 0 ? 0 : d_running_total[lo - 1];
    const std::uint32_t v = d_group_states[d_starts[c] + (i - before)];
    g.each_predecessor(v, d_rows, [&](std::uint32_t u) {
      if (!in_set(d_scc[u]) || d_scc[u] == d_scc[v]) return;
      const std::uint32_t p = d_slot[d_scc[u]];
      if (atomicSub(d_leaving + p, 1u) == 1u) {
        d_height[p] = d_height[c] + 1;
        push(d_next, d_count, p);
      }
    });
  }
}

__global__ void rank_groups(std::uint32_t count, const std::uint32_t* d_ranked, const std::uint32_t* d_sizes,
                            std::uint32_t* d_rank_of, std::uint32_t* d_ranked_sizes) {
  for (std::uint64_t i = thread_index(); i < count; i += grid_stride()) {
    d_rank_of[d_ranked[i]] = static_cast<std::uint32_t>(i);
    d_ranked_sizes[i] = d_sizes[d_ranked[i]];
  }
}

__global__ void scatter_in_order(std::uint32_t members, const std::uint32_t* d_group_states, const std::uint32_t* d_scc,
                                 const std::uint32_t* d_slot, const std::uint32_t* d_starts,
                                 const std::uint32_t* d_rank_of, const std::uint64_t* d_ranked_starts,
                                 std::uint32_t* d_order) {
  for (std::uint64_t k = thread_index(); k < members; k += grid_stride()) {
    const std::uint32_t v = d_group_states[k];
    const std::uint32_t c = d_slot[d_scc[v]];
    d_order[d_ranked_starts[d_rank_of[c]] + (k - d_starts[c])] = v;
  }
}

__global__ void outside_as_none(std::uint32_t n, std::uint32_t* d_scc) {
  for (std::uint64_t s = thread_index(); s < n; s += grid_stride()) {
    if (d_scc[s] == kOutsideSet) d_scc[s] = 0xffffffffu;
  }
}

}  // namespace mdpvi::gpu::detail::scc_kernels
