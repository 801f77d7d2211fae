// The qualitative searches on the device: level-synchronous, a thread per frontier
// state walking its predecessor rows; a state is claimed with one atomicOr on its
// word of the result and pushed onto the next frontier by the one thread that set
// its bit. The SCCs, on the same resident graph, are in graph_scc.cu.
#include "gpu/device_system.cuh"
#include "gpu/graph_device.cuh"
#include "gpu/graph_scc.cuh"
#include "gpu/graph_search.h"
#include "gpu/offsets_upload.cuh"

#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <utility>

namespace mdpvi::gpu {

namespace {

using namespace detail;

// The most rows any state has, into *d_most.
__global__ void most_rows_kernel(DeviceGraph g, unsigned long long* d_most) {
  unsigned long long most = 0;
  for (std::uint64_t s = thread_index(); s < g.num_states; s += grid_stride()) {
    most = std::max<unsigned long long>(most, g.d_row_group_starts[s + 1] - g.d_row_group_starts[s]);
  }
  if (most > 0) atomicMax(d_most, most);
}

// The members of a bit set, in any order, onto a queue.
__global__ void members_kernel(const unsigned long long* d_set, std::uint64_t bits, std::uint32_t* d_queue,
                               unsigned* d_count) {
  for (std::uint64_t i = thread_index(); i < bits; i += grid_stride()) {
    if (test_bit(d_set, i)) push(d_queue, d_count, static_cast<std::uint32_t>(i));
  }
}

__global__ void exists_level_kernel(DeviceGraph g, Level level, const unsigned long long* d_allowed_states,
                                    const unsigned long long* d_allowed_rows, unsigned long long* d_reached) {
  const unsigned size = *level.size;
  for (std::uint64_t i = thread_index(); i < size; i += grid_stride()) {
    g.each_predecessor(level.frontier[i], d_allowed_rows, [&](std::uint32_t owner) {
      if (test_bit(d_allowed_states, owner) && claim_bit(d_reached, owner)) level.push_next(owner);
    });
  }
}

__global__ void rows_missing_kernel(DeviceGraph g, std::uint32_t* d_rows_missing) {
  for (std::uint64_t s = thread_index(); s < g.num_states; s += grid_stride()) {
    d_rows_missing[s] = static_cast<std::uint32_t>(g.d_row_group_starts[s + 1] - g.d_row_group_starts[s]);
  }
}

__global__ void forall_level_kernel(DeviceGraph g, Level level, const unsigned long long* d_allowed_states,
                                    unsigned long long* d_row_hit, std::uint32_t* d_rows_missing,
                                    unsigned long long* d_attracted) {
  const unsigned size = *level.size;
  for (std::uint64_t i = thread_index(); i < size; i += grid_stride()) {
    const std::uint32_t t = level.frontier[i];
    for (std::uint64_t e = g.d_pred_offsets[t], end = g.d_pred_offsets[t + 1]; e < end; ++e) {
      const std::uint32_t owner = g.d_pred_owners[e];
      if (!claim_bit(d_row_hit, g.pred_row(e, owner))) continue;  // a row counts once
      if (test_bit(d_attracted, owner) || !test_bit(d_allowed_states, owner)) continue;
      // The last row of the owner to be hit attracts it: exactly one thread sees 1.
      if (atomicSub(d_rows_missing + owner, 1u) == 1u && claim_bit(d_attracted, owner)) {
        level.push_next(owner);
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
    if (r < g.num_rows && test_bit(d_inside, g.owner_of_row(r))) {
      stays = true;
      for (std::uint64_t k = g.d_row_starts[r]; k < g.d_row_starts[r + 1] && stays; ++k) {
        stays = test_bit(d_inside, g.d_columns[k]);
      }
    }
    const unsigned bits = __ballot_sync(0xffffffffu, stays);
    if (lane == 0) d_stays32[base / 32] = bits;
  }
}

// Per state t, at offsets[t + 1], the entries with t as successor (Offset: unsigned
// or unsigned long long, which atomicAdd takes).
template <typename Offset>
__global__ void count_predecessors(const std::uint32_t* d_columns, std::uint64_t entries, Offset* d_offsets) {
  for (std::uint64_t k = thread_index(); k < entries; k += grid_stride()) atomicAdd(d_offsets + d_columns[k] + 1, Offset{1});
}

template <typename Offset, typename Local>
__global__ void fill_predecessors(DeviceGraph g, Offset* d_fill, std::uint32_t* d_pred_owners, Local* d_pred_local) {
  for (std::uint64_t s = thread_index(); s < g.num_states; s += grid_stride()) {
    const std::uint64_t first = g.d_row_group_starts[s], end = g.d_row_group_starts[s + 1];
    for (std::uint64_t r = first; r < end; ++r) {
      for (std::uint64_t k = g.d_row_starts[r]; k < g.d_row_starts[r + 1]; ++k) {
        const Offset at = atomicAdd(d_fill + g.d_columns[k], Offset{1});
        d_pred_owners[at] = static_cast<std::uint32_t>(s);
        d_pred_local[at] = static_cast<Local>(r - first);
      }
    }
  }
}

__global__ void and_words(const unsigned long long* d_a, const unsigned long long* d_b, unsigned long long* d_out,
                          std::uint64_t words) {
  for (std::uint64_t w = thread_index(); w < words; w += grid_stride()) d_out[w] = d_a[w] & d_b[w];
}

__global__ void differ_words(const unsigned long long* d_a, const unsigned long long* d_b, std::uint64_t words,
                             unsigned* d_differ) {
  for (std::uint64_t w = thread_index(); w < words; w += grid_stride()) {
    if (d_a[w] != d_b[w]) *d_differ = 1;
  }
}

class CudaGraphSearch final : public DeviceGraphSearch {
 public:
  explicit CudaGraphSearch(const GraphArrays& a)
      : states_(a.num_states),
        rows_(a.num_rows),
        entries_(a.num_entries),
        d_row_group_starts_(0),  // set below, in 4 bytes or in 8
        d_row_starts_(0),        // likewise
        d_columns_(a.columns, a.num_entries),
        d_state_sets_{DeviceArray<unsigned long long>(words_of(states_)), DeviceArray<unsigned long long>(words_of(states_))},
        d_row_sets_{DeviceArray<unsigned long long>(words_of(rows_ + 64)), DeviceArray<unsigned long long>(words_of(rows_ + 64))},
        d_fixpoint_sets_{DeviceArray<unsigned long long>(words_of(states_)), DeviceArray<unsigned long long>(words_of(states_)),
                         DeviceArray<unsigned long long>(words_of(states_))},
        d_flag_(1),
        sm_count_(detail::multiprocessor_count()) {
    if (narrow_row_group_starts(a)) {
      d_row_group_starts32_ = upload_narrow(*a.row_group_starts);
    } else {
      d_row_group_starts_ = upload_wide(*a.row_group_starts, sm_count_);
    }
    if (narrow_row_starts(a)) {
      d_row_starts32_ = upload_narrow(*a.row_starts);
    } else {
      d_row_starts_ = upload_wide(*a.row_starts, sm_count_);
    }
    require_predecessors();
    check(cudaDeviceSynchronize(), "uploading the graph");
  }

  void backward_exists(const std::uint64_t* sources, const std::uint64_t* allowed_states,
                       const std::uint64_t* allowed_rows, std::uint64_t* reached) override {
    require_predecessors();
    unsigned long long* d_reached = d_state_sets_[0].get();
    upload_words(d_reached, sources, words_of(states_));
    const unsigned long long* d_rows = upload_subgraph(allowed_states, allowed_rows);
    each_level(d_reached, [&](const Level& level, unsigned hint) {
      exists_level_kernel<<<grid_for(hint, sm_count_), kBlockSize>>>(view(), level, d_state_sets_[1].get(), d_rows,
                                                                      d_reached);
    });
    download_words(reached, d_reached, words_of(states_));
  }

  void backward_forall(const std::uint64_t* sources, const std::uint64_t* allowed_states,
                       std::uint64_t* attracted) override {
    require_predecessors();
    unsigned long long* d_attracted = d_state_sets_[0].get();
    upload_words(d_attracted, sources, words_of(states_));
    upload_words(d_state_sets_[1].get(), allowed_states, words_of(states_));
    check(cudaMemset(d_row_sets_[0].get(), 0, words_of(rows_) * 8), "cudaMemset");
    Scratch& scratch = scratch_for_searches();
    rows_missing_kernel<<<grid_for(states_, sm_count_), kBlockSize>>>(view(), scratch.rows_missing.get());
    check(cudaGetLastError(), "rows-missing kernel launch");
    each_level(d_attracted, [&](const Level& level, unsigned hint) {
      forall_level_kernel<<<grid_for(hint, sm_count_), kBlockSize>>>(view(), level, d_state_sets_[1].get(),
                                                                      d_row_sets_[0].get(), scratch.rows_missing.get(),
                                                                      d_attracted);
    });
    download_words(attracted, d_attracted, words_of(states_));
  }

  void rows_staying_in(const std::uint64_t* inside, std::uint64_t* stays) override {
    require_predecessors();
    upload_words(d_state_sets_[0].get(), inside, words_of(states_));
    mark_rows_staying_in(d_state_sets_[0].get(), d_row_sets_[1].get());
    download_words(stays, d_row_sets_[1].get(), words_of(rows_));
  }

  // One round a few kernels and no transfers but the level sizes: the sets stay here.
  unsigned stay_and_reach(const std::uint64_t* targets, const std::uint64_t* allowed, std::uint64_t* inside) override {
    require_predecessors();
    const std::uint64_t words = words_of(states_);
    const unsigned blocks = grid_for(words, sm_count_);
    unsigned long long* d_inside = d_state_sets_[0].get();
    unsigned long long* d_reached = d_fixpoint_sets_[0].get();
    unsigned long long* d_targets = d_fixpoint_sets_[1].get();
    unsigned long long* d_allowed = d_fixpoint_sets_[2].get();
    unsigned long long* d_allowed_now = d_state_sets_[1].get();
    upload_words(d_inside, inside, words);
    upload_words(d_targets, targets, words);
    upload_words(d_allowed, allowed, words);
    for (unsigned rounds = 1;; ++rounds) {
      mark_rows_staying_in(d_inside, d_row_sets_[1].get());
      and_words<<<blocks, kBlockSize>>>(d_targets, d_inside, d_reached, words);
      and_words<<<blocks, kBlockSize>>>(d_allowed, d_inside, d_allowed_now, words);
      each_level(d_reached, [&](const Level& level, unsigned hint) {
        exists_level_kernel<<<grid_for(hint, sm_count_), kBlockSize>>>(view(), level, d_allowed_now,
                                                                        d_row_sets_[1].get(), d_reached);
      });
      if (!differ(d_reached, d_inside, words)) {
        download_words(inside, d_inside, words);
        return rounds;
      }
      std::swap(d_inside, d_reached);
    }
  }

  DeviceSccs sccs(const std::uint64_t* states, std::uint32_t num_members, const std::uint64_t* enabled_rows) override {
    require_predecessors();
    const unsigned long long* d_rows = upload_subgraph(states, enabled_rows);
    SccWork work;
    DeviceArray<std::uint32_t> d_scc = detail::scc_representatives(view(), d_state_sets_[1].get(), d_rows, sm_count_, work);
    DeviceSccs result = topological_sccs(view(), d_scc.get(), num_members, d_rows, sm_count_);
    result.work = work;
    return result;
  }

  SccWork scc_representatives(const std::uint64_t* states, const std::uint64_t* enabled_rows,
                              std::uint32_t* representative) override {
    require_predecessors();
    const unsigned long long* d_rows = upload_subgraph(states, enabled_rows);
    SccWork work;
    DeviceArray<std::uint32_t> d_scc = detail::scc_representatives(view(), d_state_sets_[1].get(), d_rows, sm_count_, work);
    download_representatives(d_scc, states_, representative, sm_count_);
    return work;
  }

  void release_scratch() override { scratch_.reset(); }

  void release_predecessors() override { predecessors_.reset(); }

  std::unique_ptr<DeviceSystem> maybe_system(const SystemInputs& in) override {
    // The system and its solve come next: what only the searches read goes (made again
    // on the device by the next search, in a fraction of a second on leader9).
    release_scratch();
    release_predecessors();
    HostCopies copies(0);
    // Kept only once its copy is done: a failure before leaves the next call to upload again.
    DeviceValueArray values = d_values_.allocated() ? DeviceValueArray() : DeviceValueArray(entries_, in.model_values);
    if (values.allocated()) values.upload(in.model_values, entries_, copies);
    detail::SystemSources sources;
    sources.order = DeviceArray<std::uint32_t>(in.count);
    sources.marked = DeviceArray<unsigned long long>(words_of(states_));
    sources.marked_value = in.marked_value;
    sources.unmarked_value = in.unmarked_value;
    sources.state_rewards = DeviceValueArray(in.state_rewards.empty() ? 0 : states_, in.state_rewards);
    sources.choice_rewards = DeviceValueArray(in.choice_rewards.empty() ? 0 : rows_, in.choice_rewards);
    sources.order.upload(in.order, in.count, copies);
    sources.marked.upload(reinterpret_cast<const unsigned long long*>(in.marked_words), words_of(states_), copies);
    if (!in.state_rewards.empty()) sources.state_rewards.upload(in.state_rewards, states_, copies);
    if (!in.choice_rewards.empty()) sources.choice_rewards.upload(in.choice_rewards, rows_, copies);
    copies.finish();
    if (values.allocated()) d_values_ = std::move(values);
    return detail::build_device_system(view(), d_values_.view(), d_values_.table_size(), std::move(sources), in.count,
                                       in.storage, sm_count_);
  }

 private:
  DeviceGraph view() const {
    return {states_,
            rows_,
            RowOffsets{d_row_group_starts_.get(), d_row_group_starts32_.get()},
            RowOffsets{d_row_starts_.get(), d_row_starts32_.get()},
            d_columns_.get(),
            predecessors_ ? predecessors_->offsets() : RowOffsets{},
            predecessors_ ? predecessors_->owners.get() : nullptr,
            predecessors_ ? predecessors_->local() : LocalRows{}};
  }

  // Level after level from the members of d_set, until a level adds nothing.
  template <typename Launch>
  void each_level(const unsigned long long* d_set, Launch launch) {
    scratch_for_searches().queues.run(
        [&](std::uint32_t* d_queue, unsigned* d_count) {
          members_kernel<<<grid_for(states_, sm_count_), kBlockSize>>>(d_set, states_, d_queue, d_count);
        },
        launch);
  }

  // Each row's owner and the predecessor rows, from the uploaded rows, as
  // graph::build_choice_predecessor_graph builds them on the host: count each state's
  // entries, sum, fill by atomics. Made with the graph, and again at the first search
  // after release_predecessors.
  void require_predecessors() {
    if (predecessors_) return;
    try {
      predecessors_ = std::make_unique<Predecessors>(states_, entries_, most_rows());
      if (predecessors_->narrow_offsets) {
        build_predecessors(predecessors_->offsets32.get());
      } else {
        build_predecessors(reinterpret_cast<unsigned long long*>(predecessors_->offsets64.get()));
      }
    } catch (...) {
      predecessors_.reset();
      throw;
    }
  }

  std::uint64_t most_rows() const {
    DeviceArray<unsigned long long> most(1);
    check(cudaMemset(most.get(), 0, sizeof(unsigned long long)), "cudaMemset");
    most_rows_kernel<<<grid_for(states_, sm_count_), kBlockSize>>>(view(), most.get());
    check(cudaGetLastError(), "most-rows kernel launch");
    return read_from_device(most.get(), "reading the most rows of a state");
  }

  // Count each state's entries, sum, fill by atomics: as graph::build_choice_predecessor_graph
  // builds them on the host, each entry its row's owner and the row's local index.
  template <typename Offset>
  void build_predecessors(Offset* d_offsets) {
    const std::uint64_t count = std::uint64_t{states_} + 1;
    check(cudaMemset(d_offsets, 0, count * sizeof(Offset)), "cudaMemset");
    count_predecessors<<<grid_for(entries_, sm_count_), kBlockSize>>>(d_columns_.get(), entries_, d_offsets);
    check(cudaGetLastError(), "counting predecessors");
    with_temp_storage("predecessor offsets", [&](void* temp, std::size_t& bytes) {
      return cub::DeviceScan::InclusiveSum(temp, bytes, d_offsets, d_offsets, static_cast<std::int64_t>(count));
    });
    DeviceArray<Offset> fill(count);
    check(cudaMemcpy(fill.get(), d_offsets, std::uint64_t{states_} * sizeof(Offset), cudaMemcpyDeviceToDevice), "cudaMemcpy");
    Predecessors& p = *predecessors_;
    const unsigned blocks = grid_for(states_, sm_count_);
    if (p.local8.size() > 0 || entries_ == 0) {
      fill_predecessors<<<blocks, kBlockSize>>>(view(), fill.get(), p.owners.get(), p.local8.get());
    } else if (p.local16.size() > 0) {
      fill_predecessors<<<blocks, kBlockSize>>>(view(), fill.get(), p.owners.get(), p.local16.get());
    } else {
      fill_predecessors<<<blocks, kBlockSize>>>(view(), fill.get(), p.owners.get(), p.local32.get());
    }
    check(cudaGetLastError(), "filling predecessors");
    check(cudaDeviceSynchronize(), "building the predecessor graph");
  }

  // Whole warps of 32 rows: the last word may hold bits past num_rows, all clear.
  void mark_rows_staying_in(const unsigned long long* d_inside, unsigned long long* d_stays) {
    check(cudaMemset(d_stays, 0, words_of(rows_) * 8), "cudaMemset");
    stays_kernel<<<grid_for(rows_, sm_count_), kBlockSize>>>(view(), d_inside, reinterpret_cast<unsigned*>(d_stays));
    check(cudaGetLastError(), "stays kernel launch");
  }

  bool differ(const unsigned long long* d_a, const unsigned long long* d_b, std::uint64_t words) {
    check(cudaMemset(d_flag_.get(), 0, sizeof(unsigned)), "cudaMemset");
    differ_words<<<grid_for(words, sm_count_), kBlockSize>>>(d_a, d_b, words, d_flag_.get());
    check(cudaGetLastError(), "compare kernel launch");
    return read_from_device(d_flag_.get(), "reading a comparison") != 0;
  }

  // The set and the rows into the working sets; the rows' words, or null for all rows.
  const unsigned long long* upload_subgraph(const std::uint64_t* states, const std::uint64_t* rows) {
    upload_words(d_state_sets_[1].get(), states, words_of(states_));
    if (!rows) return nullptr;
    upload_words(d_row_sets_[0].get(), rows, words_of(rows_));
    return d_row_sets_[0].get();
  }

  static void upload_words(unsigned long long* d_to, const std::uint64_t* from, std::uint64_t words) {
    check(cudaMemcpy(d_to, from, words * 8, cudaMemcpyHostToDevice), "uploading a set");
  }
  static void download_words(std::uint64_t* to, const unsigned long long* d_from, std::uint64_t words) {
    check(cudaMemcpy(to, d_from, words * 8, cudaMemcpyDeviceToHost), "downloading a set");
  }

  std::uint32_t states_;
  std::uint64_t rows_, entries_;
  DeviceArray<std::uint64_t> d_row_group_starts_, d_row_starts_;
  DeviceArray<std::uint32_t> d_row_group_starts32_{0};  // in place of d_row_group_starts_ where narrow_row_group_starts
  DeviceArray<std::uint32_t> d_row_starts32_{0};        // in place of d_row_starts_ where narrow_row_starts
  DeviceArray<std::uint32_t> d_columns_;
  // What the backward searches read (DeviceGraph's predecessor entries): offsets in 4
  // bytes where the entries fit, each entry's owner, and its local row in 1, 2 or 4 bytes.
  struct Predecessors {
    bool narrow_offsets;
    DeviceArray<std::uint32_t> offsets32{0};
    DeviceArray<std::uint64_t> offsets64{0};
    DeviceArray<std::uint32_t> owners;
    DeviceArray<std::uint8_t> local8{0};
    DeviceArray<std::uint16_t> local16{0};
    DeviceArray<std::uint32_t> local32{0};
    Predecessors(std::uint64_t states, std::uint64_t entries, std::uint64_t most_rows)
        : narrow_offsets(offsets_fit_4_bytes(entries)), owners(entries) {
      if (narrow_offsets) {
        offsets32 = DeviceArray<std::uint32_t>(states + 1);
      } else {
        offsets64 = DeviceArray<std::uint64_t>(states + 1);
      }
      if (most_rows <= 0x100) {
        local8 = DeviceArray<std::uint8_t>(entries);
      } else if (most_rows <= 0x10000) {
        local16 = DeviceArray<std::uint16_t>(entries);
      } else {
        local32 = DeviceArray<std::uint32_t>(entries);
      }
    }
    RowOffsets offsets() const { return {offsets64.get(), narrow_offsets ? offsets32.get() : nullptr}; }
    LocalRows local() const {
      return {local8.size() > 0 ? local8.get() : nullptr, local16.size() > 0 ? local16.get() : nullptr, local32.get()};
    }
  };
  std::unique_ptr<Predecessors> predecessors_;
  DeviceArray<unsigned long long> d_state_sets_[2];  // the result, the allowed states
  DeviceArray<unsigned long long> d_row_sets_[2];    // allowed or hit rows, staying rows
  DeviceArray<unsigned long long> d_fixpoint_sets_[3];  // stay_and_reach: reached, targets, allowed
  DeviceArray<unsigned> d_flag_;
  // What the level searches work in, a model-sized queue pair and a count per state:
  // made at the first search after release_scratch, so that a solve has their memory.
  struct Scratch {
    LevelQueues queues;
    DeviceArray<std::uint32_t> rows_missing;
    explicit Scratch(std::uint64_t states) : queues(states + 1), rows_missing(states + 1) {}
  };
  Scratch& scratch_for_searches() {
    if (!scratch_) scratch_ = std::make_unique<Scratch>(states_);
    return *scratch_;
  }
  std::unique_ptr<Scratch> scratch_;
  DeviceValueArray d_values_;  // the model's probabilities: uploaded by the first maybe_system
  int sm_count_;
};

}  // namespace

std::unique_ptr<DeviceGraphSearch> upload_graph(const GraphArrays& graph) {
  if (!free_device_memory()) return nullptr;
  return std::make_unique<CudaGraphSearch>(graph);
}

}  // namespace mdpvi::gpu
