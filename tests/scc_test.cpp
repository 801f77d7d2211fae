#include "graph/end_components.h"
#include "graph/kept_sccs.h"
#include "graph/parallel_scc.h"
#include "graph/parallel_select.h"
#include "engine/model/parallel_indices.h"
#include "graph/scc.h"
#include "graph/search_backend.h"
#include "random_mdps.h"
#include "test_models.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <random>

namespace mdpvi {
namespace {

// Transitive closure by repeated squaring of a boolean matrix: fine for tiny graphs.
std::vector<std::vector<bool>> reachability(const SparseMdp& mdp, const StateSet& maybe) {
  const std::uint32_t n = mdp.num_states();
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  for (std::uint32_t s = 0; s < n; ++s) {
    reach[s][s] = true;
    if (!maybe.test(s)) continue;
    for (std::uint64_t k = mdp.row_starts[mdp.row_group_starts[s]]; k < mdp.row_starts[mdp.row_group_starts[s + 1]]; ++k) {
      if (maybe.test(mdp.columns[k])) reach[s][mdp.columns[k]] = true;
    }
  }
  for (std::uint32_t k = 0; k < n; ++k)
    for (std::uint32_t i = 0; i < n; ++i)
      if (reach[i][k])
        for (std::uint32_t j = 0; j < n; ++j)
          if (reach[k][j]) reach[i][j] = true;
  return reach;
}

SparseMdp random_mdp(std::mt19937& rng, std::uint32_t n) {
  std::uniform_int_distribution<std::uint32_t> target(0, n - 1), choices(1, 3), width(1, 2);
  std::vector<test::StateChoices> states(n);
  for (auto& state : states) {
    for (std::uint32_t c = choices(rng); c > 0; --c) {
      test::Choice choice;
      std::uint32_t w = width(rng);
      for (std::uint32_t i = 0; i < w; ++i) choice.push_back({target(rng), 1.0 / w});
      if (w == 2 && choice[0].first == choice[1].first) choice.pop_back(), choice[0].second = 1.0;
      state.push_back(choice);
    }
  }
  return test::make_mdp(states, {});
}

class MaybeStateSccs : public ::testing::TestWithParam<graph::SearchKind> {};

TEST_P(MaybeStateSccs, AreExactAndSuccessorsFirst) {
  std::mt19937 rng(7);
  for (int round = 0; round < 40; ++round) {
    const std::uint32_t n = 1 + round % 23;
    SparseMdp mdp = random_mdp(rng, n);
    StateSet maybe(n);
    for (std::uint32_t s = 0; s < n; ++s) maybe[s] = (rng() % 4) != 0;
    graph::SccDecomposition sccs = graph::maybe_state_sccs(GetParam(), mdp, maybe);
    ASSERT_EQ(sccs.order.size(), maybe.count());
    std::vector<std::size_t> scc_of(n, SIZE_MAX);
    for (std::size_t c = 0; c < sccs.num_sccs(); ++c) {
      ASSERT_LT(sccs.scc_starts[c], sccs.scc_starts[c + 1]) << "empty SCC";
      for (std::uint64_t i = sccs.scc_starts[c]; i < sccs.scc_starts[c + 1]; ++i) scc_of[sccs.order[i]] = c;
    }
    auto reach = reachability(mdp, maybe);
    for (std::uint32_t u = 0; u < n; ++u) {
      if (!maybe.test(u)) continue;
      for (std::uint32_t v = 0; v < n; ++v) {
        if (!maybe.test(v)) continue;
        bool same = scc_of[u] == scc_of[v];
        EXPECT_EQ(same, reach[u][v] && reach[v][u]) << "states " << u << ", " << v;
        // Anything u reaches outside its SCC must come earlier in the order.
        if (!same && reach[u][v]) {
          EXPECT_LT(scc_of[v], scc_of[u]) << "states " << u << ", " << v;
        }
      }
    }
  }
}

TEST_P(MaybeStateSccs, NoMaybeStatesGiveNoSccs) {
  SparseMdp mdp = test::knuth_yao_die();
  graph::SccDecomposition sccs = graph::maybe_state_sccs(GetParam(), mdp, StateSet(mdp.num_states()));
  EXPECT_EQ(sccs.num_sccs(), 0u);
  EXPECT_TRUE(sccs.order.empty());
}

INSTANTIATE_TEST_SUITE_P(Kinds, MaybeStateSccs,
                         ::testing::Values(graph::SearchKind::reference, graph::SearchKind::cpu_parallel),
                         [](const auto& info) { return std::string(info.param == graph::SearchKind::reference ? "reference" : "parallel"); });

// Per state, the smallest state of its SCC: equal for two decompositions exactly when
// they are the same partition.
std::vector<std::uint32_t> smallest_in_scc(const graph::SccDecomposition& sccs, std::uint32_t n) {
  std::vector<std::uint32_t> smallest(n, UINT32_MAX);
  for (std::size_t c = 0; c < sccs.num_sccs(); ++c) {
    std::uint32_t least = UINT32_MAX;
    for (auto i = sccs.scc_starts[c]; i < sccs.scc_starts[c + 1]; ++i) least = std::min(least, sccs.order[i]);
    for (auto i = sccs.scc_starts[c]; i < sccs.scc_starts[c + 1]; ++i) smallest[sccs.order[i]] = least;
  }
  return smallest;
}

// Every edge between maybe-states over enabled rows leads to the same SCC or an earlier one,
// and (heights) to a lower SCC height.
void expect_successors_first(const SparseMdp& mdp, const StateSet& maybe, const StateSet& rows,
                             const graph::SccDecomposition& sccs, const std::vector<std::uint32_t>& heights) {
  std::vector<std::size_t> position(mdp.num_states(), SIZE_MAX);
  for (std::size_t c = 0; c < sccs.num_sccs(); ++c) {
    for (auto i = sccs.scc_starts[c]; i < sccs.scc_starts[c + 1]; ++i) position[sccs.order[i]] = c;
  }
  for (auto s = maybe.find_first(); s != StateSet::npos; s = maybe.find_next(s)) {
    for (auto r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
      if (!rows.test(r)) continue;
      for (auto k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
        const std::uint32_t t = mdp.columns[k];
        if (!maybe.test(t) || position[t] == position[s]) continue;
        ASSERT_LT(position[t], position[s]) << s << " -> " << t;
        ASSERT_LT(heights[position[t]], heights[position[s]]) << s << " -> " << t;
      }
    }
  }
}

// The parallel decomposition against Boost's Tarjan on generated MDPs of odd sizes,
// with one-choice and 40-choice states, self-loops, long chains and rows left out.
TEST(ParallelSccs, AreEquivalentToRef) {
  for (std::uint32_t n : {1u, 2u, 31u, 33u, 1025u, 20011u}) {
    SparseMdp mdp = test::random_mdp(n, n + 5);
    for (std::uint32_t seed = 0; seed < 3; ++seed) {
      StateSet maybe = test::random_set(n, 0.7 + 0.1 * seed, seed);
      StateSet rows = test::random_set(mdp.num_choices(), seed == 0 ? 1.0 : 0.6, seed + 3);
      graph::SccDecomposition expected = graph::maybe_state_sccs(mdp, maybe, &rows);
      std::vector<std::uint32_t> heights;
      graph::SccDecomposition actual =
          graph::parallel_maybe_state_sccs(mdp, maybe, &rows, &heights, graph::ForwardEdges::copied);
      ASSERT_EQ(actual.num_sccs(), expected.num_sccs()) << "n = " << n;
      ASSERT_EQ(actual.order.size(), expected.order.size());
      EXPECT_EQ(smallest_in_scc(actual, n), smallest_in_scc(expected, n)) << "n = " << n;
      expect_successors_first(mdp, maybe, rows, actual, heights);
      // Forward edges read from the model's rows: the same decomposition, order and heights.
      std::vector<std::uint32_t> lean_heights;
      const graph::SccDecomposition lean =
          graph::parallel_maybe_state_sccs(mdp, maybe, &rows, &lean_heights, graph::ForwardEdges::from_model);
      EXPECT_EQ(lean.order, actual.order) << "n = " << n;
      EXPECT_EQ(lean.scc_starts, actual.scc_starts) << "n = " << n;
      EXPECT_EQ(lean.level_starts, actual.level_starts) << "n = " << n;
      EXPECT_EQ(lean_heights, heights) << "n = " << n;
      EXPECT_EQ(graph::parallel_scc_labels(mdp, maybe, &rows, graph::ForwardEdges::from_model),
                graph::parallel_scc_labels(mdp, maybe, &rows, graph::ForwardEdges::copied))
          << "n = " << n;
    }
  }
}

// The textbook refinement, as plain as it gets: every round labels every state left
// (Tarjan's), drops each row with a successor outside its state's SCC and each state
// left without rows, until a round drops nothing.
graph::EndComponents textbook_end_components(const SparseMdp& mdp, StateSet states, StateSet rows) {
  std::vector<std::uint32_t> label;
  for (bool changed = true; changed;) {
    changed = false;
    label = graph::scc_labels(graph::SearchKind::reference, mdp, states, &rows);
    for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
      if (!states.test(s)) continue;
      bool keeps_a_row = false;
      for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
        if (!rows.test(r)) continue;
        bool stays = true;
        for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
          stays = stays && states.test(mdp.columns[k]) && label[mdp.columns[k]] == label[s];
        }
        if (stays) {
          keeps_a_row = true;
        } else {
          rows.reset(r);
          changed = true;
        }
      }
      if (!keeps_a_row) {
        states.reset(s);
        changed = true;
      }
    }
  }
  graph::EndComponents result;
  result.component_of.assign(mdp.num_states(), graph::EndComponents::kNone);
  std::map<std::uint32_t, std::uint32_t> number;
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    if (!states.test(s)) continue;
    const auto [at, added] = number.emplace(label[s], static_cast<std::uint32_t>(number.size()));
    result.component_of[s] = at->second;
  }
  result.count = static_cast<std::uint32_t>(number.size());
  result.internal_rows = std::move(rows);
  return result;
}

