#include "graph/end_components.h"

#include "engine/model/bit_words.h"
#include "engine/model/stopwatch.h"
#include "graph/leaving_cascade.h"
#include "graph/scc.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <utility>

namespace mdpvi::graph {

namespace {

// A flag any thread may raise, written once: every thread storing to one shared
// line, once per dropped row, made the contention most of the decomposition's time.
class Flag {
 public:
  void raise() {
    if (!raised()) value_.store(true, std::memory_order_relaxed);
  }
  bool raised() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> value_{false};
};

struct RowReach {
  bool stays = true;               // every successor in the SCC of the row's state
  bool to_another_member = false;  // some successor is another state of that SCC
};

RowReach row_reach(const SparseMdp& mdp, std::uint64_t r, std::uint32_t s, const std::vector<std::uint32_t>& scc_of) {
  RowReach reach;
  for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
    const std::uint32_t t = mdp.columns[k];
    if (scc_of[t] != scc_of[s]) {
      reach.stays = false;
    } else if (t != s) {
      reach.to_another_member = true;
    }
  }
  return reach;
}

// Whether one of s's rows in rows has every successor s itself.
bool has_row_back_to_itself(const SparseMdp& mdp, std::uint32_t s, const StateSet& rows) {
  for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
    if (!rows.test(r)) continue;
    bool back = true;
    for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1] && back; ++k) back = mdp.columns[k] == s;
    if (back) return true;
  }
  return false;
}

// labels(states, rows): graph/scc.h's scc_labels of the sub-MDP.
template <typename SccLabels>
EndComponents refine_to_end_components(const SparseMdp& mdp, StateSet states, StateSet enabled_rows, SccLabels labels) {
  constexpr std::uint32_t kNone = EndComponents::kNone;
  std::vector<std::uint32_t> scc_of;
  bool changed = true;
  int rounds = 0;
  double labels_s = 0;
  const auto start = std::chrono::steady_clock::now();
  while (changed && states.any()) {
    ++rounds;
    const auto labels_start = std::chrono::steady_clock::now();
    scc_of = labels(states, enabled_rows);  // the partition is all this needs
    labels_s += seconds_since(labels_start);
    // In parallel over states; rows and states are cleared in copies (word atomics),
    // so that the round reads the sets as they were.
    BitWords rows_left = BitWords::of(enabled_rows), states_left = BitWords::of(states);
    Flag dropped, split;
    oneapi::tbb::enumerable_thread_specific<std::vector<std::uint32_t>> removed;
    oneapi::tbb::parallel_for(std::uint32_t{0}, mdp.num_states(), [&](std::uint32_t s) {
      if (!states.test(s)) return;
      bool keeps_a_row = false, dropped_here = false, split_here = false;
      for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
        if (!enabled_rows.test(r)) continue;
        const RowReach reach = row_reach(mdp, r, s, scc_of);
        if (reach.stays) {
          keeps_a_row = true;
          continue;
        }
        rows_left.clear(r);
        dropped_here = true;
        split_here |= reach.to_another_member;
      }
      if (!keeps_a_row) {
        states_left.clear(s);
        removed.local().push_back(s);
      }
      if (dropped_here || !keeps_a_row) dropped.raise();
      if (split_here) split.raise();
    });
    // A state removed with a row into another member was in an SCC that other states
    // are still in: those whose rows all lead into removed states go too, in this
    // round (graph/leaving_cascade.h), not one layer a round.
    if (split.raised()) {
      std::vector<std::uint32_t> gone;
      for (const std::vector<std::uint32_t>& part : removed) gone.insert(gone.end(), part.begin(), part.end());
      cascade_removals(mdp, scc_of, std::move(gone), states_left, rows_left);
    }
    if (dropped.raised()) {
      enabled_rows = rows_left.to_set(mdp.num_choices());
      states = states_left.to_set(mdp.num_states());
    }
    // Dropping a row whose edges all leave its SCC (or loop) splits no SCC, and a
    // state left without rows was an SCC of its own (else one of its rows led to
    // another member): the partition stands, and so does every row kept. Only a
    // dropped edge inside an SCC calls for another round (which saves a round where
    // only leaving rows were dropped).
    changed = split.raised();
  }
  spdlog::debug("end components: {} rounds, {:.3f} s, of which SCC labels {:.3f} s", rounds, seconds_since(start), labels_s);
  // Now every remaining state has rows, all staying in its SCC: each SCC is a MEC.
  EndComponents result;
  result.component_of.assign(mdp.num_states(), kNone);
  std::vector<std::uint32_t> renumbered(mdp.num_states(), kNone);
  for (auto s = states.find_first(); s != StateSet::npos; s = states.find_next(s)) {
    std::uint32_t& number = renumbered[scc_of[s]];
    if (number == kNone) number = result.count++;
    result.component_of[s] = number;
  }
  // A state dropped along the way lost all its rows first: what is left is internal.
  result.internal_rows = std::move(enabled_rows);
  return result;
}

}  // namespace

