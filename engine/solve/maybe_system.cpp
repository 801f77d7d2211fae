#include "engine/solve/maybe_system.h"

#include "engine/model/bit_words.h"
#include "engine/solve/kept_rows.h"
#include "gpu/device_solver.h"
#include "gpu/graph_search.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <utility>
#include <limits>

namespace mdpvi {

namespace {

// outside_value(t): the value of model state t outside the system.
template <typename Probability, typename OutsideValue>
MaybeSystem build_system(const SparseMdp& mdp, const Probability& probability, graph::SccDecomposition&& sccs,
                         const OutsideValue& outside_value, const RewardStructure* rewards, SystemValues kept) {
  MaybeSystem system = system_of_sccs(std::move(sccs));
  const std::uint32_t n = system.num_states();
  const PodVector<std::uint32_t> local_of = local_indices(mdp.num_states(), system.model_states);
  const PodVector<std::uint64_t> entries_of =
      count_kept_rows(mdp, probability, n, local_of, outside_value, rewards, system.row_group_starts);

  // Second pass, in parallel: each state fills its own slices (and commits their pages).
  const PodVector<std::uint64_t>& rows_of = system.row_group_starts;
  system.row_starts.resize(rows_of[n] + 1);
  system.row_constants.resize(rows_of[n]);
  system.columns.resize(entries_of[n]);
  // In the model's form, or plain.
  CompactValuesCopy values(mdp.values, entries_of[n], kept == SystemValues::as_model);
  system.row_starts[0] = 0;
  oneapi::tbb::parallel_for(std::uint32_t{0}, mdp.num_states(), [&](std::uint32_t s) {
    const std::uint32_t i = local_of[s];
    if (i == kOutsideSystem) return;
    std::uint64_t row = rows_of[i], entry = entries_of[i];
    kept_rows(mdp, probability, s, local_of, outside_value, rewards, [&](std::uint64_t r, double constant) {
      for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
        std::uint32_t t = local_of[mdp.columns[k]];
        if (t == kOutsideSystem) continue;
        system.columns[entry] = t;
        values.copy(entry, k);
        ++entry;
      }
      system.row_constants[row] = constant;
      system.row_starts[++row] = entry;
    });
  });
  system.values = std::move(values).finish();
  return system;
}

}  // namespace

MaybeSystem build_maybe_system(const SparseMdp& mdp, graph::SccDecomposition sccs,
                               const StateNumbers& outside_values, const RewardStructure* rewards, SystemValues kept) {
  return mdp.values.visit([&](const auto& probability) {
    return build_system(mdp, probability, std::move(sccs), [&](std::uint32_t t) { return outside_values[t]; }, rewards,
                        kept);
  });
}

MaybeSystem build_maybe_system(const SparseMdp& mdp, graph::SccDecomposition sccs, const TwoValuedOutside& outside,
                               const RewardStructure* rewards, SystemValues kept) {
  return mdp.values.visit([&](const auto& probability) {
    return build_system(mdp, probability, std::move(sccs), outside, rewards, kept);
  });
}

// The yes-set read in place: a per-state array of values would cost a model-sized
// vector and a pass to fill it.
MaybeSystem build_maybe_system(const SparseMdp& mdp, const graph::QualitativePartition& partition,
                               graph::SccDecomposition sccs, SystemValues kept) {
  return build_maybe_system(mdp, std::move(sccs), TwoValuedOutside{partition.yes, 1.0, 0.0}, nullptr, kept);
}

std::optional<MaybeSystem> build_maybe_system_on_device(gpu::DeviceGraphSearch& graph, const SparseMdp& mdp,
                                                        graph::SccDecomposition& sccs, const TwoValuedOutside& outside,
                                                        const RewardStructure* rewards, gpu::SystemStorage storage) {
  try {
    const BitWords marked = BitWords::of(outside.set);
    gpu::SystemInputs inputs;
    inputs.model_values = device_view(mdp.values);
    inputs.order = sccs.order.data();
    inputs.count = static_cast<std::uint32_t>(sccs.order.size());
    inputs.marked_words = marked.data();
    inputs.marked_value = outside.on_set;
    inputs.unmarked_value = outside.elsewhere;
    if (rewards && !rewards->state_rewards.empty()) inputs.state_rewards = device_view(rewards->state_rewards);
    if (rewards && !rewards->choice_rewards.empty()) inputs.choice_rewards = device_view(rewards->choice_rewards);
    inputs.storage = storage;
    std::shared_ptr<gpu::DeviceSystem> built = graph.maybe_system(inputs);
    MaybeSystem system = system_of_sccs(std::move(sccs));
    system.on_device = std::move(built);
    return system;
  } catch (const gpu::DeviceError& error) {
    spdlog::warn("{}; the maybe-state system is built on the host", error.what());
    return std::nullopt;
  }
}