// The refinement (which labels again only the SCCs that split) against the textbook's,
// on every backend of the CPU: the same components, numbered alike (in the order of
// their first states), and the same internal rows, on random MDPs and state sets
// (odd sizes, one state; sets from sparse to full; rows from half to all enabled).
TEST(EndComponents, RefinementIsEquivalentToRef) {
  for (std::uint32_t n : {1u, 31u, 33u, 1025u, 20011u}) {
    SparseMdp mdp = test::random_mdp(n, n + 3);
    for (std::uint32_t seed = 0; seed < 4; ++seed) {
      const StateSet states = test::random_set(n, 0.5 + 0.15 * seed, seed);
      const StateSet rows = test::random_set(mdp.num_choices(), 0.5 + 0.15 * seed, seed + 11);
      const graph::EndComponents expected = textbook_end_components(mdp, states, rows);
      for (graph::SearchKind kind : {graph::SearchKind::reference, graph::SearchKind::cpu_parallel}) {
        SCOPED_TRACE(testing::Message() << "n = " << n << ", seed " << seed << ", " << graph::to_string(kind));
        const graph::EndComponents actual = graph::maximal_end_components(mdp, states, rows, kind);
        EXPECT_EQ(actual.count, expected.count);
        EXPECT_EQ(actual.component_of, expected.component_of);
        EXPECT_EQ(actual.internal_rows, expected.internal_rows);
      }
    }
  }
}

