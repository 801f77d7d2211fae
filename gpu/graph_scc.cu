// SCCs on the device: the steps of graph/parallel_scc.cpp (trim, max-label coloring,
// peeling each root's SCC backwards; then heights by Kahn's algorithm on the SCC DAG
// and a sort by height), as ECL-SCC (Alabandi, Burtscher et al., SC23) and
// Multistep (Slota et al., IPDPS 2014) decompose graphs, each step a level-synchronous
// kernel over the resident model. SCCs are labelled by their largest state, so the
// result does not depend on the schedule: partition and order are those of the
// oneTBB version (tested equal).
#include "gpu/graph_scc.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace mdpvi::gpu::detail {

namespace {

constexpr std::uint32_t kLive = 0xffffffffu;  // in the set, SCC not known yet
using Labels = std::uint32_t*;

__device__ inline bool in_set(std::uint32_t label) { return label != kOutsideSet; }

__global__ void label_members(std::uint32_t n, const unsigned long long* d_states, Labels scc) {
  for (std::uint64_t s = thread_index(); s < n; s += grid_stride()) scc[s] = test_bit(d_states, s) ? kLive : kOutsideSet;
}

// Each live state's live neighbours other than itself, out and in, counted on the
// same walk (the release below walks the same edges, so counts and releases agree).
__global__ void count_live_edges(DeviceGraph g, const unsigned long long* d_rows, const std::uint32_t* scc,
                                 std::uint32_t* in_count, std::uint32_t* out_count) {
  for (std::uint64_t i = thread_index(); i < g.num_states; i += grid_stride()) {
    const auto s = static_cast<std::uint32_t>(i);
    if (scc[s] != kLive) continue;
    std::uint32_t out = 0;
    g.each_successor(s, d_rows, [&](std::uint32_t w) {
      if (w == s || scc[w] != kLive) return;
      ++out;
      atomicAdd(in_count + w, 1u);
    });
    out_count[s] = out;
  }
}

// A live state without live neighbours in or out is an SCC of its own.
__global__ void seed_singletons(std::uint32_t n, Labels scc, const std::uint32_t* in_count,
                                const std::uint32_t* out_count, std::uint32_t* d_queue, unsigned* d_count) {
  for (std::uint64_t i = thread_index(); i < n; i += grid_stride()) {
    const auto s = static_cast<std::uint32_t>(i);
    if (scc[s] == kLive && (in_count[s] == 0 || out_count[s] == 0)) {
      scc[s] = s;
      push(d_queue, d_count, s);
    }
  }
}

// A singleton leaves: each live neighbour loses one count, and at 0 is one too.
__device__ inline void release(std::uint32_t w, Labels scc, std::uint32_t* counts, std::uint32_t* d_next,
                               unsigned* d_count) {
  if (scc[w] == kLive && atomicSub(counts + w, 1u) == 1u && atomicCAS(scc + w, kLive, w) == kLive) push(d_next, d_count, w);
}

__global__ void trim_level(DeviceGraph g, const unsigned long long* d_rows, const std::uint32_t* d_frontier,
                           unsigned size, Labels scc, std::uint32_t* in_count, std::uint32_t* out_count,
                           std::uint32_t* d_next, unsigned* d_count) {
  for (std::uint64_t i = thread_index(); i < size; i += grid_stride()) {
    const std::uint32_t v = d_frontier[i];
    g.each_successor(v, d_rows, [&](std::uint32_t w) {
      if (w != v) release(w, scc, in_count, d_next, d_count);
    });
    g.each_predecessor(v, d_rows, [&](std::uint32_t u) {
      if (u != v) release(u, scc, out_count, d_next, d_count);
    });
  }
}

// The live states onto the queue, each colored with its own index.
__global__ void gather_live(std::uint32_t n, const std::uint32_t* scc, std::uint32_t* color, std::uint32_t* d_queue,
                            unsigned* d_count) {
  for (std::uint64_t i = thread_index(); i < n; i += grid_stride()) {
    const auto s = static_cast<std::uint32_t>(i);
    if (scc[s] != kLive) continue;
    color[s] = s;
    push(d_queue, d_count, s);
  }
}

// Max-label propagation: a state whose color rose goes onto the next level once
// (stamp holds the last level it was queued for; levels never repeat a mark).
__global__ void color_level(DeviceGraph g, const unsigned long long* d_rows, const std::uint32_t* d_frontier,
                            unsigned size, const std::uint32_t* scc, std::uint32_t* color, std::uint32_t* stamp,
                            std::uint32_t mark, std::uint32_t* d_next, unsigned* d_count) {
  for (std::uint64_t i = thread_index(); i < size; i += grid_stride()) {
    const std::uint32_t v = d_frontier[i];
    const std::uint32_t c = color[v];
    g.each_successor(v, d_rows, [&](std::uint32_t w) {
      if (scc[w] == kLive && atomicMax(color + w, c) < c && atomicExch(stamp + w, mark) != mark) push(d_next, d_count, w);
    });
  }
}

// A live state that kept its own color is the largest of its SCC: its root.
__global__ void take_roots(std::uint32_t n, Labels scc, const std::uint32_t* color, std::uint32_t* d_queue,
                           unsigned* d_count) {
  for (std::uint64_t i = thread_index(); i < n; i += grid_stride()) {
    const auto s = static_cast<std::uint32_t>(i);
    if (scc[s] == kLive && color[s] == s) {
      scc[s] = s;
      push(d_queue, d_count, s);
    }
  }
}

// A root's SCC: the states of its color that reach it backwards.
__global__ void peel_level(DeviceGraph g, const unsigned long long* d_rows, const std::uint32_t* d_frontier,
                           unsigned size, Labels scc, const std::uint32_t* color, std::uint32_t* d_next,
                           unsigned* d_count) {
  for (std::uint64_t i = thread_index(); i < size; i += grid_stride()) {
    const std::uint32_t v = d_frontier[i];
    const std::uint32_t c = color[v];
    g.each_predecessor(v, d_rows, [&](std::uint32_t u) {
      if (scc[u] == kLive && color[u] == c && atomicCAS(scc + u, kLive, c) == kLive) push(d_next, d_count, u);
    });
  }
}

__global__ void iota_kernel(std::uint32_t* d_out, std::uint64_t n) {
  for (std::uint64_t i = thread_index(); i < n; i += grid_stride()) d_out[i] = static_cast<std::uint32_t>(i);
}

// Trimming, coloring and peeling until every state of the set has its SCC.
class Decomposer {
 public:
  Decomposer(const DeviceGraph& g, const unsigned long long* d_rows, int sm_count)
      : g_(g), rows_(d_rows), blocks_(grid_for(g.num_states, sm_count)), sm_count_(sm_count),
        color_(g.num_states), in_(g.num_states), out_(g.num_states), stamp_(g.num_states), queues_(g.num_states + 1) {
    check(cudaMemset(stamp_.get(), 0, std::size_t{g.num_states} * 4), "cudaMemset");
  }

