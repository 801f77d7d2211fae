#pragma once
// Which of a model state's rows a maybe-state system keeps, and each one's constant
// b: shared by the system's copy (maybe_system.cpp) and its view (system_view.cpp),
// so that the two cannot disagree on a row.
#include "engine/model/bit_words.h"
#include "engine/model/pod_vector.h"
#include "engine/model/sparse_mdp.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

namespace mdpvi {

// local_of's mark for a model state outside the system.
inline constexpr std::uint32_t kOutsideSystem = std::numeric_limits<std::uint32_t>::max();

// emit(r, b) for each row r of model state s that the system keeps, with its
// constant: the row's reward plus P times the value of each entry out of the system.
// A row whose b is +infinity is left out, unless it is the state's last chance of
// a row (minimising rewards: the minimum never takes it while another is there).
// probability(k): the model's value of entry k (CompactValues::visit's reader);
// outside_value(t): the value of model state t outside the system.
template <typename Probability, typename LocalOf, typename OutsideValue, typename Emit>
void kept_rows(const SparseMdp& mdp, const Probability& probability, std::uint32_t s, const LocalOf& local_of,
               const OutsideValue& outside_value, const RewardStructure* rewards, Emit emit) {
  bool kept_any = false;
  for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
    double constant = rewards ? rewards->row_reward(s, r) : 0.0;
    for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
      std::uint32_t t = mdp.columns[k];
      if (local_of[t] == kOutsideSystem) constant += probability(k) * outside_value(t);
    }
    bool last_chance = r + 1 == mdp.row_group_starts[s + 1] && !kept_any;
    if (std::isinf(constant) && constant > 0 && !last_chance) continue;
    kept_any = true;
    emit(r, constant);
  }
}

// Per model state its index among states (their local order), or kOutsideSystem.
inline PodVector<std::uint32_t> local_indices(std::uint32_t model_states, const std::vector<std::uint32_t>& states) {
  PodVector<std::uint32_t> local_of(model_states);
  oneapi::tbb::parallel_for(std::uint32_t{0}, model_states, [&](std::uint32_t s) { local_of[s] = kOutsideSystem; });
  const auto n = static_cast<std::uint32_t>(states.size());
  oneapi::tbb::parallel_for(std::uint32_t{0}, n, [&](std::uint32_t i) { local_of[states[i]] = i; });
  return local_of;
}

// The rows kept per local state (n of them), as offsets into row_group_starts (n + 1),
// and returned, the kept entries into the system per local state, as offsets. In
// parallel, walking the model in its own order (its arrays front to back) and writing
// each state's counts where the local order puts it. Where self_loops is given (n
// bits), the same walk marks each local state with a kept entry to itself.
template <typename Probability, typename OutsideValue>
PodVector<std::uint64_t> count_kept_rows(const SparseMdp& mdp, const Probability& probability, std::uint32_t n,
                                         const PodVector<std::uint32_t>& local_of, const OutsideValue& outside_value,
                                         const RewardStructure* rewards, PodVector<std::uint64_t>& row_group_starts,
                                         BitWords* self_loops = nullptr) {
  PodVector<std::uint64_t> entries_of(n + 1);
  row_group_starts.resize(n + 1);
  row_group_starts[0] = entries_of[0] = 0;
  oneapi::tbb::parallel_for(std::uint32_t{0}, mdp.num_states(), [&](std::uint32_t s) {
    const std::uint32_t i = local_of[s];
    if (i == kOutsideSystem) return;
    std::uint64_t rows = 0, entries = 0;
    bool loops = false;
    kept_rows(mdp, probability, s, local_of, outside_value, rewards, [&](std::uint64_t r, double) {
      ++rows;
      for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
        entries += local_of[mdp.columns[k]] != kOutsideSystem;
        loops = loops || mdp.columns[k] == s;
      }
    });
    if (self_loops && loops) self_loops->claim(i);
    row_group_starts[i + 1] = rows;
    entries_of[i + 1] = entries;
  });
  std::partial_sum(row_group_starts.begin(), row_group_starts.end(), row_group_starts.begin());
  std::partial_sum(entries_of.begin(), entries_of.end(), entries_of.begin());
  return entries_of;
}

}  // namespace mdpvi
