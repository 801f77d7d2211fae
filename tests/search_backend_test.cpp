// Every backend of the qualitative searches (graph/search_backend.h) against the Boost
// reference: each search, each of Prob0A/0E/1A/1E, the SCCs and the end components,
// on generated MDPs of odd sizes (tests/random_mdps.h), and whole properties of the
// reference instances. The GPU
// backend runs where there is a device and is skipped elsewhere.
#include "graph/end_components.h"
#include "graph/parallel_scc.h"
#include "graph/qualitative.h"
#include "graph/reference_search.h"
#include "graph/scc.h"
#include "graph/search_backend.h"
#include "gpu/device_solver.h"
#include "random_mdps.h"
#include "reference_instances.h"
#include "test_models.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>

namespace mdpvi {
namespace {

using graph::SearchKind;

const std::uint32_t kSizes[] = {1u, 31u, 33u, 1025u, 20011u};

// States with many rows, 300 and 70,000 (a row's index within its state past one byte
// and past two, for encodings that keep it); the rest random.
SparseMdp mdp_with_wide_groups(std::uint32_t n) {
  std::mt19937 rng(n);
  std::vector<test::StateChoices> states(n);
  for (std::uint32_t s = 0; s < n; ++s) {
    const std::uint32_t rows = s == 1 ? 300 : s == 2 ? 70000 : 1 + rng() % 3;
    for (std::uint32_t r = 0; r < rows; ++r) {
      const std::uint32_t a = rng() % n, b = rng() % n;
      states[s].push_back(a == b ? test::Choice{{a, 1.0}} : test::Choice{{a, 0.5}, {b, 0.5}});
    }
  }
  return test::make_mdp(states, {});
}

class SearchIsEquivalentToRef : public ::testing::TestWithParam<SearchKind> {
 protected:
  void SetUp() override {
    if (GetParam() == SearchKind::gpu && !gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  }

  // Calls check(reference, backend, mdp, n, seed) for every generated MDP; a CPU
  // backend over the predecessor graph's rows in 4 bytes and in 8 (the width of models
  // of 2^32 choices or more), the reference over 4.
  template <typename Check>
  void for_each_mdp(Check check) {
    const bool host = GetParam() != SearchKind::gpu;
    for (std::uint32_t n : {kSizes[0], kSizes[1], kSizes[2], kSizes[3], kSizes[4], 41u}) {
      SparseMdp mdp = n == 41u ? mdp_with_wide_groups(n) : test::random_mdp(n, n);
      graph::ChoicePredecessorGraph g = graph::build_choice_predecessor_graph(mdp);
      ASSERT_FALSE(g.rows.wide());
      graph::ReferenceSearch reference(mdp, g);
      for (graph::RowIdWidth width : {graph::RowIdWidth::narrow, graph::RowIdWidth::wide}) {
        if (width == graph::RowIdWidth::wide && !host) continue;
        graph::ChoicePredecessorGraph backend_graph = graph::build_choice_predecessor_graph(mdp, width);
        std::unique_ptr<graph::SearchBackend> backend = graph::make_search_backend(mdp, backend_graph, GetParam());
        ASSERT_EQ(backend->kind(), GetParam());
        SCOPED_TRACE(width == graph::RowIdWidth::wide ? "rows in 8 bytes" : "rows in 4 bytes");
        check(reference, *backend, mdp, n);
      }
    }
  }
};

TEST_P(SearchIsEquivalentToRef, BackwardExists) {
  for_each_mdp([](const auto& reference, const auto& backend, const SparseMdp& mdp, std::uint32_t n) {
    for (std::uint32_t seed = 0; seed < 4; ++seed) {
      StateSet allowed = test::random_set(n, 0.9, seed);
      StateSet sources = test::random_set(n, 0.02, seed + 10) & allowed;
      StateSet rows = test::random_set(mdp.num_choices(), 0.8, seed + 20);
      EXPECT_EQ(backend.backward_exists(sources, allowed, nullptr), reference.backward_exists(sources, allowed, nullptr))
          << "n = " << n;
      EXPECT_EQ(backend.backward_exists(sources, allowed, &rows), reference.backward_exists(sources, allowed, &rows))
          << "n = " << n << ", with rows";
    }
  });
}

TEST_P(SearchIsEquivalentToRef, BackwardForall) {
  for_each_mdp([](const auto& reference, const auto& backend, const SparseMdp&, std::uint32_t n) {
    for (std::uint32_t seed = 0; seed < 4; ++seed) {
      StateSet allowed = test::random_set(n, 0.9, seed);
      StateSet sources = test::random_set(n, 0.3, seed + 10);
      EXPECT_EQ(backend.backward_forall(sources, allowed), reference.backward_forall(sources, allowed)) << "n = " << n;
    }
  });
}

// A backend with a predecessor graph of its own answers the same after releasing it
// (for a solve's memory) as before: the next search makes it again.
TEST_P(SearchIsEquivalentToRef, SearchesAfterReleasingTheirMemory) {
  for (std::uint32_t n : kSizes) {
    const SparseMdp mdp = test::random_mdp(n, n + 3);
    std::unique_ptr<graph::SearchBackend> backend = graph::make_search_backend(mdp, GetParam());
    const StateSet allowed = test::random_set(n, 0.9, 1), sources = test::random_set(n, 0.05, 2) & allowed;
    const StateSet exists = backend->backward_exists(sources, allowed, nullptr);
    const StateSet forall = backend->backward_forall(sources, allowed);
    backend->release_search_memory();
    EXPECT_EQ(backend->backward_exists(sources, allowed, nullptr), exists) << "n = " << n;
    backend->release_search_memory();
    EXPECT_EQ(backend->backward_forall(sources, allowed), forall) << "n = " << n;
    backend->release_search_memory();
    const StateSet inside = test::random_set(n, 0.7, 3);
    const graph::ChoicePredecessorGraph g = graph::build_choice_predecessor_graph(mdp);
    EXPECT_EQ(backend->rows_staying_in(inside), graph::ReferenceSearch(mdp, g).rows_staying_in(inside)) << "n = " << n;
  }
}

TEST_P(SearchIsEquivalentToRef, RowsStayingIn) {
  for_each_mdp([](const auto& reference, const auto& backend, const SparseMdp&, std::uint32_t n) {
    for (std::uint32_t seed = 0; seed < 4; ++seed) {
      StateSet inside = test::random_set(n, 0.5 + 0.15 * seed, seed);
      EXPECT_EQ(backend.rows_staying_in(inside), reference.rows_staying_in(inside)) << "n = " << n;
    }
  });
}

TEST_P(SearchIsEquivalentToRef, Prob0AndProb1) {
  for_each_mdp([](const auto& reference, const auto& backend, const SparseMdp&, std::uint32_t n) {
    for (std::uint32_t seed = 0; seed < 4; ++seed) {
      StateSet phi = test::random_set(n, 0.95, seed);
      StateSet psi = test::random_set(n, 0.01, seed + 30);
      for (auto partition : {&graph::partition_for_min, &graph::partition_for_max}) {
        graph::QualitativePartition expected = partition(reference, phi, psi);
        graph::QualitativePartition actual = partition(backend, phi, psi);
        EXPECT_EQ(actual.yes, expected.yes) << "n = " << n;
        EXPECT_EQ(actual.no, expected.no) << "n = " << n;
        EXPECT_EQ(actual.maybe, expected.maybe) << "n = " << n;
      }
    }
  });
}

// An MDP whose Prob1E takes a round per rung: rung i's one row goes to the target
// (state 0) or to rung i-1 by halves, and rung 1's to a dead end (state 1), so each
// round drops the next rung; every third rung has a second row, into the target's
// side of a detour of two states, which keeps it and the rungs above it. Then
// random rows on top of some rungs (several rows, rows longer than a warp).
SparseMdp ladder_mdp(std::uint32_t rungs, std::uint32_t seed) {
  std::mt19937 rng(seed);
  const std::uint32_t n = rungs + 4;  // 0 target, 1 dead end, 2 and 3 the detour, rungs from 4
  std::vector<test::StateChoices> states(n);
  states[0] = {test::Choice{{0, 1.0}}};
  states[1] = {test::Choice{{1, 1.0}}};
  states[2] = {test::Choice{{3, 0.5}, {0, 0.5}}};
  states[3] = {test::Choice{{2, 1.0}}};
  for (std::uint32_t i = 0; i < rungs; ++i) {
    const std::uint32_t s = 4 + i, below = i == 0 ? 1 : s - 1;
    states[s].push_back(test::Choice{{below, 0.5}, {0, 0.5}});
    if (i % 3 == 2 && seed % 2 == 1) states[s].push_back(test::Choice{{2, 1.0}});
    if (rng() % 17 == 0) {
      test::Choice wide;
      for (std::uint32_t k = 0; k < 40; ++k) wide.push_back({static_cast<std::uint32_t>(rng() % n), 1.0 / 40});
      states[s].push_back(wide);
    }
  }
  return test::make_mdp(states, {});
}

// Prob1E's rounds (SearchBackend::stay_and_reach) against the reference's rounds of
// searches: on the generated MDPs with sets of every density, and on ladders that take
// a round per rung (up to 3,000 rounds), with and without detours that stop the fall.
TEST_P(SearchIsEquivalentToRef, StayAndReach) {
  for_each_mdp([](const auto& reference, const auto& backend, const SparseMdp&, std::uint32_t n) {
    for (std::uint32_t seed = 0; seed < 6; ++seed) {
      const StateSet allowed = test::random_set(n, 0.7 + 0.05 * seed, seed);
      const StateSet targets = test::random_set(n, 0.005 + 0.03 * seed, seed + 40) & allowed;
      const StateSet inside = test::random_set(n, 0.6 + 0.08 * seed, seed + 80) | targets;
      EXPECT_EQ(backend.stay_and_reach(targets, allowed, inside), reference.stay_and_reach(targets, allowed, inside))
          << "n = " << n << ", seed " << seed;
    }
  });
  // Small MDPs of 1 to 3 rows of 1 to 3 successors with a few targets, where rounds
  // drop states that others reached through, which then need other ways.
  for (std::uint32_t seed = 0; seed < 3000; ++seed) {
    std::mt19937 rng(seed);
    const std::uint32_t n = 2 + seed % 60;
    const SparseMdp mdp = test::small_random_mdp(n, false, rng);
    const graph::ChoicePredecessorGraph g = graph::build_choice_predecessor_graph(mdp);
    const graph::ReferenceSearch reference(mdp, g);
    std::unique_ptr<graph::SearchBackend> backend = graph::make_search_backend(mdp, g, GetParam());
    StateSet targets(n), every(n);
    targets.set(rng() % n);
    every.set();
    const StateSet inside = ~graph::prob0a(reference, every, targets);
    ASSERT_EQ(backend->stay_and_reach(targets, every, inside), reference.stay_and_reach(targets, every, inside))
        << "small MDP " << seed;
  }
  for (std::uint32_t rungs : {0u, 1u, 2u, 33u, 3000u}) {
    for (std::uint32_t seed : {0u, 1u, 2u, 3u}) {
      const SparseMdp mdp = ladder_mdp(rungs, seed);
      const std::uint32_t n = mdp.num_states();
      const graph::ChoicePredecessorGraph g = graph::build_choice_predecessor_graph(mdp);
      const graph::ReferenceSearch reference(mdp, g);
      std::unique_ptr<graph::SearchBackend> backend = graph::make_search_backend(mdp, g, GetParam());
      StateSet targets(n), every(n);
      targets.set(0);
      every.set();
      const StateSet inside = ~graph::prob0a(reference, every, targets);
      EXPECT_EQ(backend->stay_and_reach(targets, every, inside), reference.stay_and_reach(targets, every, inside))
          << rungs << " rungs, seed " << seed;
    }
  }
}

// Per state, the smallest state of its SCC (UINT32_MAX outside): equal for two
// decompositions exactly when they are the same partition.
std::vector<std::uint32_t> smallest_in_scc(const graph::SccDecomposition& sccs, std::uint32_t n) {
  std::vector<std::uint32_t> smallest(n, UINT32_MAX);
  for (std::size_t c = 0; c < sccs.num_sccs(); ++c) {
    const std::uint32_t least = *std::min_element(sccs.order.begin() + sccs.scc_starts[c], sccs.order.begin() + sccs.scc_starts[c + 1]);
    for (auto i = sccs.scc_starts[c]; i < sccs.scc_starts[c + 1]; ++i) smallest[sccs.order[i]] = least;
  }
  return smallest;
}

// The levels are the heights in the SCC DAG: every edge leaving an SCC of level h goes
// to a level below h, and some edge of each SCC above level 0 to level h-1.
void expect_levels_are_heights(const graph::SccDecomposition& sccs, const SparseMdp& mdp, const StateSet* rows,
                               const std::string& where) {
  if (sccs.num_sccs() == 0) return;
  ASSERT_GE(sccs.level_starts.size(), 2u) << where;
  EXPECT_EQ(sccs.level_starts.front(), 0u) << where;
  EXPECT_EQ(sccs.level_starts.back(), sccs.num_sccs()) << where;
  std::vector<std::uint32_t> scc_of(mdp.num_states(), UINT32_MAX), level_of(sccs.num_sccs());
  for (std::size_t h = 0; h + 1 < sccs.level_starts.size(); ++h) {
    for (auto c = sccs.level_starts[h]; c < sccs.level_starts[h + 1]; ++c) level_of[c] = static_cast<std::uint32_t>(h);
  }
  for (std::size_t c = 0; c < sccs.num_sccs(); ++c) {
    for (auto i = sccs.scc_starts[c]; i < sccs.scc_starts[c + 1]; ++i) scc_of[sccs.order[i]] = static_cast<std::uint32_t>(c);
  }
  for (std::size_t c = 0; c < sccs.num_sccs(); ++c) {
    bool reaches_level_below = level_of[c] == 0;
    for (auto i = sccs.scc_starts[c]; i < sccs.scc_starts[c + 1]; ++i) {
      const std::uint32_t s = sccs.order[i];
      for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
        if (rows && !rows->test(r)) continue;
        for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
          const std::uint32_t d = scc_of[mdp.columns[k]];
          if (d == UINT32_MAX || d == c) continue;
          ASSERT_LT(level_of[d], level_of[c]) << where << ": SCC " << c;
          reaches_level_below = reaches_level_below || level_of[d] + 1 == level_of[c];
        }
      }
    }
    EXPECT_TRUE(reaches_level_below) << where << ": SCC " << c << " is not at its height";
  }
}

// The same partition as Boost's Tarjan, and the order of the oneTBB decomposition
// exactly (an order by height in the SCC DAG, ties by largest state), which
// tests/scc_test.cpp checks is topological.
void expect_sccs_equivalent(const graph::SearchBackend& backend, const SparseMdp& mdp, const StateSet& maybe,
                            const StateSet* rows, const std::string& where) {
  const graph::SccDecomposition actual = graph::maybe_state_sccs(backend, mdp, maybe, rows);
  const graph::SccDecomposition reference = graph::maybe_state_sccs(mdp, maybe, rows);
  const graph::SccDecomposition parallel = graph::parallel_maybe_state_sccs(mdp, maybe, rows);
  EXPECT_STREQ(actual.ran_on, graph::to_string(backend.kind())) << where;
  EXPECT_EQ(smallest_in_scc(actual, mdp.num_states()), smallest_in_scc(reference, mdp.num_states())) << where;
  EXPECT_EQ(actual.order, parallel.order) << where;
  EXPECT_EQ(actual.scc_starts, parallel.scc_starts) << where;
  EXPECT_EQ(actual.level_starts, parallel.level_starts) << where;
  expect_levels_are_heights(actual, mdp, rows, where);
  expect_levels_are_heights(reference, mdp, rows, where + " (reference)");
  EXPECT_EQ(reference.level_starts.size(), parallel.level_starts.size()) << where;
}

TEST_P(SearchIsEquivalentToRef, Sccs) {
  for_each_mdp([](const auto&, const auto& backend, const SparseMdp& mdp, std::uint32_t n) {
    for (std::uint32_t seed = 0; seed < 4; ++seed) {
      StateSet maybe = test::random_set(n, 0.6 + 0.1 * seed, seed);
      StateSet rows = test::random_set(mdp.num_choices(), 0.5 + 0.15 * seed, seed + 40);
      expect_sccs_equivalent(backend, mdp, maybe, nullptr, "n = " + std::to_string(n));
      expect_sccs_equivalent(backend, mdp, maybe, &rows, "n = " + std::to_string(n) + ", with rows");
    }
  });
}

// A DAG 5000 levels deep (trimming and the heights go a level at a time), a cycle at
// its end, and states outside the set in the middle.
TEST_P(SearchIsEquivalentToRef, SccsOfALongChain) {
  const std::uint32_t n = 5003;
  SparseMdp mdp;
  mdp.row_group_starts.push_back(0);
  mdp.row_starts.push_back(0);
  for (std::uint32_t s = 0; s < n; ++s) {
    const std::uint32_t next = s + 1 < n ? s + 1 : n - 3;  // the last three states: a cycle
    mdp.columns.insert(mdp.columns.end(), {next, s});       // a self-loop beside
    mdp.values.plain().insert(mdp.values.plain().end(), {0.5, 0.5});
    mdp.row_starts.push_back(mdp.columns.size());
    mdp.row_group_starts.push_back(mdp.row_starts.size() - 1);
  }
  graph::ChoicePredecessorGraph g = graph::build_choice_predecessor_graph(mdp);
  std::unique_ptr<graph::SearchBackend> backend = graph::make_search_backend(mdp, g, GetParam());
  StateSet maybe = all_states(n);
  expect_sccs_equivalent(*backend, mdp, maybe, nullptr, "the whole chain");
  maybe.reset(2500);
  expect_sccs_equivalent(*backend, mdp, maybe, nullptr, "the chain cut");
}

// A cycle thousands of levels deep, with one state on it fanning out to 200,000 states
// that lead back onto it: the searches' levels go by in batches (gpu/graph_device.cuh)
// that have grown long when a level's frontier bursts from one state to 200,000, and
// end within a batch.
TEST_P(SearchIsEquivalentToRef, SearchesWhoseFrontiersBurstAfterThousandsOfLevels) {
  const std::uint32_t cycle = 3001, fan = 200'003, burst_at = 2000, n = cycle + fan;
  SparseMdp mdp;
  mdp.row_group_starts.push_back(0);
  mdp.row_starts.push_back(0);
  for (std::uint32_t s = 0; s < n; ++s) {
    if (s < cycle) mdp.columns.push_back((s + 1) % cycle);
    if (s == burst_at) {
      for (std::uint32_t f = cycle; f < n; ++f) mdp.columns.push_back(f);
    }
    if (s >= cycle) mdp.columns.push_back(burst_at + 1);
    const std::size_t entries = mdp.columns.size() - mdp.row_starts.back();
    for (std::size_t k = 0; k < entries; ++k) mdp.values.push_back(1.0 / static_cast<double>(entries));
    mdp.row_starts.push_back(mdp.columns.size());
    mdp.row_group_starts.push_back(mdp.row_starts.size() - 1);
  }
  graph::ChoicePredecessorGraph g = graph::build_choice_predecessor_graph(mdp);
  graph::ReferenceSearch reference(mdp, g);
  std::unique_ptr<graph::SearchBackend> backend = graph::make_search_backend(mdp, g, GetParam());
  const StateSet everything = all_states(n);
  expect_sccs_equivalent(*backend, mdp, everything, nullptr, "one SCC");
  StateSet cut = everything;
  cut.reset(500);  // the cycle broken: a DAG thousands of levels deep, and the burst on it
  expect_sccs_equivalent(*backend, mdp, cut, nullptr, "the cycle cut");
  StateSet sources(n);
  sources.set(100);
  EXPECT_EQ(backend->backward_exists(sources, everything, nullptr), reference.backward_exists(sources, everything, nullptr));
  EXPECT_EQ(backend->backward_exists(sources, cut, nullptr), reference.backward_exists(sources, cut, nullptr));
  EXPECT_EQ(backend->backward_forall(sources, cut), reference.backward_forall(sources, cut));
  // States 0 to 100, 501 to the end of the cycle (500 is cut), and the fan.
  EXPECT_EQ(backend->backward_forall(sources, cut).count(), 101 + (cycle - 501) + fan);
}

// A wide DAG of single states, about 40 levels of thousands: enough SCCs for the
// parallel ordering to sort them in several blocks, whose order must still be the
// serial one (within a level, increasing state numbers).
TEST_P(SearchIsEquivalentToRef, SccsOfAWideDag) {
  const std::uint32_t n = 300'007, jump = n / 40;
  SparseMdp mdp;
  mdp.row_group_starts.push_back(0);
  mdp.row_starts.push_back(0);
  for (std::uint32_t s = 0; s < n; ++s) {
    const std::uint32_t a = s + jump + s % 89, b = s + jump + (s * 31) % 1000;
    if (std::max(a, b) < n && a != b) {
      mdp.columns.insert(mdp.columns.end(), {std::min(a, b), std::max(a, b)});
      mdp.values.plain().insert(mdp.values.plain().end(), {0.5, 0.5});
    } else {
      mdp.columns.push_back(s);
      mdp.values.push_back(1.0);
    }
    mdp.row_starts.push_back(mdp.columns.size());
    mdp.row_group_starts.push_back(mdp.row_starts.size() - 1);
  }
  graph::ChoicePredecessorGraph g = graph::build_choice_predecessor_graph(mdp);
  std::unique_ptr<graph::SearchBackend> backend = graph::make_search_backend(mdp, g, GetParam());
  const StateSet maybe = all_states(n);
  expect_sccs_equivalent(*backend, mdp, maybe, nullptr, "the wide DAG");
  const graph::SccDecomposition sccs = graph::maybe_state_sccs(*backend, mdp, maybe, nullptr);
  ASSERT_EQ(sccs.num_sccs(), n);
  ASSERT_GT(sccs.level_starts.size(), 30u);
  for (std::size_t h = 0; h + 1 < sccs.level_starts.size(); ++h) {
    for (std::uint64_t c = sccs.level_starts[h] + 1; c < sccs.level_starts[h + 1]; ++c) {
      ASSERT_LT(sccs.order[c - 1], sccs.order[c]) << "level " << h;
    }
  }
}

TEST_P(SearchIsEquivalentToRef, EndComponents) {
  for_each_mdp([](const auto&, const auto& backend, const SparseMdp& mdp, std::uint32_t n) {
    for (std::uint32_t seed = 0; seed < 3; ++seed) {
      StateSet states = test::random_set(n, 0.8, seed);
      StateSet rows = test::random_set(mdp.num_choices(), 0.5 + 0.2 * seed, seed + 7);
      const graph::EndComponents expected = graph::maximal_end_components(mdp, states, rows, SearchKind::reference);
      const graph::EndComponents actual = graph::maximal_end_components(backend, states, rows);
      ASSERT_EQ(actual.count, expected.count) << "n = " << n;
      EXPECT_EQ(actual.internal_rows, expected.internal_rows) << "n = " << n;
      // The same components: numbered in the same order (by first state) by both.
      EXPECT_EQ(actual.component_of, expected.component_of) << "n = " << n;
    }
  });
}

// Every property of every reference instance: the same yes/no/maybe counts, the same
// number of SCCs, and the same value, to the bit, as with the reference searches.
TEST_P(SearchIsEquivalentToRef, ReferenceInstances) {
  if (!test::have_shared()) GTEST_SKIP();
  for (const auto& [name, instance] : test::reference().items()) {
    pipeline::CheckOptions options = test::reference_check(instance);
    options.device.solver = SolverKind::cpu;
    options.search = SearchKind::reference;
    pipeline::CheckReport expected = pipeline::run_check(options);
    options.search = GetParam();
    pipeline::CheckReport actual = pipeline::run_check(options);
    ASSERT_EQ(actual.properties.size(), expected.properties.size());
    for (std::size_t i = 0; i < actual.properties.size(); ++i) {
      const auto& a = actual.properties[i];
      const auto& e = expected.properties[i];
      ASSERT_EQ(a.error, e.error) << name << ": " << a.property;
      if (!e.computation) continue;
      ASSERT_TRUE(a.computation);
      EXPECT_EQ(a.computation->qualitative.yes, e.computation->qualitative.yes) << name << ": " << a.property;
      EXPECT_EQ(a.computation->qualitative.no, e.computation->qualitative.no) << name << ": " << a.property;
      EXPECT_EQ(a.computation->qualitative.maybe, e.computation->qualitative.maybe) << name << ": " << a.property;
      EXPECT_EQ(a.computation->qualitative.ran_on, graph::to_string(GetParam()));
      EXPECT_EQ(a.computation->sccs.num_sccs, e.computation->sccs.num_sccs) << name << ": " << a.property;
      if (!e.computation->sccs.ran_on.empty()) {  // the property had SCCs to find (or an earlier one's here)
        const std::string& on = a.computation->sccs.ran_on;
        EXPECT_TRUE(on == graph::to_string(GetParam()) || on == "remembered") << name << ": " << a.property << ": " << on;
      }
      EXPECT_EQ(a.value->number, e.value->number) << name << ": " << a.property;
      EXPECT_EQ(a.value->truth, e.value->truth) << name << ": " << a.property;
    }
  }
}

// A search that counts its releases.
class CountingSearch : public graph::SearchBackend {
 public:
  CountingSearch(const SparseMdp& mdp, const graph::ChoicePredecessorGraph& g) : inner_(mdp, g) {}
  SearchKind kind() const override { return SearchKind::cpu_parallel; }
  const SparseMdp& mdp() const override { return inner_.mdp(); }
  void release_search_memory() const override { ++releases; }
  StateSet backward_exists(const StateSet& s, const StateSet& a, const StateSet* r) const override {
    return inner_.backward_exists(s, a, r);
  }
  StateSet backward_forall(const StateSet& s, const StateSet& a) const override { return inner_.backward_forall(s, a); }
  StateSet rows_staying_in(const StateSet& inside) const override { return inner_.rows_staying_in(inside); }
  mutable int releases = 0;

