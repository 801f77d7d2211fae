// The oneTBB backend of graph/search_backend.h: level-synchronous searches
// (graph/level_loop.h), states claimed with one atomic fetch_or on
// their word of the result, so that each joins the next frontier once.
#include "graph/parallel_search.h"

#include "engine/model/bit_words.h"
#include "engine/model/process_memory.h"
#include "graph/level_loop.h"
#include "graph/parallel_select.h"
#include "graph/stay_and_reach_repair.h"

#include <spdlog/spdlog.h>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <atomic>

namespace mdpvi::graph {

namespace {

using Frontier = std::vector<std::uint32_t>;

Frontier members(const StateSet& set) {
  const BitWords words = BitWords::of(set);
  return parallel_set_bits(words.data(), words.size());
}

}  // namespace

StateSet ParallelSearch::backward_exists(const StateSet& sources, const StateSet& allowed_states,
                                         const StateSet* allowed_rows) const {
  return search_backward(sources, allowed_states, allowed_rows, nullptr);
}

// ranks, where given: each state reached gets its distance from the sources (one more
// than the state that claimed it; the search is by levels).
StateSet ParallelSearch::search_backward(const StateSet& sources, const StateSet& allowed_states,
                                         const StateSet* allowed_rows, PodVector<std::uint32_t>* ranks) const {
  const ChoicePredecessorGraph& g = graph();
  BitWords reached = BitWords::of(sources);
  const BitWords allowed = BitWords::of(allowed_states);
  const BitWords rows = allowed_rows ? BitWords::of(*allowed_rows) : BitWords();
  const std::uint32_t n = g.num_states;
  Frontier first = members(sources);
  if (ranks) {
    for (const std::uint32_t s : first) (*ranks)[s] = 0;
  }
  level_by_level(std::move(first), [&](std::uint32_t t, Frontier& next) {
    for (std::uint64_t e = g.offsets[t]; e < g.offsets[t + 1]; ++e) {
      const std::uint64_t row = g.rows[e];
      if (allowed_rows && !rows.test(row)) continue;
      const std::uint32_t owner = g.owner(row);
      if (allowed.test(owner) && reached.claim(owner)) {
        if (ranks) (*ranks)[owner] = (*ranks)[t] + 1;
        next.push_back(owner);
      }
    }
  });
  return reached.to_set(n);
}

// The first round searches, recording ranks; the others repair it
// (graph/stay_and_reach_repair.h). Where the ranks (4 bytes a state) would take more
// than an eighth of the memory unused, the rounds of searches instead.
StateSet ParallelSearch::stay_and_reach(const StateSet& targets, const StateSet& allowed, StateSet inside) const {
  const std::uint32_t n = mdp_.num_states();
  if (std::uint64_t{n} * sizeof(std::uint32_t) > unused_memory_bytes() / 8) {
    return SearchBackend::stay_and_reach(targets, allowed, std::move(inside));
  }
  FirstRound first;
  first.stays = rows_staying_in(inside);
  first.ranks = PodVector<std::uint32_t>(n);
  std::fill(first.ranks.begin(), first.ranks.end(), kUnranked);
  first.reached = search_backward(targets & inside, inside & allowed, &first.stays, &first.ranks);
  first.inside = std::move(inside);
  int rounds = 0;
  StateSet result = repaired_rounds(mdp_, graph(), targets, std::move(first), rounds);
  spdlog::debug("Prob1E: {} rounds, all but the first repaired", rounds);
  return result;
}

StateSet ParallelSearch::backward_forall(const StateSet& sources, const StateSet& allowed_states) const {
  const ChoicePredecessorGraph& g = graph();
  const std::uint32_t n = g.num_states;
  BitWords attracted = BitWords::of(sources);
  const BitWords allowed = BitWords::of(allowed_states);
  BitWords row_hit(mdp_.num_choices());
  PodVector<std::uint32_t> rows_missing(n);  // written in full below
  oneapi::tbb::parallel_for(std::uint32_t{0}, n, [&](std::uint32_t s) {
    rows_missing[s] = static_cast<std::uint32_t>(mdp_.row_group_starts[s + 1] - mdp_.row_group_starts[s]);
  });
  level_by_level(members(sources), [&](std::uint32_t t, Frontier& next) {
    for (std::uint64_t e = g.offsets[t]; e < g.offsets[t + 1]; ++e) {
      const std::uint64_t row = g.rows[e];
      if (!row_hit.claim(row)) continue;  // a row counts once, however many successors it has inside
      const std::uint32_t owner = g.owner(row);
      if (attracted.test(owner) || !allowed.test(owner)) continue;
      // The last row of the owner to be hit attracts it: exactly one thread sees 1.
      if (std::atomic_ref<std::uint32_t>(rows_missing[owner]).fetch_sub(1) == 1 && attracted.claim(owner)) {
        next.push_back(owner);
      }
    }
  });
  return attracted.to_set(n);
}

// Each task writes whole 64-row words of the result: no two tasks share a word.
StateSet ParallelSearch::rows_staying_in(const StateSet& inside) const {
  const ChoicePredecessorGraph& g = graph();
  const BitWords in = BitWords::of(inside);
  const std::uint64_t rows = mdp_.num_choices();
  BitWords stays(rows);
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::uint64_t>(0, (rows + 63) / 64, 64),
                            [&](const oneapi::tbb::blocked_range<std::uint64_t>& words) {
                              for (std::uint64_t w = words.begin(); w < words.end(); ++w) {
                                std::uint64_t bits = 0;
                                for (std::uint64_t r = w * 64; r < std::min(rows, w * 64 + 64); ++r) {
                                  if (!in.test(g.owner(r))) continue;
                                  bool all_inside = true;
                                  for (std::uint64_t k = mdp_.row_starts[r]; k < mdp_.row_starts[r + 1] && all_inside; ++k) {
                                    all_inside = in.test(mdp_.columns[k]);
                                  }
                                  if (all_inside) bits |= std::uint64_t{1} << (r % 64);
                                }
                                stays.word(w) = bits;
                              }
                            });
  return stays.to_set(rows);
}

}  // namespace mdpvi::graph
