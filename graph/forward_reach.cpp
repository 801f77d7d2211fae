#include "graph/forward_reach.h"

#include "engine/model/bit_words.h"
#include "graph/level_loop.h"

#include <atomic>
#include <deque>

namespace mdpvi::graph {

namespace {

template <typename Visit>
void for_each_successor(const SparseMdp& mdp, std::uint32_t s, const Visit& visit) {
  const std::uint64_t first = mdp.row_starts[mdp.row_group_starts[s]];
  const std::uint64_t end = mdp.row_starts[mdp.row_group_starts[s + 1]];
  for (std::uint64_t k = first; k < end; ++k) visit(mdp.columns[k]);
}

}  // namespace

std::optional<StateSet> forward_reachable(const SparseMdp& mdp, const StateSet& from, std::uint64_t most) {
  const std::uint32_t n = mdp.num_states();
  if (from.count() > most) return std::nullopt;
  BitWords reached = BitWords::of(from);
  std::vector<std::uint32_t> frontier;
  for (std::size_t s = from.find_first(); s != StateSet::npos; s = from.find_next(s)) {
    frontier.push_back(static_cast<std::uint32_t>(s));
  }
  std::atomic<std::uint64_t> count{frontier.size()};
  std::atomic<bool> too_many{false};
  level_by_level(std::move(frontier), [&](std::uint32_t s, std::vector<std::uint32_t>& next) {
    if (too_many.load(std::memory_order_relaxed)) return;
    for_each_successor(mdp, s, [&](std::uint32_t t) {
      if (!reached.claim(t)) return;
      if (count.fetch_add(1, std::memory_order_relaxed) + 1 > most) too_many.store(true, std::memory_order_relaxed);
      next.push_back(t);
    });
  });
  if (too_many.load()) return std::nullopt;
  return reached.to_set(n);
}

std::optional<StateSet> forward_reachable_reference(const SparseMdp& mdp, const StateSet& from, std::uint64_t most) {
  StateSet reached = from;
  std::deque<std::uint32_t> queue;
  for (std::size_t s = from.find_first(); s != StateSet::npos; s = from.find_next(s)) {
    queue.push_back(static_cast<std::uint32_t>(s));
  }
  while (!queue.empty()) {
    const std::uint32_t s = queue.front();
    queue.pop_front();
    for_each_successor(mdp, s, [&](std::uint32_t t) {
      if (reached.test(t)) return;
      reached.set(t);
      queue.push_back(t);
    });
  }
  if (reached.count() > most) return std::nullopt;
  return reached;
}

}  // namespace mdpvi::graph