// A ring 0 -> 1 -> ... -> n-1 -> 0 whose state 0 can only leave (to n, outside the
// set), with a second choice (a self-loop and the step) at every third state, a self-loop
// alone as a third choice at every seventh state of the first half, and an end
// component {n+1, n+2} beside it: removing state 0 takes the second half down one state
// after another (graph/leaving_cascade.h: a long chain of waves), then the rest. Against the
// textbook's rounds, on every backend of the CPU.
TEST(EndComponents, ACascadeDownALongRingIsEquivalentToRef) {
  for (std::uint32_t n : {2u, 3u, 1000u, 3001u}) {
    std::vector<test::StateChoices> states(n + 3);
    states[0] = {{{1, 0.5}, {n, 0.5}}};
    for (std::uint32_t i = 1; i < n; ++i) {
      states[i] = {{{(i + 1) % n, 1.0}}};
      if (i % 3 == 0) states[i].push_back({{i, 0.5}, {(i + 1) % n, 0.5}});
      if (i % 7 == 0 && i < n / 2) states[i].push_back({{i, 1.0}});  // an end component of its own
    }
    states[n] = {{{n, 1.0}}};
    states[n + 1] = {{{n + 2, 1.0}}, {{0, 1.0}}};
    states[n + 2] = {{{n + 1, 1.0}}};
    const SparseMdp mdp = test::make_mdp(states, {});
    StateSet in(mdp.num_states());
    in.set();
    in.reset(n);
    StateSet rows(mdp.num_choices());
    rows.set();
    const graph::EndComponents expected = textbook_end_components(mdp, in, rows);
    EXPECT_EQ(expected.count, (n / 2 + 6) / 7);  // the loops at 7, 14, ... below n/2, and {n+1, n+2}
    for (graph::SearchKind kind : {graph::SearchKind::reference, graph::SearchKind::cpu_parallel}) {
      SCOPED_TRACE(testing::Message() << "n = " << n << ", " << graph::to_string(kind));
      const graph::EndComponents actual = graph::maximal_end_components(mdp, in, rows, kind);
      EXPECT_EQ(actual.count, expected.count);
      EXPECT_EQ(actual.component_of, expected.component_of);
      EXPECT_EQ(actual.internal_rows, expected.internal_rows);
    }
  }
}

