#include "graph/leaving_cascade.h"

#include "engine/model/parallel_indices.h"
#include "engine/model/pod_vector.h"
#include "engine/model/stopwatch.h"
#include "graph/level_loop.h"

#include <oneapi/tbb/parallel_for.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <bit>
#include <chrono>

namespace mdpvi::graph {

namespace {

// The states of the removed states' SCCs that have a row into another state of their
// own SCC, listed per target (in-SCC predecessors through rows still left; a source
// once per entry). Only the SCCs that lost a state are listed: the cascade stays
// inside them.
struct InSccPredecessors {
  PodVector<std::uint64_t> offsets;  // num_states + 1
  PodVector<std::uint32_t> sources;
};

InSccPredecessors in_scc_predecessors(const SparseMdp& mdp, const std::vector<std::uint32_t>& scc_of,
                                      const std::vector<std::uint32_t>& removed, const BitWords& states_left,
                                      const BitWords& rows_left) {
  const std::uint32_t n = mdp.num_states();
  BitWords affected(n);  // SCC labels (states) of the SCCs that lost a state
  oneapi::tbb::parallel_for(std::size_t{0}, removed.size(), [&](std::size_t i) { affected.claim(scc_of[removed[i]]); });
  InSccPredecessors p;
  // Model-sized arrays (a product's: 10^8 pairs) written on all cores, not zeroed,
  // summed and copied by one thread (bench/NOTES.md, session 32).
  p.offsets.resize(std::size_t{n} + 1);
  parallel_indices(0, std::size_t{n} + 1, 1 << 16, [&](std::size_t t) { p.offsets[t] = 0; });
  const auto for_each_edge = [&](auto visit) {
    oneapi::tbb::parallel_for(std::uint32_t{0}, n, [&](std::uint32_t s) {
      if (!states_left.test(s) || !affected.test(scc_of[s])) return;
      for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
        if (!rows_left.test(r)) continue;
        for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
          const std::uint32_t t = mdp.columns[k];
          if (t != s && scc_of[t] == scc_of[s]) visit(s, t);
        }
      }
    });
  };
  for_each_edge([&](std::uint32_t, std::uint32_t t) {
    std::atomic_ref<std::uint64_t>(p.offsets[t + 1]).fetch_add(1, std::memory_order_relaxed);
  });
  parallel_running_totals(p.offsets.data() + 1, n);
  p.sources.resize(p.offsets.back());
  PodVector<std::uint64_t> fill(n);
  parallel_indices(0, n, 1 << 16, [&](std::size_t t) { fill[t] = p.offsets[t]; });
  for_each_edge([&](std::uint32_t s, std::uint32_t t) {
    p.sources[std::atomic_ref<std::uint64_t>(fill[t]).fetch_add(1, std::memory_order_relaxed)] = s;
  });
  return p;
}

// The set bits of w.
std::uint64_t count_of(const BitWords& w) {
  std::uint64_t count = 0;
  for (std::size_t i = 0; i < w.size(); ++i) count += static_cast<std::uint64_t>(std::popcount(w.data()[i]));
  return count;
}

}  // namespace

bool cascade_removals(const SparseMdp& mdp, const std::vector<std::uint32_t>& scc_of, std::vector<std::uint32_t> removed,
                      BitWords& states_left, BitWords& rows_left) {
  if (removed.empty()) return false;
  const auto start = std::chrono::steady_clock::now();
  const InSccPredecessors predecessors = in_scc_predecessors(mdp, scc_of, removed, states_left, rows_left);
  const double listed_s = seconds_since(start);
  BitWords queued(mdp.num_states());
  std::atomic<bool> split{false};
  const std::uint64_t left_before = count_of(states_left);
  // A state still left whose row leads into a removed one looks at its rows again
  // (one thread at a time: queued); left without rows, it is removed in turn. Level by
  // level (graph/level_loop.h): a level's removed states are gone before it starts,
  // and a state that read one of the next level's as still there is looked at again
  // then. The result does not depend on the order: it is the largest set closed under
  // "keeps a row whose successors are all left, in its SCC".
  const auto look_again = [&](std::uint32_t s) {  // true: s is removed now, by this call
    bool keeps_a_row = false, split_here = false;
    for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
      if (!rows_left.test_now(r)) continue;
      bool stays = true, to_a_member = false;
      for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
        const std::uint32_t t = mdp.columns[k];
        const bool same_scc = scc_of[t] == scc_of[s];
        if (!same_scc || !states_left.test_now(t)) stays = false;
        if (same_scc && t != s) to_a_member = true;  // removed or not: the SCC may split
      }
      if (stays) {
        keeps_a_row = true;
        continue;
      }
      rows_left.clear(r);
      split_here = split_here || to_a_member;
    }
    if (split_here && !split.load(std::memory_order_relaxed)) split.store(true, std::memory_order_relaxed);
    return !keeps_a_row && states_left.clear(s);
  };
  level_by_level(std::move(removed), [&](std::uint32_t t, std::vector<std::uint32_t>& next) {
    for (std::uint64_t j = predecessors.offsets[t]; j < predecessors.offsets[t + 1]; ++j) {
      const std::uint32_t s = predecessors.sources[j];
      if (!states_left.test_now(s) || !queued.claim(s)) continue;
      if (look_again(s)) next.push_back(s);
      queued.clear(s);
    }
  });
  spdlog::debug("end components: a cascade removed {} states, {:.3f} s ({:.3f} s listing {} in-SCC predecessors)",
                left_before - count_of(states_left), seconds_since(start), listed_s, predecessors.sources.size());
  return split.load();
}

}  // namespace mdpvi::graph
