#pragma once
// Prob1E's nested fixed point (SearchBackend::stay_and_reach) with each round after
// the first repairing the last round's search instead of searching again.
//
// The fixed point shrinks U by the states that cannot reach the targets by choices
// staying in U, until none is left to drop. On the consensus models each round drops
// about 1.5% of U and there are tens of rounds, each a full backward search (coin6_2's
// G F: 29 rounds, half of the property's time; bench/NOTES.md, session 29). Here every
// state of U keeps a rank, its distance to the targets when it was last placed, with
// a staying choice into a state of lower rank as its witness. After a round drops
// states D:
//   1. the choices with a successor in D stop staying (found through D's predecessors);
//   2. the states that may have lost their witness are checked in increasing rank
//      (a state keeps its place if some staying choice has a successor of lower rank
//      still placed), and those that lose it pass the check on to their predecessors
//      of higher rank: the states unplaced, X;
//   3. X is searched again from the states still placed, as a shortest-path search
//      (Dijkstra's, the placed states' ranks as distances): what it reaches takes new
//      ranks, and the rest of X is the next round's D.
// Each round's work is that of the states it touches, not of U. (Ranks that strictly
// fall along witnesses are the classical argument for decremental reachability, as in
// Even and Shiloach's decremental search trees, J. ACM 28(1), 1981.)
#include "engine/model/sparse_mdp.h"
#include "engine/model/state_set.h"
#include "graph/qualitative.h"

#include <cstdint>

namespace mdpvi::graph {

// A state's rank where it has none (outside the states reached).
inline constexpr std::uint32_t kUnranked = UINT32_MAX;

// What the first round, a full search, leaves: the set it searched (inside), the
// states it reached (targets inside, and the allowed states inside that reach them by
// rows staying inside), those rows, and each reached state's rank (its distance from
// the targets; kUnranked elsewhere).
struct FirstRound {
  StateSet inside, reached, stays;
  PodVector<std::uint32_t> ranks;
};

// The rounds after the first, repaired as above, until no state is dropped: the set
// SearchBackend::stay_and_reach's rounds of searches end with. Returns it, and the
// rounds taken in all (the first and the last, which drops nothing, counted, as there).
// Pre: graph is mdp's choice-predecessor graph; targets inside are reached.
StateSet repaired_rounds(const SparseMdp& mdp, const ChoicePredecessorGraph& graph, const StateSet& targets,
                         FirstRound first, int& rounds);

}  // namespace mdpvi::graph