// The rows of the states in some component.
StateSet rows_of_members(const SparseMdp& mdp, const graph::EndComponents& components) {
  StateSet rows(mdp.num_choices());
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    if (components.component_of[s] == graph::EndComponents::kNone) continue;
    for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) rows.set(r);
  }
  return rows;
}

// The end components among the candidates alone (end_component_candidates: members of
// SCCs of two or more states, single states with a row back to themselves only) are
// those among all the states, with the same internal rows of their states, on random
// MDPs and sets (odd sizes, one state; sets
// from sparse to full; rows from half to all enabled), the SCCs from either backend;
// and on a small MDP whose single-state SCCs hold two end components and a state with
// a self-loop that is none.
TEST(EndComponents, AmongTheCandidatesAreThoseAmongAllStates) {
  std::uint64_t pruned = 0;
  for (std::uint32_t n : {1u, 31u, 33u, 1025u, 20011u}) {
    SparseMdp mdp = test::random_mdp(n, n + 5);
    for (std::uint32_t seed = 0; seed < 4; ++seed) {
      const StateSet states = test::random_set(n, 0.4 + 0.2 * seed, seed + 3);
      const StateSet rows = test::random_set(mdp.num_choices(), 0.5 + 0.15 * seed, seed + 13);
      const graph::EndComponents expected = graph::maximal_end_components(mdp, states, rows, graph::SearchKind::reference);
      for (graph::SearchKind kind : {graph::SearchKind::reference, graph::SearchKind::cpu_parallel}) {
        SCOPED_TRACE(testing::Message() << "n = " << n << ", seed " << seed << ", " << graph::to_string(kind));
        const StateSet candidates = graph::end_component_candidates(mdp, states, graph::maybe_state_sccs(kind, mdp, states), rows);
        ASSERT_TRUE(candidates.is_subset_of(states));
        pruned += states.count() - candidates.count();
        const graph::EndComponents actual = graph::maximal_end_components(mdp, candidates, rows, graph::SearchKind::reference);
        EXPECT_EQ(actual.count, expected.count);
        EXPECT_EQ(actual.component_of, expected.component_of);
        // (Rows of states outside the set searched are left as given: compare the
        // members' rows, which is all a collapse reads.)
        const StateSet members_rows = rows_of_members(mdp, expected);
        EXPECT_EQ(actual.internal_rows & members_rows, expected.internal_rows & members_rows);
      }
    }
  }
  EXPECT_GT(pruned, 0u);  // the candidates leave states out
  // 0: a self-loop alone, or on to 1; 1: on to 2; 2: back to itself or on to 3 in one
  // row (a self-loop, no end component); 3: a self-loop alone.
  const SparseMdp small = test::make_mdp({{{{0, 1.0}}, {{1, 1.0}}}, {{{2, 1.0}}}, {{{2, 0.5}, {3, 0.5}}}, {{{3, 1.0}}}}, {});
  StateSet all(4), rows(small.num_choices());
  all.set();
  rows.set();
  const StateSet candidates =
      graph::end_component_candidates(small, all, graph::maybe_state_sccs(graph::SearchKind::reference, small, all), rows);
  EXPECT_EQ(candidates.count(), 2u);
  EXPECT_TRUE(candidates.test(0) && candidates.test(3));
  EXPECT_EQ(graph::maximal_end_components(small, candidates, rows).count, 2u);
}

