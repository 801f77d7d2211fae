#include "graph/qualitative.h"
#include "graph/search_backend.h"
#include "gpu/device_solver.h"
#include "gpu/graph_search.h"
#include "random_mdps.h"
#include "search_backends.h"
#include "test_models.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace mdpvi {
namespace {

using test::make_mdp;
using test::states_of;

// 0: a -> 1, b -> 2            Pmax 1 (via b), Pmin 0 (via b, then stay in 2)
// 1: -> 4 (1/2), 3 (1/2)      1/2 either way
// 2: a -> 2, b -> 4           Pmax 1, Pmin 0 (stay forever)
// 3: fail, absorbing; 4: goal, absorbing; 5: absorbing, never reaches the goal
// 6: a -> 4, b -> 7/4         Pmin 1: every choice gets there
// 7: -> 4
SparseMdp crafted() {
  return make_mdp({{{{1, 1.0}}, {{2, 1.0}}},
                   {{{4, 0.5}, {3, 0.5}}},
                   {{{2, 1.0}}, {{4, 1.0}}},
                   {{{3, 1.0}}},
                   {{{4, 1.0}}},
                   {{{5, 1.0}}},
                   {{{4, 1.0}}, {{7, 0.5}, {4, 0.5}}},
                   {{{4, 1.0}}}},
                  {{"goal", {4}}});
}

// Each test on every backend of the searches (the GPU's where there is a device).
class QualitativeTest : public ::testing::TestWithParam<graph::SearchKind> {
 protected:
  void SetUp() override {
    if (GetParam() == graph::SearchKind::gpu && !gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
    search = graph::make_search_backend(mdp, g, GetParam());
  }
  SparseMdp mdp = crafted();
  graph::ChoicePredecessorGraph g = graph::build_choice_predecessor_graph(mdp);
  std::unique_ptr<graph::SearchBackend> search;
  StateSet all = ~StateSet(8);
  StateSet goal = states_of(8, {4});
};

TEST_P(QualitativeTest, Prob0AHoldsWhereNoPathReachesTheGoal) {
  EXPECT_EQ(graph::prob0a(*search, all, goal), states_of(8, {3, 5}));
}

TEST_P(QualitativeTest, Prob1EFindsASchedulerThatSurelyReaches) {
  StateSet no = graph::prob0a(*search, all, goal);
  EXPECT_EQ(graph::prob1e(*search, all, goal, no), states_of(8, {0, 2, 4, 6, 7}));
}

TEST_P(QualitativeTest, Prob0EIncludesStatesThatCanStayAwayForever) {
  EXPECT_EQ(graph::prob0e(*search, all, goal), states_of(8, {0, 2, 3, 5}));
}

TEST_P(QualitativeTest, Prob1AHoldsOnlyWhereEverySchedulerReaches) {
  StateSet no = graph::prob0e(*search, all, goal);
  EXPECT_EQ(graph::prob1a(*search, all, goal, no), states_of(8, {4, 6, 7}));
}

TEST_P(QualitativeTest, LeavingPhiCountsAsFailure) {
  StateSet phi = ~states_of(8, {2});  // paths through state 2 no longer count
  StateSet no = graph::prob0a(*search, phi, goal);
  EXPECT_EQ(no, states_of(8, {2, 3, 5}));
  EXPECT_EQ(graph::prob1e(*search, phi, goal, no), states_of(8, {4, 6, 7}));
}

TEST_P(QualitativeTest, PartitionsCoverEveryStateOnce) {
  for (auto partition : {graph::partition_for_min(*search, all, goal), graph::partition_for_max(*search, all, goal)}) {
    EXPECT_TRUE((partition.yes & partition.no).none());
    EXPECT_EQ((partition.yes | partition.no | partition.maybe).count(), 8u);
    EXPECT_EQ(partition.maybe, states_of(8, {1}));
  }
}

// A self-loop keeps a state inside "states with a choice whose successors all have
// Pmax = 1" without ever reaching the goal: Prob1E must not be fooled by it.
TEST_P(QualitativeTest, SelfLoopAloneDoesNotMakeProbabilityOne) {
  SparseMdp loop = make_mdp({{{{0, 1.0}}, {{1, 0.5}, {2, 0.5}}}, {{{1, 1.0}}}, {{{2, 1.0}}}}, {{"goal", {1}}});
  auto loop_graph = graph::build_choice_predecessor_graph(loop);
  auto backend = graph::make_search_backend(loop, loop_graph, GetParam());
  StateSet every = ~StateSet(3);
  StateSet target = states_of(3, {1});
  EXPECT_EQ(graph::prob1e(*backend, every, target, graph::prob0a(*backend, every, target)), states_of(3, {1}));
}

// The predecessor graph lists, for each state t, every row with t as a successor once
// per entry (a row with t twice, twice), with each row's owner: in 4 bytes and in 8,
// on odd sizes with empty groups, self-loops and rows longer than a warp.
TEST(ChoicePredecessorGraph, ListsEveryEntryOfEveryRowInEitherWidth) {
  for (std::uint32_t n : {1u, 33u, 1025u}) {
    const SparseMdp mdp = test::random_mdp(n, n + 7);
    std::vector<std::vector<std::uint64_t>> expected(n);
    for (std::uint64_t r = 0; r < mdp.num_choices(); ++r) {
      for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) expected[mdp.columns[k]].push_back(r);
    }
    for (graph::RowIdWidth width : {graph::RowIdWidth::narrow, graph::RowIdWidth::wide, graph::RowIdWidth::automatic}) {
      const graph::ChoicePredecessorGraph g = graph::build_choice_predecessor_graph(mdp, width);
      EXPECT_EQ(g.rows.wide(), width == graph::RowIdWidth::wide);
      ASSERT_EQ(g.offsets.size(), n + 1u);
      for (std::uint32_t t = 0; t < n; ++t) {
        std::vector<std::uint64_t> listed;
        for (std::uint64_t e = g.offsets[t]; e < g.offsets[t + 1]; ++e) listed.push_back(g.rows[e]);
        std::sort(listed.begin(), listed.end());
        EXPECT_EQ(listed, expected[t]) << "n = " << n << ", state " << t;
      }
      for (std::uint32_t s = 0; s < n; ++s) {
        for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) ASSERT_EQ(g.owner(r), s);
      }
      EXPECT_EQ(g.bytes(), (n + 1u) * 8u + mdp.num_transitions() * (g.rows.wide() ? 8u : 4u) + mdp.num_choices() * 4u);
    }
  }
}

// The device numbers states and rows as one 32-bit vertex range; a model past it is
// searched on all cores (graph/search_backend.cpp), never on a wrapped number.
TEST(ChoicePredecessorGraph, TheDeviceGraphTakesOnlyModelsItCanNumber) {
  EXPECT_TRUE(gpu::graph_vertices_fit(1, 1));
  EXPECT_TRUE(gpu::graph_vertices_fit(167'700'000, 679'000'000));            // leader9
  EXPECT_FALSE(gpu::graph_vertices_fit(1'516'496'449, 6'771'413'040));      // leader10
  EXPECT_TRUE(gpu::graph_vertices_fit(std::uint64_t{1} << 31, (std::uint64_t{1} << 31) - 2));
  EXPECT_FALSE(gpu::graph_vertices_fit(std::uint64_t{1} << 31, (std::uint64_t{1} << 31) - 1));
}

INSTANTIATE_TEST_SUITE_P(Backends, QualitativeTest, test::every_search_backend(), test::search_backend_name);

}  // namespace
}  // namespace mdpvi
