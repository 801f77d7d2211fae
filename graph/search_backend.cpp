#include "graph/search_backend.h"

#include "engine/model/bit_words.h"
#include "engine/model/process_memory.h"
#include "engine/model/stopwatch.h"
#include "graph/parallel_search.h"
#include "graph/qualitative.h"
#include "graph/reference_search.h"
#include "gpu/device_solver.h"
#include "gpu/graph_search.h"

#include <spdlog/spdlog.h>

#include <chrono>

namespace mdpvi::graph {

const char* to_string(SearchKind kind) {
  switch (kind) {
    case SearchKind::reference: return "cpu-reference";
    case SearchKind::cpu_parallel: return "cpu-parallel";
    case SearchKind::gpu: return "gpu";
  }
  return "?";
}

void make_room_for(const SearchBackend& search, std::uint64_t bytes, const char* what) {
  std::size_t unused = unused_memory_bytes();
  if (bytes <= unused / 2) return;
  spdlog::debug("the searches' host graph released: {} may take {:.1f} GB of the {:.1f} GB unused", what, bytes / 1e9,
                unused / 1e9);
  search.release_search_memory();
  unused = unused_memory_bytes();
  if (forgetting_sccs_makes_room(bytes, unused, search.remembered_sccs_bytes())) {
    spdlog::debug("the remembered SCCs forgotten: {} may take {:.1f} GB of the {:.1f} GB unused", what, bytes / 1e9,
                  unused / 1e9);
    search.forget_sccs();
  }
}

bool forgetting_sccs_makes_room(std::uint64_t bytes, std::uint64_t unused, std::uint64_t kept) {
  return kept > 0 && bytes > unused / 2 && bytes <= (unused + kept) / 2;
}

void release_for_the_last_property(const SearchBackend& search) {
  if (!search.remembering_sccs()) search.release_search_memory();
}

void SearchBackend::remember_sccs_while(bool more_to_come) const { remembering_ = more_to_come; }

const KeptSccs* SearchBackend::remembered_sccs(const StateSet& states) const {
  return remembered_ && remembered_->states == states ? &remembered_->sccs : nullptr;
}

SccDecomposition SearchBackend::take_remembered_sccs() const {
  SccDecomposition taken = std::move(remembered_.value().sccs).take();
  remembered_.reset();
  return taken;
}

void SearchBackend::remember_sccs(const StateSet& states, KeptSccs sccs) const {
  remembered_.emplace(RememberedSccs{states, std::move(sccs)});
}

StateSet SearchBackend::stay_and_reach(const StateSet& targets, const StateSet& allowed, StateSet inside) const {
  for (int rounds = 1;; ++rounds) {
    const StateSet stays = rows_staying_in(inside);
    StateSet reached = backward_exists(targets & inside, inside & allowed, &stays);
    if (reached == inside) {
      spdlog::debug("Prob1E: {} rounds", rounds);
      return inside;
    }
    inside = std::move(reached);
  }
}

namespace {

// An optional row set as the device takes it: its words, or null for every row.
class OptionalWords {
 public:
  explicit OptionalWords(const StateSet* set) : given_(set != nullptr), words_(set ? BitWords::of(*set) : BitWords()) {}
  const std::uint64_t* data() const { return given_ ? words_.data() : nullptr; }

 private:
  bool given_;
  BitWords words_;
};

// The CUDA backend (gpu/graph_search.h) behind the interface: sets travel as words.
class DeviceSearch final : public SearchBackend {
 public:
  DeviceSearch(const SparseMdp& mdp, std::unique_ptr<gpu::DeviceGraphSearch> device, std::size_t bytes)
      : mdp_(mdp), device_(std::move(device)), bytes_(bytes) {}

  SearchKind kind() const override { return SearchKind::gpu; }
  const SparseMdp& mdp() const override { return mdp_; }
  std::size_t device_bytes() const override { return bytes_; }