EndComponents maximal_end_components(const SparseMdp& mdp, StateSet states, StateSet enabled_rows, SearchKind kind) {
  return refine_to_end_components(mdp, std::move(states), std::move(enabled_rows),
                                  [&](const StateSet& s, const StateSet& rows) { return scc_labels(kind, mdp, s, &rows); });
}

EndComponents maximal_end_components(const SearchBackend& search, StateSet states, StateSet enabled_rows,
                                     std::vector<std::uint32_t> first_labels) {
  const SparseMdp& mdp = search.mdp();
  return refine_to_end_components(mdp, std::move(states), std::move(enabled_rows), [&](const StateSet& s, const StateSet& rows) {
    if (!first_labels.empty()) return std::exchange(first_labels, {});
    return scc_labels(search, mdp, s, &rows);
  });
}

std::vector<std::uint32_t> scc_labels_within(const SccDecomposition& sccs, const StateSet& states,
                                             std::uint32_t num_states) {
  std::vector<std::uint32_t> label(num_states, EndComponents::kNone);
  oneapi::tbb::parallel_for(std::size_t{0}, sccs.num_sccs(), [&](std::size_t c) {
    const std::uint32_t first = sccs.order[sccs.scc_starts[c]];
    if (!states.test(first)) return;
    for (std::uint64_t i = sccs.scc_starts[c]; i < sccs.scc_starts[c + 1]; ++i) label[sccs.order[i]] = first;
  });
  return label;
}

StateSet end_component_candidates(const SparseMdp& mdp, const StateSet& states, const SccDecomposition& sccs,
                                  const StateSet& rows) {
  BitWords candidates(mdp.num_states());  // claimed in parallel: SCCs' members share words
  oneapi::tbb::parallel_for(std::size_t{0}, sccs.num_sccs(), [&](std::size_t c) {
    if (sccs.scc_starts[c + 1] - sccs.scc_starts[c] < 2) return;
    for (std::uint64_t i = sccs.scc_starts[c]; i < sccs.scc_starts[c + 1]; ++i) candidates.claim(sccs.order[i]);
  });
  // The single states in index order, not the SCCs': their rows are then read in the
  // model's order, not at random.
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::uint32_t>(0, mdp.num_states(), 1 << 14), [&](const auto& part) {
    for (std::uint32_t s = part.begin(); s < part.end(); ++s) {
      if (states.test(s) && !candidates.test_now(s) && has_row_back_to_itself(mdp, s, rows)) candidates.claim(s);
    }
  });
  return candidates.to_set(mdp.num_states());
}

StateSet states_in_components(const EndComponents& components) {
  StateSet in(components.component_of.size());
  for (std::size_t s = 0; s < components.component_of.size(); ++s) {
    if (components.component_of[s] != EndComponents::kNone) in.set(s);
  }
  return in;
}

StateSet states_in_chosen_components(const EndComponents& components, const std::vector<char>& chosen) {
  StateSet in(components.component_of.size());
  for (std::size_t s = 0; s < components.component_of.size(); ++s) {
    const std::uint32_t c = components.component_of[s];
    if (c != EndComponents::kNone && chosen[c]) in.set(s);
  }
  return in;
}

StateSet states_in_components_holding(const EndComponents& components, const StateSet& marked) {
  std::vector<char> holding(components.count, 0);
  for (std::size_t s = marked.find_first(); s != StateSet::npos; s = marked.find_next(s)) {
    const std::uint32_t c = components.component_of[s];
    if (c != EndComponents::kNone) holding[c] = 1;
  }
  return states_in_chosen_components(components, holding);
}

}  // namespace mdpvi::graph
