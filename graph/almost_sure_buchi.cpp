#include "graph/almost_sure_buchi.h"

#include "engine/model/stopwatch.h"
#include "graph/qualitative.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <utility>

namespace mdpvi::graph {

// Each round is one Prob1E per set, each inside the last one's result, then the states
// that can no longer stay are taken out with their whole attractor at once. Taking out
// only the states left without a staying row, a round at a time, took a round per
// layer of the attractor: 92 rounds (6.9 s) on coin6_2's product for F G !"agree",
// where the end components took 0.6 s (bench/NOTES.md, session 31).
StateSet almost_sure_buchi(const SearchBackend& search, const std::vector<StateSet>& sets, StateSet candidates) {
  const auto start = std::chrono::steady_clock::now();
  StateSet z = surely_staying(search, candidates);
  for (int round = 1;; ++round) {
    StateSet next = z;
    for (const StateSet& set : sets) next = search.stay_and_reach(set & next, next, next);
    if (next == z) {
      spdlog::debug("generalised Büchi: {} states meet {} sets almost surely, {} rounds, {:.3f} s", z.count(),
                    sets.size(), round, seconds_since(start));
      return z;
    }
    z = surely_staying(search, next);
  }
}

}  // namespace mdpvi::graph