  StateSet backward_exists(const StateSet& sources, const StateSet& allowed_states,
                           const StateSet* allowed_rows) const override {
    return searched(
        "a backward search",
        [&] {
          BitWords reached(mdp_.num_states());
          device_->backward_exists(BitWords::of(sources).data(), BitWords::of(allowed_states).data(),
                                   OptionalWords(allowed_rows).data(), reached.data());
          return reached.to_set(mdp_.num_states());
        },
        [&](const SearchBackend& cpu) { return cpu.backward_exists(sources, allowed_states, allowed_rows); });
  }

  StateSet backward_forall(const StateSet& sources, const StateSet& allowed_states) const override {
    return searched(
        "a backward attractor",
        [&] {
          BitWords attracted(mdp_.num_states());
          device_->backward_forall(BitWords::of(sources).data(), BitWords::of(allowed_states).data(), attracted.data());
          return attracted.to_set(mdp_.num_states());
        },
        [&](const SearchBackend& cpu) { return cpu.backward_forall(sources, allowed_states); });
  }

  StateSet rows_staying_in(const StateSet& inside) const override {
    return searched(
        "the rows staying inside a set",
        [&] {
          BitWords stays(mdp_.num_choices());
          device_->rows_staying_in(BitWords::of(inside).data(), stays.data());
          return stays.to_set(mdp_.num_choices());
        },
        [&](const SearchBackend& cpu) { return cpu.rows_staying_in(inside); });
  }

  StateSet stay_and_reach(const StateSet& targets, const StateSet& allowed, StateSet inside) const override {
    return searched(
        "Prob1E",
        [&] {
          BitWords words = BitWords::of(inside);
          const unsigned rounds =
              device_->stay_and_reach(BitWords::of(targets).data(), BitWords::of(allowed).data(), words.data());
          spdlog::debug("Prob1E on the GPU: {} rounds", rounds);
          return words.to_set(mdp_.num_states());
        },
        [&](const SearchBackend& cpu) { return cpu.stay_and_reach(targets, allowed, inside); });
  }

  gpu::DeviceGraphSearch* device_graph() const override { return device_.get(); }
  void release_search_memory() const override {
    if (cpu_) cpu_->release_search_memory();
  }

  std::optional<SccDecomposition> device_sccs(const StateSet& states, const StateSet* enabled_rows) const override {
    return on_device("SCCs", [&] {
      const auto start = std::chrono::steady_clock::now();
      gpu::DeviceSccs sccs = device_->sccs(BitWords::of(states).data(), static_cast<std::uint32_t>(states.count()),
                                           OptionalWords(enabled_rows).data());
      spdlog::debug("GPU SCCs of {} states: {} SCCs, {} rounds, {} levels, {:.3f} s", sccs.order.size(),
                    sccs.scc_starts.size() - 1, sccs.work.rounds, sccs.work.levels, seconds_since(start));
      return SccDecomposition{std::move(sccs.order), std::move(sccs.scc_starts), to_string(SearchKind::gpu),
                              level_starts_of(sccs.heights)};
    });
  }

  std::optional<std::vector<std::uint32_t>> device_scc_labels(const StateSet& states,
                                                              const StateSet* enabled_rows) const override {
    return on_device("SCC labels", [&] {
      const auto start = std::chrono::steady_clock::now();
      std::vector<std::uint32_t> labels(mdp_.num_states());
      const gpu::SccWork work =
          device_->scc_representatives(BitWords::of(states).data(), OptionalWords(enabled_rows).data(), labels.data());
      spdlog::debug("GPU SCC labels: {} rounds, {} levels, {:.3f} s", work.rounds, work.levels, seconds_since(start));
      return labels;
    });
  }