// Over every row, the candidates' first labelling taken from the decomposition that
// found them gives the same end components as labelling them afresh.
TEST(EndComponents, FirstLabelsFromTheDecompositionAreThoseFoundAfresh) {
  for (std::uint32_t n : {1u, 31u, 33u, 1025u, 20011u}) {
    const SparseMdp mdp = test::random_mdp(n, n + 5);
    const std::unique_ptr<graph::SearchBackend> search = graph::make_search_backend(mdp, graph::SearchKind::cpu_parallel);
    for (std::uint32_t seed = 0; seed < 3; ++seed) {
      SCOPED_TRACE(testing::Message() << "n = " << n << ", seed " << seed);
      const StateSet states = test::random_set(n, 0.5 + 0.2 * seed, seed + 7);
      const StateSet rows = all_states(mdp.num_choices());
      const graph::SccDecomposition sccs = graph::maybe_state_sccs(*search, mdp, states);
      const StateSet candidates = graph::end_component_candidates(mdp, states, sccs, rows);
      const std::vector<std::uint32_t> given = graph::scc_labels_within(sccs, candidates, n);
      // The same partition of the candidates as a fresh labelling, nothing outside them.
      const std::vector<std::uint32_t> fresh = graph::scc_labels(graph::SearchKind::reference, mdp, candidates, &rows);
      for (std::uint32_t s = 0; s < n; ++s) {
        ASSERT_EQ(given[s] == graph::EndComponents::kNone, !candidates.test(s)) << "state " << s;
        for (std::uint32_t t : {0u, s / 2, n - 1}) {
          if (candidates.test(s) && candidates.test(t)) ASSERT_EQ(given[s] == given[t], fresh[s] == fresh[t]) << s << ", " << t;
        }
      }
      const graph::EndComponents expected = graph::maximal_end_components(*search, candidates, rows);
      const graph::EndComponents actual = graph::maximal_end_components(*search, candidates, rows, given);
      EXPECT_EQ(actual.count, expected.count);
      EXPECT_EQ(actual.component_of, expected.component_of);
      EXPECT_EQ(actual.internal_rows, expected.internal_rows);
    }
  }
}

