// The plain CPU reference of graph/search_backend.h: serial searches over the
// choice-predecessor graph, and serial loops.
#include "graph/reference_search.h"

#include "graph/qualitative.h"

#include <deque>
#include <vector>


namespace mdpvi::graph {

// A plain breadth-first search from the sources: a state t reached adds the owner of
// each allowed row into t, if the owner is allowed.
StateSet ReferenceSearch::backward_exists(const StateSet& sources, const StateSet& allowed_states,
                                          const StateSet* allowed_rows) const {
  const ChoicePredecessorGraph& g = graph();
  StateSet reached = sources;
  std::deque<std::uint32_t> queue;
  for (auto s = sources.find_first(); s != StateSet::npos; s = sources.find_next(s)) queue.push_back(static_cast<std::uint32_t>(s));
  while (!queue.empty()) {
    const std::uint32_t t = queue.front();
    queue.pop_front();
    for (std::uint64_t e = g.offsets[t]; e < g.offsets[t + 1]; ++e) {
      const std::uint64_t row = g.rows[e];
      if (allowed_rows != nullptr && !allowed_rows->test(row)) continue;
      const std::uint32_t owner = g.owner(row);
      if (reached.test(owner) || !allowed_states.test(owner)) continue;
      reached.set(owner);
      queue.push_back(owner);
    }
  }
  return reached;
}

// A breadth-first search cannot express "every", so this counts the rows still
// outside per state: a linear-time worklist over the same graph.
StateSet ReferenceSearch::backward_forall(const StateSet& sources, const StateSet& allowed_states) const {
  const ChoicePredecessorGraph& g = graph();
  const std::uint32_t states = g.num_states;
  StateSet attracted = sources;
  StateSet row_hit(mdp_.num_choices());
  std::vector<std::uint32_t> rows_missing(states);
  for (std::uint32_t s = 0; s < states; ++s) {
    rows_missing[s] = static_cast<std::uint32_t>(mdp_.row_group_starts[s + 1] - mdp_.row_group_starts[s]);
  }
  std::vector<std::uint32_t> worklist;
  for (auto s = sources.find_first(); s != StateSet::npos; s = sources.find_next(s)) worklist.push_back(static_cast<std::uint32_t>(s));
  while (!worklist.empty()) {
    const std::uint32_t t = worklist.back();
    worklist.pop_back();
    for (std::uint64_t e = g.offsets[t]; e < g.offsets[t + 1]; ++e) {
      const std::uint64_t row = g.rows[e];
      if (row_hit.test(row)) continue;
      row_hit.set(row);
      const std::uint32_t owner = g.owner(row);
      if (attracted.test(owner) || !allowed_states.test(owner)) continue;
      if (--rows_missing[owner] == 0) {
        attracted.set(owner);
        worklist.push_back(owner);
      }
    }
  }
  return attracted;
}

StateSet ReferenceSearch::rows_staying_in(const StateSet& inside) const {
  StateSet stays(mdp_.num_choices());
  for (auto s = inside.find_first(); s != StateSet::npos; s = inside.find_next(s)) {
    for (std::uint64_t r = mdp_.row_group_starts[s]; r < mdp_.row_group_starts[s + 1]; ++r) {
      bool all_inside = true;
      for (std::uint64_t k = mdp_.row_starts[r]; k < mdp_.row_starts[r + 1] && all_inside; ++k) {
        all_inside = inside.test(mdp_.columns[k]);
      }
      if (all_inside) stays.set(r);
    }
  }
  return stays;
}

}  // namespace mdpvi::graph
