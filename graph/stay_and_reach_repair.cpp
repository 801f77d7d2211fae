#include "graph/stay_and_reach_repair.h"

#include "engine/model/bit_words.h"
#include "graph/parallel_select.h"

#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace mdpvi::graph {

namespace {

using Ranked = std::pair<std::uint32_t, std::uint32_t>;  // a rank, a state
using RankQueue = std::priority_queue<Ranked, std::vector<Ranked>, std::greater<>>;

class Repair {
 public:
  Repair(const SparseMdp& mdp, const ChoicePredecessorGraph& g, const StateSet& targets, FirstRound& first)
      : mdp_(mdp),
        g_(g),
        in_(BitWords::of(first.reached)),
        stays_(BitWords::of(first.stays)),
        targets_(BitWords::of(targets)),
        ranks_(std::move(first.ranks)),
        queued_(mdp.num_states()),
        unplaced_(mdp.num_states()) {}

  BitWords& in() { return in_; }

  // One round: the states of the last round's drop leave, and what that unplaces is
  // placed again where it can be. Returns the states dropped now.
  std::vector<std::uint32_t> round(const std::vector<std::uint32_t>& dropped) {
    RankQueue check;
    for (const std::uint32_t t : dropped) stop_staying_into(t, check);
    const std::vector<std::uint32_t> unplaced = unplace(check);
    return place_again(unplaced);
  }

 private:
  template <typename Visit>
  void for_each_staying_predecessor(std::uint32_t t, Visit visit) const {
    for (std::uint64_t e = g_.offsets[t]; e < g_.offsets[t + 1]; ++e) {
      const std::uint64_t row = g_.rows[e];
      if (stays_.test(row)) visit(row, g_.owner(row));
    }
  }

  // Step 1: t has left; the rows into it stop staying, and their owners still in
  // are to be checked.
  void stop_staying_into(std::uint32_t t, RankQueue& check) {
    for_each_staying_predecessor(t, [&](std::uint64_t row, std::uint32_t owner) {
      stays_.clear(row);
      enqueue(owner, check);
    });
  }

  void enqueue(std::uint32_t s, RankQueue& check) {
    if (!in_.test(s) || targets_.test(s) || !queued_.claim(s)) return;
    check.push({ranks_[s], s});
    queued_list_.push_back(s);
  }

  // The lowest rank among the successors of s's staying rows that are still placed
  // (kUnranked where none is).
  std::uint32_t lowest_placed_successor(std::uint32_t s) const {
    std::uint32_t lowest = kUnranked;
    for (std::uint64_t r = mdp_.row_group_starts[s]; r < mdp_.row_group_starts[s + 1]; ++r) {
      if (!stays_.test(r)) continue;
      for (std::uint64_t k = mdp_.row_starts[r]; k < mdp_.row_starts[r + 1]; ++k) {
        const std::uint32_t t = mdp_.columns[k];
        if (!unplaced_.test(t) && ranks_[t] < lowest) lowest = ranks_[t];
      }
    }
    return lowest;
  }

  // Whether some staying row of s has a successor still placed with a lower rank.
  bool has_witness(std::uint32_t s) const { return lowest_placed_successor(s) < ranks_[s]; }

  // Step 2: in increasing rank, the states checked that have no witness left are
  // unplaced, and their predecessors of higher rank checked in turn. (Every state of
  // lower rank that will be checked is checked first: a check only adds higher ranks.)
  std::vector<std::uint32_t> unplace(RankQueue& check) {
    std::vector<std::uint32_t> unplaced;
    while (!check.empty()) {
      const std::uint32_t rank = check.top().first, s = check.top().second;
      check.pop();
      if (has_witness(s)) continue;
      unplaced_.claim(s);
      unplaced.push_back(s);
      for_each_staying_predecessor(s, [&](std::uint64_t, std::uint32_t p) {
        if (ranks_[p] > rank) enqueue(p, check);
      });
    }
    for (const std::uint32_t s : queued_list_) queued_.clear(s);
    queued_list_.clear();
    return unplaced;
  }

  // Step 3: the unplaced states reached again from the placed ones by a shortest-path
  // search over staying rows, the placed states' ranks as their distances; an
  // unplaced state's rank holds its tentative distance meanwhile. Returns those not
  // reached, which leave.
  std::vector<std::uint32_t> place_again(const std::vector<std::uint32_t>& unplaced) {
    RankQueue queue;
    for (const std::uint32_t x : unplaced) {
      const std::uint32_t best = lowest_placed_successor(x);  // unplaced successors do not count
      ranks_[x] = kUnranked;
      if (best == kUnranked) continue;
      ranks_[x] = best + 1;
      queue.push({best + 1, x});
    }
    while (!queue.empty()) {
      const std::uint32_t distance = queue.top().first, x = queue.top().second;
      queue.pop();
      if (!unplaced_.test(x) || distance != ranks_[x]) continue;  // placed already, or a stale entry
      unplaced_.clear(x);
      for_each_staying_predecessor(x, [&](std::uint64_t, std::uint32_t p) {
        if (unplaced_.test(p) && distance + 1 < ranks_[p]) {
          ranks_[p] = distance + 1;
          queue.push({distance + 1, p});
        }
      });
    }
    std::vector<std::uint32_t> left;
    for (const std::uint32_t x : unplaced) {
      if (!unplaced_.test(x)) continue;
      unplaced_.clear(x);
      in_.clear(x);
      ranks_[x] = kUnranked;
      left.push_back(x);
    }
    return left;
  }

  const SparseMdp& mdp_;
  const ChoicePredecessorGraph& g_;
  BitWords in_, stays_, targets_;
  PodVector<std::uint32_t> ranks_;
  BitWords queued_, unplaced_;
  std::vector<std::uint32_t> queued_list_;
};

}  // namespace

StateSet repaired_rounds(const SparseMdp& mdp, const ChoicePredecessorGraph& graph, const StateSet& targets,
                         FirstRound first, int& rounds) {
  const std::uint32_t n = mdp.num_states();
  const StateSet left_first = first.inside - first.reached;
  const BitWords left_words = BitWords::of(left_first);
  std::vector<std::uint32_t> dropped = parallel_set_bits(left_words.data(), left_words.size());
  Repair repair(mdp, graph, targets, first);
  rounds = 1;
  while (!dropped.empty()) {
    ++rounds;
    dropped = repair.round(dropped);
  }
  return repair.in().to_set(n);
}

}  // namespace mdpvi::graph