// While remembering is on, a decomposition over every row of the backend's model is
// kept and given again, array for array, to the next call for the same states; not for
// other states, other rows, another model, or with remembering off (then kept as it
// is, for the last property, which takes it rather than a copy); and forgotten where
// making room (make_room_for) needs its memory, not where even that would not do.
TEST(MaybeStateSccs, RememberedForTheSameStatesOnly) {
  for (std::uint32_t n : {1u, 33u, 4099u}) {
    SCOPED_TRACE(testing::Message() << "n = " << n);
    const SparseMdp mdp = test::random_mdp(n, n + 3);
    const std::unique_ptr<graph::SearchBackend> search = graph::make_search_backend(mdp, graph::SearchKind::cpu_parallel);
    const StateSet states = test::random_set(n, 0.6, n), others = test::random_set(n, 0.4, n + 1);
    const graph::SccDecomposition fresh = graph::maybe_state_sccs(graph::SearchKind::reference, mdp, states);
    graph::maybe_state_sccs(*search, mdp, states);
    EXPECT_EQ(search->remembered_sccs(states), nullptr) << "remembering is off";
    search->remember_sccs_while(true);
    const graph::SccDecomposition first = graph::maybe_state_sccs(*search, mdp, states);
    ASSERT_NE(search->remembered_sccs(states), nullptr);
    EXPECT_EQ(search->remembered_sccs(others), nullptr);
    const graph::SccDecomposition again = graph::maybe_state_sccs(*search, mdp, states);
    EXPECT_EQ(again.order, first.order);
    EXPECT_EQ(again.scc_starts, first.scc_starts);
    EXPECT_EQ(again.level_starts, first.level_starts);
    EXPECT_EQ(again.num_sccs(), fresh.num_sccs());
    const StateSet rows = all_states(mdp.num_choices());
    graph::maybe_state_sccs(*search, mdp, others, &rows);
    EXPECT_NE(search->remembered_sccs(states), nullptr) << "a decomposition over given rows is not kept";
    const SparseMdp copy = mdp;
    graph::maybe_state_sccs(*search, copy, others);
    EXPECT_EQ(search->remembered_sccs(others), nullptr) << "nor one of another model";
    graph::maybe_state_sccs(*search, mdp, others);
    EXPECT_NE(search->remembered_sccs(others), nullptr);
    EXPECT_EQ(search->remembered_sccs(states), nullptr) << "one at a time: the last";
    graph::make_room_for(*search, ~std::uint64_t{0}, "a test");
    EXPECT_NE(search->remembered_sccs(others), nullptr) << "forgetting would not make the room";
    EXPECT_TRUE(graph::forgetting_sccs_makes_room(60, 100, 20));
    EXPECT_FALSE(graph::forgetting_sccs_makes_room(50, 100, 20)) << "room without forgetting";
    EXPECT_FALSE(graph::forgetting_sccs_makes_room(61, 100, 20)) << "no room even so";
    EXPECT_FALSE(graph::forgetting_sccs_makes_room(60, 100, 0)) << "nothing remembered";
    search->forget_sccs();
    search->remember_sccs_while(true);
    graph::maybe_state_sccs(*search, mdp, states);
    search->remember_sccs_while(false);
    EXPECT_NE(search->remembered_sccs(states), nullptr) << "still there for the last property";
    graph::maybe_state_sccs(*search, mdp, others);
    EXPECT_NE(search->remembered_sccs(states), nullptr) << "and not replaced while not remembering";
    const graph::SccDecomposition last = graph::maybe_state_sccs(*search, mdp, states);
    EXPECT_EQ(last.order, first.order);
    EXPECT_EQ(last.scc_starts, first.scc_starts);
    EXPECT_EQ(search->remembered_sccs(states), nullptr) << "the last property takes it, no copy left behind";
  }
}

// A kept decomposition gives back the decomposition it was made of, copied or taken:
// none, single states only, an SCC of many states between single ones, and SCCs past
// a 64-bit word of the start bits.
TEST(KeptSccs, GiveBackTheirDecomposition) {
  std::vector<graph::SccDecomposition> cases(4);
  cases[0].scc_starts = {0};
  cases[1].order = {5, 3, 9};
  cases[1].scc_starts = {0, 1, 2, 3};
  cases[1].level_starts = {0, 2, 3};
  cases[2].order = {7, 1, 2, 3, 0};
  cases[2].scc_starts = {0, 1, 4, 5};
  cases[2].level_starts = {0, 1, 2, 3};
  for (std::uint32_t s = 0; s < 200; ++s) cases[3].order.push_back(199 - s);
  for (std::uint64_t start = 0; start < 200; start += 1 + start % 7) cases[3].scc_starts.push_back(start);
  cases[3].scc_starts.push_back(200);
  cases[3].level_starts = {0, cases[3].scc_starts.size() - 1};
  for (std::size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE(testing::Message() << "case " << c);
    graph::KeptSccs kept = graph::KeptSccs::copy_of(cases[c]);
    const graph::SccDecomposition copy = kept.copy();
    const graph::SccDecomposition taken = std::move(kept).take();
    for (const graph::SccDecomposition* back : {&copy, &taken}) {
      EXPECT_EQ(back->order, cases[c].order);
      EXPECT_EQ(back->scc_starts, cases[c].scc_starts);
      EXPECT_EQ(back->level_starts, cases[c].level_starts);
    }
  }
}