  SccWork run(Labels scc) {
    SccWork work;
    for (;;) {
      ++work.rounds;
      work.levels += trim(scc);
      const unsigned coloring = color(scc);
      if (coloring == 0) return work;
      work.levels += coloring + peel(scc);
    }
  }

 private:
  // Each returns the levels it ran.
  unsigned trim(Labels scc) {
    check(cudaMemset(in_.get(), 0, std::size_t{g_.num_states} * 4), "cudaMemset");
    count_live_edges<<<blocks_, kBlockSize>>>(g_, rows_, scc, in_.get(), out_.get());
    return queues_.run(
        [&](std::uint32_t* d_queue, unsigned* d_count) {
          seed_singletons<<<blocks_, kBlockSize>>>(g_.num_states, scc, in_.get(), out_.get(), d_queue, d_count);
        },
        [&](const std::uint32_t* d_frontier, unsigned size, std::uint32_t* d_next, unsigned* d_count) {
          trim_level<<<grid_for(size, sm_count_), kBlockSize>>>(g_, rows_, d_frontier, size, scc, in_.get(), out_.get(),
                                                                 d_next, d_count);
        });
  }

  // 0 when no state is left live.
  unsigned color(Labels scc) {
    return queues_.run(
        [&](std::uint32_t* d_queue, unsigned* d_count) {
          gather_live<<<blocks_, kBlockSize>>>(g_.num_states, scc, color_.get(), d_queue, d_count);
        },
        [&](const std::uint32_t* d_frontier, unsigned size, std::uint32_t* d_next, unsigned* d_count) {
          color_level<<<grid_for(size, sm_count_), kBlockSize>>>(g_, rows_, d_frontier, size, scc, color_.get(),
                                                                  stamp_.get(), ++mark_, d_next, d_count);
        });
  }