std::uint64_t host_system_bytes(const SparseMdp& mdp, SystemValues kept, std::uint64_t states) {
  const bool indexed = kept == SystemValues::as_model && mdp.values.index_bytes() != 0;
  const std::uint64_t value_bytes = indexed ? mdp.values.index_bytes() : 8;
  const std::uint64_t table_bytes = indexed ? mdp.values.table().size() * 8 : 0;
  const double share = mdp.num_states() == 0 ? 0.0 : static_cast<double>(states) / mdp.num_states();
  const double rows = share * static_cast<double>(mdp.num_choices());
  const double entries = share * static_cast<double>(mdp.num_transitions());
  return static_cast<std::uint64_t>(rows * 16 + entries * static_cast<double>(4 + value_bytes)) + states * 20 +
         std::uint64_t{mdp.num_states()} * 4 + table_bytes;
}

std::uint64_t host_system_bytes(const MaybeSystem& system) {
  const std::uint64_t kept = system.row_group_starts.size() * 8 + system.model_states.size() * 4;
  // A view's row arrays, where the CPU solves it, are sized whole but hold one window
  // of rows at a time (view_windows.h): not counted.
  if (system.view) return kept + system.view->local_of.size() * 4 + system.view->entry_starts.bytes() + system.num_states() / 8;
  return kept + system.row_starts.size() * 8 + system.columns.size() * 4 + system.values.bytes() +
         system.row_constants.size() * 8;
}

void remove_self_loops(MaybeSystem& system) {
  const std::uint32_t n = system.num_states();
  if (system.on_device || system.num_rows() != n) return;
  // The divided values are new numbers: plain, indexed again at the end where they
  // were and can be.
  const bool indexed = system.values.index_bytes() != 0;
  PodVector<double> values = indexed ? system.values.expanded() : std::move(system.values.plain());
  std::uint64_t kept = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint64_t begin = system.row_starts[i], end = system.row_starts[i + 1];
    double stay = 0.0;
    for (std::uint64_t k = begin; k < end; ++k) {
      if (system.columns[k] == i) stay += values[k];
    }
    const bool divide = stay > 0.0 && stay < 1.0;
    const double scale = divide ? 1.0 / (1.0 - stay) : 1.0;
    system.row_starts[i] = kept;
    for (std::uint64_t k = begin; k < end; ++k) {
      if (divide && system.columns[k] == i) continue;
      system.columns[kept] = system.columns[k];
      values[kept++] = values[k] * scale;
    }
    system.row_constants[i] *= scale;
  }
  system.row_starts[n] = kept;
  system.columns.resize(kept);
  values.resize(kept);
  system.values = CompactValues(std::move(values));
  if (indexed) system.values.compress();
}

void discount_entries(MaybeSystem& system, double factor) {
  if (system.view || system.on_device) throw std::logic_error("discount_entries: the system is no host copy");
  PodVector<double> values = system.values.index_bytes() != 0 ? system.values.expanded() : std::move(system.values.plain());
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, values.size(), 1 << 16), [&](const auto& part) {
    for (std::size_t k = part.begin(); k < part.end(); ++k) values[k] *= factor;
  });
  system.values = std::move(values);
}

gpu::ValuesView device_view(const CompactValues& values) {
  return {values.plain_data(), values.index_data(), values.index_bytes(), values.table().data(), values.table().size()};
}

graph::SccDecomposition sccs_of(MaybeSystem&& system) {
  // Where the decomposition ran is not kept by a system (the report has it already),
  // and no build reads it: it stays at its default.
  graph::SccDecomposition sccs;
  sccs.order = std::move(system.model_states);
  sccs.scc_starts = std::move(system.scc_starts);
  sccs.level_starts = std::move(system.level_starts);
  return sccs;
}

MaybeSystem system_of_sccs(graph::SccDecomposition&& sccs) {
  MaybeSystem system;
  system.model_states = std::move(sccs.order);
  system.scc_starts = std::move(sccs.scc_starts);
  system.level_starts = std::move(sccs.level_starts);
  if (system.level_starts.empty()) set_one_level_per_scc(system);
  return system;
}

void set_one_level_per_scc(MaybeSystem& system) {
  system.level_starts.assign(system.num_sccs() + (system.num_sccs() > 0 ? 1 : 0), 0);
  std::iota(system.level_starts.begin(), system.level_starts.end(), std::uint64_t{0});
}

graph::SccDecomposition single_block(const StateSet& states) {
  graph::SccDecomposition block;
  block.order.reserve(states.count());
  for (auto s = states.find_first(); s != StateSet::npos; s = states.find_next(s)) {
    block.order.push_back(static_cast<std::uint32_t>(s));
  }
  block.scc_starts = {0, block.order.size()};
  block.level_starts = {0, 1};
  if (block.order.empty()) block.scc_starts.clear(), block.level_starts.clear();
  return block;
}

}  // namespace mdpvi