// Maximal end components from the parallel partition against those from Tarjan's: the
// same components (up to their numbering) and the same internal rows.
TEST(ParallelSccs, EndComponentsAreEquivalentToRef) {
  for (std::uint32_t n : {1u, 31u, 33u, 1025u, 20011u}) {
    SparseMdp mdp = test::random_mdp(n, n + 9);
    for (std::uint32_t seed = 0; seed < 3; ++seed) {
      StateSet states = test::random_set(n, 0.8, seed);
      StateSet rows = test::random_set(mdp.num_choices(), 0.5 + 0.2 * seed, seed + 7);
      auto expected = graph::maximal_end_components(mdp, states, rows, graph::SearchKind::reference);
      auto actual = graph::maximal_end_components(mdp, states, rows, graph::SearchKind::cpu_parallel);
      ASSERT_EQ(actual.count, expected.count) << "n = " << n;
      EXPECT_EQ(actual.internal_rows, expected.internal_rows) << "n = " << n;
      std::vector<std::uint32_t> same(expected.count, graph::EndComponents::kNone);
      for (std::uint32_t s = 0; s < n; ++s) {
        ASSERT_EQ(actual.component_of[s] == graph::EndComponents::kNone, expected.component_of[s] == graph::EndComponents::kNone);
        if (expected.component_of[s] == graph::EndComponents::kNone) continue;
        std::uint32_t& mapped = same[expected.component_of[s]];
        if (mapped == graph::EndComponents::kNone) mapped = actual.component_of[s];
        EXPECT_EQ(actual.component_of[s], mapped) << "state " << s;
      }
    }
  }
}

// Selections and running sums against plain loops: empty, one index, sizes around a
// block's and many blocks' worth, more blocks than kept indices, none kept and all kept.
TEST(ParallelSelectAndSums, AreEquivalentToRef) {
  std::mt19937 rng(11);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{32767}, std::size_t{32768},
                        std::size_t{100003}, (std::size_t{1} << 20) + 3}) {
    for (unsigned one_in : {0u, 1u, 2u, 1000u}) {  // 0: none kept
      std::vector<std::uint8_t> kept(n);
      for (auto& k : kept) k = one_in != 0 && rng() % one_in == 0;
      std::vector<std::uint32_t> ref;
      for (std::size_t i = 0; i < n; ++i) {
        if (kept[i]) ref.push_back(static_cast<std::uint32_t>(3 * i + 1));
      }
      EXPECT_EQ(graph::parallel_select(
                    n, [&](std::size_t i) { return kept[i] != 0; },
                    [](std::size_t i) { return static_cast<std::uint32_t>(3 * i + 1); }),
                ref)
          << n << " indices, one in " << one_in;
    }
  }
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{32769}, (std::size_t{1} << 20) + 3}) {
    std::vector<std::uint64_t> values(n), ref(n);
    for (auto& v : values) v = rng() % 5;
    std::partial_sum(values.begin(), values.end(), ref.begin());
    parallel_running_totals(values.data(), n);
    EXPECT_EQ(values, ref) << n << " values";
  }
  for (std::size_t words : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{40000}}) {
    for (unsigned one_in : {0u, 1u, 3u, 5000u}) {  // 0: no bit set
      std::vector<std::uint64_t> bits(words, 0);
      std::vector<std::uint32_t> ref;
      for (std::size_t i = 0; i < words * 64; ++i) {
        if (one_in != 0 && rng() % one_in == 0) bits[i / 64] |= std::uint64_t{1} << (i % 64), ref.push_back(static_cast<std::uint32_t>(i));
      }
      EXPECT_EQ(graph::parallel_set_bits(bits.data(), words), ref) << words << " words, one bit in " << one_in;
    }
  }
  const std::vector<std::uint32_t> from = {9, 2, 7, 4, 4, 1};
  EXPECT_EQ(graph::parallel_select_from(from, [](std::uint32_t v) { return v % 2 == 0; }),
            (std::vector<std::uint32_t>{2, 4, 4}));
}

}  // namespace
}  // namespace mdpvi