  unsigned peel(Labels scc) {
    return queues_.run(
        [&](std::uint32_t* d_queue, unsigned* d_count) {
          take_roots<<<blocks_, kBlockSize>>>(g_.num_states, scc, color_.get(), d_queue, d_count);
        },
        [&](const std::uint32_t* d_frontier, unsigned size, std::uint32_t* d_next, unsigned* d_count) {
          peel_level<<<grid_for(size, sm_count_), kBlockSize>>>(g_, rows_, d_frontier, size, scc, color_.get(), d_next,
                                                                 d_count);
        });
  }

  const DeviceGraph& g_;
  const unsigned long long* rows_;
  unsigned blocks_;
  int sm_count_;
  DeviceArray<std::uint32_t> color_, in_, out_, stamp_;
  LevelQueues queues_;
  std::uint32_t mark_ = 0;
};

// ---- the order ----

// The members of the set grouped by SCC: states[starts[c] .. starts[c] + sizes[c])
// are SCC c's, SCCs numbered by increasing representative, states increasing; slot
// maps a representative to its SCC number.
struct Groups {
  std::uint32_t count = 0;
  DeviceArray<std::uint32_t> states, sizes, starts, slot;
  Groups(std::uint32_t n, std::uint32_t members) : states(n), sizes(members), starts(members), slot(n) {}
};

__global__ void slot_of_representative(const std::uint32_t* representatives, std::uint32_t count, std::uint32_t* slot) {
  for (std::uint64_t c = thread_index(); c < count; c += grid_stride()) slot[representatives[c]] = static_cast<std::uint32_t>(c);
}

Groups group_members(std::uint32_t n, const std::uint32_t* d_scc, std::uint32_t members, int sm_count) {
  Groups groups(n, members);
  const unsigned blocks = grid_for(n, sm_count);
  {
    // Sorting every state by label puts the set's members first (kOutsideSet is
    // larger than any state) and, the sort being stable, each SCC's in increasing order.
    DeviceArray<std::uint32_t> keys(n), states_in(n);
    iota_kernel<<<blocks, kBlockSize>>>(states_in.get(), n);
    with_temp_storage("sorting states by SCC", [&](void* temp, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortPairs(temp, bytes, d_scc, keys.get(), states_in.get(), groups.states.get(),
                                             static_cast<std::int64_t>(n));
    });
    DeviceArray<std::uint32_t> representatives(members), d_count(1);
    with_temp_storage("grouping SCCs", [&](void* temp, std::size_t& bytes) {
      return cub::DeviceRunLengthEncode::Encode(temp, bytes, keys.get(), representatives.get(), groups.sizes.get(),
                                                d_count.get(), static_cast<std::int64_t>(members));
    });
    check(cudaMemcpy(&groups.count, d_count.get(), 4, cudaMemcpyDeviceToHost), "reading the SCC count");
    slot_of_representative<<<grid_for(groups.count, sm_count), kBlockSize>>>(representatives.get(), groups.count,
                                                                            groups.slot.get());
  }
  with_temp_storage("SCC starts", [&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(temp, bytes, groups.sizes.get(), groups.starts.get(),
                                         static_cast<std::int64_t>(groups.count));
  });
  return groups;
}

// Per SCC, its edges to other SCCs of the set.
__global__ void count_leaving_edges(DeviceGraph g, const unsigned long long* d_rows, const std::uint32_t* scc,
                                    const std::uint32_t* slot, std::uint32_t* leaving) {
  for (std::uint64_t i = thread_index(); i < g.num_states; i += grid_stride()) {
    const auto s = static_cast<std::uint32_t>(i);
    if (!in_set(scc[s])) continue;
    std::uint32_t count = 0;
    g.each_successor(s, d_rows, [&](std::uint32_t w) { count += in_set(scc[w]) && scc[w] != scc[s]; });
    if (count > 0) atomicAdd(leaving + slot[scc[s]], count);
  }
}

__global__ void seed_sinks(std::uint32_t count, const std::uint32_t* leaving, std::uint32_t* height, std::uint32_t* d_queue,
                           unsigned* d_count) {
  for (std::uint64_t c = thread_index(); c < count; c += grid_stride()) {
    if (leaving[c] != 0) continue;
    height[c] = 0;
    push(d_queue, d_count, static_cast<std::uint32_t>(c));
  }
}

__global__ void frontier_sizes(const std::uint32_t* d_frontier, unsigned size, const std::uint32_t* sizes,
                               std::uint32_t* d_out) {
  for (std::uint64_t j = thread_index(); j < size; j += grid_stride()) d_out[j] = sizes[d_frontier[j]];
}

// Kahn's algorithm a level at a time, a thread per member of the level's SCCs (the
// member found by binary search in the running total of their sizes, so a large
// SCC spreads over many threads): an SCC whose last leaving edge is released gets
// height one more than this level's and joins the next. The members are counted
// here, from the running total, not on the host: reading them back was a second
// wait per level, and a model may have thousands of levels.
__global__ void height_level(DeviceGraph g, const unsigned long long* d_rows, const std::uint32_t* d_frontier,
                             unsigned size, const std::uint32_t* running_total,
                             const std::uint32_t* scc, const std::uint32_t* group_states, const std::uint32_t* starts,
                             const std::uint32_t* slot, std::uint32_t* leaving, std::uint32_t* height,
                             std::uint32_t* d_next, unsigned* d_count) {
  const std::uint32_t level_members = running_total[size - 1];
  for (std::uint64_t i = thread_index(); i < level_members; i += grid_stride()) {
    unsigned lo = 0, hi = size - 1;  // the first j with running_total[j] > i
    while (lo < hi) {
      const unsigned mid = (lo + hi) / 2;
      if (running_total[mid] > i) hi = mid; else lo = mid + 1;
    }
    const std::uint32_t c = d_frontier[lo];
    const std::uint32_t before = lo == 0 ? 0 : running_total[lo - 1];
    const std::uint32_t v = group_states[starts[c] + (i - before)];
    g.each_predecessor(v, d_rows, [&](std::uint32_t u) {
      if (!in_set(scc[u]) || scc[u] == scc[v]) return;
      const std::uint32_t p = slot[scc[u]];
      if (atomicSub(leaving + p, 1u) == 1u) {
        height[p] = height[c] + 1;
        push(d_next, d_count, p);
      }
    });
  }
}

__global__ void rank_groups(std::uint32_t count, const std::uint32_t* ranked, const std::uint32_t* sizes,
                            std::uint32_t* rank_of, std::uint32_t* ranked_sizes) {
  for (std::uint64_t i = thread_index(); i < count; i += grid_stride()) {
    rank_of[ranked[i]] = static_cast<std::uint32_t>(i);
    ranked_sizes[i] = sizes[ranked[i]];
  }
}

__global__ void scatter_in_order(std::uint32_t members, const std::uint32_t* group_states, const std::uint32_t* scc,
                                 const std::uint32_t* slot, const std::uint32_t* starts, const std::uint32_t* rank_of,
                                 const std::uint64_t* ranked_starts, std::uint32_t* order) {
  for (std::uint64_t k = thread_index(); k < members; k += grid_stride()) {
    const std::uint32_t v = group_states[k];
    const std::uint32_t c = slot[scc[v]];
    order[ranked_starts[rank_of[c]] + (k - starts[c])] = v;
  }
}

// Each SCC's height (numbered as in groups).
DeviceArray<std::uint32_t> scc_heights(const DeviceGraph& g, const unsigned long long* d_rows, const std::uint32_t* d_scc,
                                       const Groups& groups, int sm_count) {
  const std::uint32_t count = groups.count;
  DeviceArray<std::uint32_t> leaving(count), height(count), level_sizes(count), running_total(count);
  check(cudaMemset(leaving.get(), 0, std::size_t{count} * 4), "cudaMemset");
  count_leaving_edges<<<grid_for(g.num_states, sm_count), kBlockSize>>>(g, d_rows, d_scc, groups.slot.get(), leaving.get());
  std::size_t scan_bytes = 0;
  check(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, level_sizes.get(), running_total.get(),
                                      static_cast<std::int64_t>(count)), "sizing the scan");
  DeviceArray<unsigned char> scan_temp(scan_bytes);
  std::uint64_t done = 0;
  LevelQueues queues(std::uint64_t{count} + 1);
  queues.run(
      [&](std::uint32_t* d_queue, unsigned* d_count) {
        seed_sinks<<<grid_for(count, sm_count), kBlockSize>>>(count, leaving.get(), height.get(), d_queue, d_count);
      },
      [&](const std::uint32_t* d_frontier, unsigned size, std::uint32_t* d_next, unsigned* d_count) {
        done += size;
        frontier_sizes<<<grid_for(size, sm_count), kBlockSize>>>(d_frontier, size, groups.sizes.get(), level_sizes.get());
        std::size_t bytes = scan_bytes;
        check(cub::DeviceScan::InclusiveSum(scan_temp.get(), bytes, level_sizes.get(), running_total.get(),
                                            static_cast<std::int64_t>(size)), "a level's running total");
        // At least a block per multiprocessor: a level of a few SCCs may hold a large one.
        const unsigned grid = std::max<unsigned>(grid_for(size, sm_count), static_cast<unsigned>(sm_count));
        height_level<<<grid, kBlockSize>>>(
            g, d_rows, d_frontier, size, running_total.get(), d_scc, groups.states.get(),
            groups.starts.get(), groups.slot.get(), leaving.get(), height.get(), d_next, d_count);
      });
  if (done != count) {
    throw DeviceError("SCC heights: " + std::to_string(done) + " of " + std::to_string(count) +
                      " SCCs reached (the decomposition left a cycle between SCCs)");
  }
  return height;
}