 private:
  // on_device(); where the device fails (a search makes its working arrays, which
  // may not fit beside what else is there), the same search on all cores, said in
  // the log, from a predecessor graph made at the first failure.
  template <typename OnDevice, typename OnCpu>
  auto searched(const char* what, OnDevice on_device, OnCpu on_cpu) const -> decltype(on_device()) {
    try {
      return on_device();
    } catch (const gpu::DeviceError& error) {
      spdlog::warn("{} on the CPU: {}", what, error.what());
      return on_cpu(cpu_search());
    }
  }
  const SearchBackend& cpu_search() const {
    if (!cpu_) cpu_ = std::make_unique<ParallelSearch>(mdp_);
    return *cpu_;
  }

  // work() on the device; nullopt, with the reason in the log, if the device fails
  // (the working arrays may not fit beside the graph).
  template <typename Work>
  static auto on_device(const char* what, Work work) -> std::optional<decltype(work())> {
    try {
      return work();
    } catch (const gpu::DeviceError& error) {
      spdlog::warn("{} on the CPU: {}", what, error.what());
      return std::nullopt;
    }
  }

  const SparseMdp& mdp_;
  std::unique_ptr<gpu::DeviceGraphSearch> device_;
  std::size_t bytes_;
  mutable std::unique_ptr<SearchBackend> cpu_;
};

gpu::GraphArrays arrays_of(const SparseMdp& mdp) {
  return {mdp.num_states(), mdp.num_choices(), mdp.num_transitions(), &mdp.row_group_starts, &mdp.row_starts,
          mdp.columns.data()};
}

// The device backend where the graph fits in the device's free memory (with a
// twentieth to spare), else nullptr with the reason in the log.
std::unique_ptr<SearchBackend> device_search(const SparseMdp& mdp) {
  const std::optional<std::size_t> free_bytes = gpu::free_device_memory();
  if (!free_bytes) {
    spdlog::debug("graph searches on the CPU: no usable CUDA device");
    return nullptr;
  }
  if (!gpu::graph_vertices_fit(mdp.num_states(), mdp.num_choices())) {
    spdlog::info("graph searches on the CPU: {} states and {} choices pass the device graph's 32-bit numbering",
                 mdp.num_states(), mdp.num_choices());
    return nullptr;
  }
  const std::size_t needed = gpu::graph_footprint_bytes(mdp.num_states(), mdp.num_choices(), mdp.num_transitions());
  if (needed > *free_bytes - *free_bytes / 20) {
    spdlog::info("graph searches on the CPU: the graph needs {:.1f} GB on the device, {:.1f} GB are free", needed / 1e9,
                 *free_bytes / 1e9);
    return nullptr;
  }
  try {
    return std::make_unique<DeviceSearch>(mdp, gpu::upload_graph(arrays_of(mdp)), needed);
  } catch (const gpu::DeviceError& error) {
    spdlog::warn("{}; graph searches on the CPU instead", error.what());
    return nullptr;
  }
}

}  // namespace

std::unique_ptr<SearchBackend> make_search_backend(const SparseMdp& mdp, const ChoicePredecessorGraph& graph,
                                                   SearchKind kind) {
  switch (kind) {
    case SearchKind::reference: return std::make_unique<ReferenceSearch>(mdp, graph);
    case SearchKind::gpu:
      if (auto device = device_search(mdp)) return device;
      [[fallthrough]];
    case SearchKind::cpu_parallel: return std::make_unique<ParallelSearch>(mdp, graph);
  }
  return std::make_unique<ParallelSearch>(mdp, graph);
}

std::unique_ptr<SearchBackend> make_search_backend(const SparseMdp& mdp, SearchKind kind) {
  switch (kind) {
    case SearchKind::reference: return std::make_unique<ReferenceSearch>(mdp);
    case SearchKind::gpu:
      if (auto device = device_search(mdp)) return device;
      [[fallthrough]];
    case SearchKind::cpu_parallel: return std::make_unique<ParallelSearch>(mdp);
  }
  return std::make_unique<ParallelSearch>(mdp);
}

}  // namespace mdpvi::graph
