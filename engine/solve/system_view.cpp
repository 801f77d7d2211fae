// The maybe-state system as a view over the model (maybe_system.h's SystemView), and
// its chunks copied from the model's rows (prepared_chunk.h).
#include "engine/solve/kept_rows.h"
#include "engine/solve/maybe_system.h"
#include "engine/model/parallel_indices.h"
#include "engine/solve/prepared_chunk.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

namespace mdpvi {

namespace {

// f(probability) with the model's reader of entry values (CompactValues::visit).
template <typename F>
decltype(auto) with_probabilities(const SystemView& view, F&& f) {
  return view.model->values.visit(std::forward<F>(f));
}

// emit(r, b) for each kept row of local state s (kept_rows, through the view).
template <typename Probability, typename Emit>
void view_rows(const MaybeSystem& system, const Probability& probability, std::uint64_t s, Emit emit) {
  const SystemView& view = *system.view;
  kept_rows(*view.model, probability, system.model_states[s], view.local_of, view.outside(), view.rewards, emit);
}

// States a block of a chunk's parallel passes takes.
constexpr std::uint64_t kStatesPerBlock = 1 << 12;

}  // namespace

MaybeSystem build_system_view(const SparseMdp& mdp, graph::SccDecomposition&& sccs, const TwoValuedOutside& outside,
                              const RewardStructure* rewards) {
  MaybeSystem system = system_of_sccs(std::move(sccs));
  auto view = std::make_shared<SystemView>();
  view->model = &mdp;
  view->outside_set = &outside.set;
  view->on_set = outside.on_set;
  view->elsewhere = outside.elsewhere;
  view->rewards = rewards;
  const std::uint32_t n = system.num_states();
  view->local_of = local_indices(mdp.num_states(), system.model_states);
  view->self_loops = BitWords(n);
  with_probabilities(*view, [&](const auto& probability) {  // the counts and the self-loops in one walk
    view->entry_starts = PackedOffsets(count_kept_rows(mdp, probability, n, view->local_of, view->outside(),
                                                       rewards, system.row_group_starts, &view->self_loops));
  });
  if (!view->entry_starts.spans_fit(view->entry_starts.back())) {
    throw std::length_error("the system's view: 256 states with 2^32 entries or more");
  }
  system.view = view;
  return system;
}

std::uint64_t system_view_bytes(const SparseMdp& mdp, std::uint64_t states) {
  const std::uint64_t entry_offsets = (states + 1) * sizeof(std::uint32_t) + (states / PackedOffsets::kBlock + 1) * 8;
  return std::uint64_t{mdp.num_states()} * sizeof(std::uint32_t) + (states + 1) * sizeof(std::uint64_t) +
         entry_offsets + states / 8;
}

const char* where_kept(const MaybeSystem& system) {
  return system.on_device ? "on the GPU" : system.view ? "a view over the model" : "on the host";
}

std::uint64_t entries_before(const MaybeSystem& system, std::uint64_t state) {
  return system.view ? system.view->entry_starts[state] : system.row_starts[system.row_group_starts[state]];
}

// prepare_chunk's arrays, made from the model's rows: the same rows, entries and b
// as a copy's chunk (the same walk, kept_rows), its b kept as own_b.
PreparedChunk prepare_chunk_from_view(const MaybeSystem& system, const Chunk& chunk) {
  const SystemView& view = *system.view;
  const SparseMdp& mdp = *view.model;
  PreparedChunk p;
  const std::uint64_t first = chunk.first_state, states = chunk.end_state - chunk.first_state;
  const std::uint64_t first_row = system.row_group_starts[first];
  const std::uint64_t rows = system.row_group_starts[chunk.end_state] - first_row;
  p.row_group_starts.resize(states + 1);
  parallel_indices(0, states + 1, 1 << 16, [&](std::size_t s) {
    p.row_group_starts[s] = system.row_group_starts[first + s] - first_row;
  });
  // Per block of states, its entries inside the chunk and into earlier ones; their
  // running totals are where each block writes.
  const std::uint64_t blocks = (states + kStatesPerBlock - 1) / kStatesPerBlock;
  std::vector<ChunkEntryCounts> at(blocks + 1);
  with_probabilities(view, [&](const auto& probability) {
    parallel_indices(0, blocks, 1, [&](std::size_t b) {
      const std::uint64_t end = std::min(states, (b + 1) * kStatesPerBlock);
      ChunkEntryCounts c;
      for (std::uint64_t s = b * kStatesPerBlock; s < end; ++s) {
        view_rows(system, probability, first + s, [&](std::uint64_t r, double) {
          for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
            const std::uint32_t t = view.local_of[mdp.columns[k]];
            if (t == kOutsideSystem) continue;
            ++(t >= first ? c.inside : c.outside);
          }
        });
      }
      at[b + 1] = c;
    });
  });
  size_for_blocks(p, rows, at);
  p.own_b.resize(rows);
  CompactValuesCopy values(mdp.values, at[blocks].inside);  // in the model's form
  with_probabilities(view, [&](const auto& probability) {
    parallel_indices(0, blocks, 1, [&](std::size_t b) {
      std::uint64_t inside = at[b].inside, outside = at[b].outside;
      const std::uint64_t end = std::min(states, (b + 1) * kStatesPerBlock);
      std::uint64_t row = p.row_group_starts[b * kStatesPerBlock];
      for (std::uint64_t s = b * kStatesPerBlock; s < end; ++s) {
        view_rows(system, probability, first + s, [&](std::uint64_t r, double constant) {
          for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
            const std::uint32_t t = view.local_of[mdp.columns[k]];
            if (t == kOutsideSystem) continue;
            if (t >= first) {
              p.columns[inside] = static_cast<std::uint32_t>(t - first);
              values.copy(inside++, k);
            } else {
              p.outside_columns[outside] = t;
              p.outside_values[outside++] = probability(k);
            }
          }
          p.own_b[row] = constant;
          ++row;
          p.row_starts[row] = inside;
          p.outside_starts[row] = outside;
        });
      }
    });
  });
  p.values = std::move(values).finish();
  p.values.compress();  // a plain model's chunk may still have few enough values
  return p;
}

}  // namespace mdpvi