// The first `count` of d_from into a vector of `size` (default: count).
template <typename T>
std::vector<T> download(const DeviceArray<T>& d_from, std::size_t size, std::size_t count = SIZE_MAX) {
  count = std::min(count, size);
  std::vector<T> to(size);
  if (count > 0) check(cudaMemcpy(to.data(), d_from.get(), count * sizeof(T), cudaMemcpyDeviceToHost), "downloading SCCs");
  return to;
}

}  // namespace

DeviceArray<std::uint32_t> scc_representatives(const DeviceGraph& g, const unsigned long long* d_states,
                                               const unsigned long long* d_rows, int sm_count, SccWork& work) {
  DeviceArray<std::uint32_t> scc(std::max<std::uint32_t>(g.num_states, 1));
  label_members<<<grid_for(g.num_states, sm_count), kBlockSize>>>(g.num_states, d_states, scc.get());
  check(cudaGetLastError(), "labelling the set");
  Decomposer decomposer(g, d_rows, sm_count);
  work = decomposer.run(scc.get());
  return scc;
}

__global__ void outside_as_none(std::uint32_t n, std::uint32_t* scc) {
  for (std::uint64_t s = thread_index(); s < n; s += grid_stride()) {
    if (scc[s] == kOutsideSet) scc[s] = 0xffffffffu;
  }
}