 private:
  graph::ReferenceSearch inner_;
};

// make_room_for frees the searches' memory only for work that may take more than half
// of what is unused.
TEST(MakeRoomFor, ReleasesOnlyPastHalfTheUnusedMemory) {
  const SparseMdp mdp = test::random_mdp(101, 104);
  const graph::ChoicePredecessorGraph g = graph::build_choice_predecessor_graph(mdp);
  const CountingSearch search(mdp, g);
  graph::make_room_for(search, 0, "nothing");
  EXPECT_EQ(search.releases, 0);
  graph::make_room_for(search, std::numeric_limits<std::uint64_t>::max(), "everything");
  EXPECT_EQ(search.releases, 1);
}

// Only the last property's SCCs and system release the searches' memory: while the
// pipeline says more follow, the graph stays for them.
TEST(ReleaseForTheLastProperty, ReleasesOnlyWhenNoPropertyFollows) {
  const SparseMdp mdp = test::random_mdp(101, 104);
  const graph::ChoicePredecessorGraph g = graph::build_choice_predecessor_graph(mdp);
  const CountingSearch search(mdp, g);
  search.remember_sccs_while(true);
  graph::release_for_the_last_property(search);
  EXPECT_EQ(search.releases, 0);
  const StateSet maybe = test::random_set(101, 0.5, 7);
  const graph::SccDecomposition kept = graph::maybe_state_sccs(search, mdp, maybe);
  EXPECT_EQ(search.releases, 0) << "a small model's SCCs with a property to follow";
  search.remember_sccs_while(false);
  graph::release_for_the_last_property(search);
  EXPECT_EQ(search.releases, 1);
  const graph::SccDecomposition last = graph::maybe_state_sccs(search, mdp, ~maybe);
  EXPECT_EQ(search.releases, 2) << "the last property's SCCs on the cores";
}

INSTANTIATE_TEST_SUITE_P(Backends, SearchIsEquivalentToRef, ::testing::Values(SearchKind::cpu_parallel, SearchKind::gpu),
                         [](const auto& info) { return std::string(info.param == SearchKind::gpu ? "gpu" : "cpu_parallel"); });

}  // namespace
}  // namespace mdpvi
