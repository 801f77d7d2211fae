// SCCs on the device: the steps of graph/parallel_scc.cpp (trim, max-label coloring,
// peeling each root's SCC backwards; before the first coloring, the largest state's SCC
// by a forward and a backward search; then heights by Kahn's algorithm on the SCC DAG
// and a sort by height), as ECL-SCC (Alabandi, Burtscher et al., SC23) and
// Multistep (Slota et al., IPDPS 2014) decompose graphs, each step a level-synchronous
// kernel over the resident model. SCCs are labelled by their largest state, so the
// result does not depend on the schedule: partition and order are those of the
// oneTBB version (tested equal).
#include "gpu/graph_scc.cuh"

#include "gpu/scc_kernels.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace mdpvi::gpu::detail {

namespace {

using namespace scc_kernels;

// Trimming, coloring and peeling until every state of the set has its SCC.
class Decomposer {
 public:
  Decomposer(const DeviceGraph& g, const unsigned long long* d_rows, int sm_count)
      : g_(g), rows_(d_rows), blocks_(grid_for(g.num_states, sm_count)), sm_count_(sm_count),
        color_(g.num_states), in_(g.num_states), out_(g.num_states), stamp_(g.num_states), queues_(g.num_states + 1) {
    check(cudaMemset(stamp_.get(), 0, std::size_t{g.num_states} * 4), "cudaMemset");
  }

  SccWork run(std::uint32_t* d_scc) {
    SccWork work;
    for (;;) {
      ++work.rounds;
      work.levels += trim(d_scc);
      if (work.rounds == 1) work.levels += largest_state_scc(d_scc);
      const unsigned coloring = color(d_scc);
      if (coloring == 0) return work;
      work.levels += coloring + peel(d_scc);
    }
  }

 private:
  // Each returns the levels it ran.
  unsigned trim(std::uint32_t* d_scc) {
    check(cudaMemset(in_.get(), 0, std::size_t{g_.num_states} * 4), "cudaMemset");
    count_live_edges<<<blocks_, kBlockSize>>>(g_, rows_, d_scc, in_.get(), out_.get());
    return queues_.run(
        [&](std::uint32_t* d_queue, unsigned* d_count) {
          seed_singletons<<<blocks_, kBlockSize>>>(g_.num_states, d_scc, in_.get(), out_.get(), d_queue, d_count);
        },
        [&](const Level& level, unsigned hint) {
          trim_level<<<grid_for(hint, sm_count_), kBlockSize>>>(g_, rows_, level, d_scc, in_.get(), out_.get());
        });
  }

  // The largest live state's SCC (scc_kernels.cuh's forward and backward searches).
  unsigned largest_state_scc(std::uint32_t* d_scc) {
    DeviceArray<std::uint32_t> d_pivot(1);
    check(cudaMemset(d_pivot.get(), 0, 4), "cudaMemset");
    largest_live<<<blocks_, kBlockSize>>>(g_.num_states, d_scc, d_pivot.get());
    check(cudaGetLastError(), "largest live state kernel launch");
    const std::uint32_t one_past = read_from_device(d_pivot.get(), "reading the pivot");
    if (one_past == 0) return 0;
    const std::uint32_t pivot = one_past - 1, mark = ++mark_;
    const unsigned forward = queues_.run(
        [&](std::uint32_t* d_queue, unsigned* d_count) {
          seed_one<<<1, 1>>>(pivot, stamp_.get(), mark, d_queue, d_count);
        },
        [&](const Level& level, unsigned hint) {
          forward_level<<<grid_for(hint, sm_count_), kBlockSize>>>(g_, rows_, level, d_scc, stamp_.get(), mark);
        });
    return forward + queues_.run(
                         [&](std::uint32_t* d_queue, unsigned* d_count) {
                           seed_pivot_scc<<<1, 1>>>(pivot, d_scc, d_queue, d_count);
                         },
                         [&](const Level& level, unsigned hint) {
                           backward_level<<<grid_for(hint, sm_count_), kBlockSize>>>(g_, rows_, level, d_scc,
                                                                                      stamp_.get(), mark, pivot);
                         });
  }

  // 0 when no state is left live.
  unsigned color(std::uint32_t* d_scc) {
    return queues_.run(
        [&](std::uint32_t* d_queue, unsigned* d_count) {
          gather_live<<<blocks_, kBlockSize>>>(g_.num_states, d_scc, color_.get(), d_queue, d_count);
        },
        [&](const Level& level, unsigned hint) {
          color_level<<<grid_for(hint, sm_count_), kBlockSize>>>(g_, rows_, level, d_scc, color_.get(), stamp_.get(),
                                                                  ++mark_);
        });
  }

  unsigned peel(std::uint32_t* d_scc) {
    return queues_.run(
        [&](std::uint32_t* d_queue, unsigned* d_count) {
          take_roots<<<blocks_, kBlockSize>>>(g_.num_states, d_scc, color_.get(), d_queue, d_count);
        },
        [&](const Level& level, unsigned hint) {
          peel_level<<<grid_for(hint, sm_count_), kBlockSize>>>(g_, rows_, level, d_scc, color_.get());
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
    groups.count = read_from_device(d_count.get(), "reading the SCC count");
    slot_of_representative<<<grid_for(groups.count, sm_count), kBlockSize>>>(representatives.get(), groups.count,
                                                                            groups.slot.get());
  }
  with_temp_storage("SCC starts", [&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(temp, bytes, groups.sizes.get(), groups.starts.get(),
                                         static_cast<std::int64_t>(groups.count));
  });
  return groups;
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
  queues.run_level_by_level(
      [&](std::uint32_t* d_queue, unsigned* d_count) {
        seed_sinks<<<grid_for(count, sm_count), kBlockSize>>>(count, leaving.get(), height.get(), d_queue, d_count);
      },
      [&](const Level& level, unsigned size) {  // level by level: size is the level's length
        done += size;
        frontier_sizes<<<grid_for(size, sm_count), kBlockSize>>>(level.frontier, size, groups.sizes.get(),
                                                                  level_sizes.get());
        std::size_t bytes = scan_bytes;
        check(cub::DeviceScan::InclusiveSum(scan_temp.get(), bytes, level_sizes.get(), running_total.get(),
                                            static_cast<std::int64_t>(size)), "a level's running total");
        // At least a block per multiprocessor: a level of a few SCCs may hold a large one.
        const unsigned grid = std::max<unsigned>(grid_for(size, sm_count), static_cast<unsigned>(sm_count));
        height_level<<<grid, kBlockSize>>>(
            g, d_rows, level.frontier, size, running_total.get(), d_scc, groups.states.get(), groups.starts.get(),
            groups.slot.get(), leaving.get(), height.get(), level.next, level.next_size);
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
  DeviceArray<std::uint32_t> d_scc(std::max<std::uint32_t>(g.num_states, 1));
  label_members<<<grid_for(g.num_states, sm_count), kBlockSize>>>(g.num_states, d_states, d_scc.get());
  check(cudaGetLastError(), "labelling the set");
  Decomposer decomposer(g, d_rows, sm_count);
  work = decomposer.run(d_scc.get());
  return d_scc;
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