void download_representatives(DeviceArray<std::uint32_t>& d_scc, std::uint32_t n, std::uint32_t* representative,
                              int sm_count) {
  outside_as_none<<<grid_for(n, sm_count), kBlockSize>>>(n, d_scc.get());
  check(cudaGetLastError(), "outside-as-none kernel launch");
  if (n > 0) check(cudaMemcpy(representative, d_scc.get(), std::size_t{n} * 4, cudaMemcpyDeviceToHost), "downloading SCCs");
}

DeviceSccs topological_sccs(const DeviceGraph& g, const std::uint32_t* d_scc, std::uint32_t num_members,
                            const unsigned long long* d_rows, int sm_count) {
  DeviceSccs result;
  result.scc_starts.assign(1, 0);
  if (num_members == 0) return result;
  const Groups groups = group_members(g.num_states, d_scc, num_members, sm_count);
  const std::uint32_t count = groups.count;
  const DeviceArray<std::uint32_t> height = scc_heights(g, d_rows, d_scc, groups, sm_count);
  // By height; the sort is stable, so ties stay by increasing representative.
  DeviceArray<std::uint32_t> numbers(count), ranked(count), ranked_heights(count);
  iota_kernel<<<grid_for(count, sm_count), kBlockSize>>>(numbers.get(), count);
  with_temp_storage("sorting SCCs by height", [&](void* temp, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(temp, bytes, height.get(), ranked_heights.get(), numbers.get(), ranked.get(),
                                           static_cast<std::int64_t>(count));
  });
  DeviceArray<std::uint32_t>& rank_of = numbers;  // the sort leaves its input as it was, no longer needed
  DeviceArray<std::uint32_t> ranked_sizes(count), order(num_members);
  DeviceArray<std::uint64_t> ranked_starts(count);  // the host's type: downloaded as they are
  rank_groups<<<grid_for(count, sm_count), kBlockSize>>>(count, ranked.get(), groups.sizes.get(), rank_of.get(),
                                                         ranked_sizes.get());
  with_temp_storage("ordered SCC starts", [&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(temp, bytes, ranked_sizes.get(), ranked_starts.get(),
                                         static_cast<std::int64_t>(count));
  });
  scatter_in_order<<<grid_for(num_members, sm_count), kBlockSize>>>(num_members, groups.states.get(), d_scc,
                                                                    groups.slot.get(), groups.starts.get(),
                                                                    rank_of.get(), ranked_starts.get(), order.get());
  check(cudaGetLastError(), "ordering SCCs");
  result.order = download(order, num_members);
  result.scc_starts = download(ranked_starts, count + std::size_t{1}, count);
  result.scc_starts.back() = num_members;
  result.heights = download(ranked_heights, count);
  return result;
}

}  // namespace mdpvi::gpu::detail
