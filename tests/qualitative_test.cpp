#include "graph/qualitative.h"
#include "test_models.h"

#include <gtest/gtest.h>

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

class QualitativeTest : public ::testing::Test {
 protected:
  SparseMdp mdp = crafted();
  graph::ChoicePredecessorGraph g = graph::build_choice_predecessor_graph(mdp);
  StateSet all = ~StateSet(8);
  StateSet goal = states_of(8, {4});
};

TEST_F(QualitativeTest, Prob0AHoldsWhereNoPathReachesTheGoal) {
  EXPECT_EQ(graph::prob0a(g, all, goal), states_of(8, {3, 5}));
}

TEST_F(QualitativeTest, Prob1EFindsASchedulerThatSurelyReaches) {
  StateSet no = graph::prob0a(g, all, goal);
  EXPECT_EQ(graph::prob1e(g, mdp, all, goal, no), states_of(8, {0, 2, 4, 6, 7}));
}

TEST_F(QualitativeTest, Prob0EIncludesStatesThatCanStayAwayForever) {
  EXPECT_EQ(graph::prob0e(g, mdp, all, goal), states_of(8, {0, 2, 3, 5}));
}

TEST_F(QualitativeTest, Prob1AHoldsOnlyWhereEverySchedulerReaches) {
  StateSet no = graph::prob0e(g, mdp, all, goal);
  EXPECT_EQ(graph::prob1a(g, all, goal, no), states_of(8, {4, 6, 7}));
}

TEST_F(QualitativeTest, LeavingPhiCountsAsFailure) {
  StateSet phi = ~states_of(8, {2});  // paths through state 2 no longer count
  StateSet no = graph::prob0a(g, phi, goal);
  EXPECT_EQ(no, states_of(8, {2, 3, 5}));
  EXPECT_EQ(graph::prob1e(g, mdp, phi, goal, no), states_of(8, {4, 6, 7}));
}

TEST_F(QualitativeTest, PartitionsCoverEveryStateOnce) {
  for (auto partition : {graph::partition_for_min(mdp, g, all, goal), graph::partition_for_max(mdp, g, all, goal)}) {
    EXPECT_TRUE((partition.yes & partition.no).none());
    EXPECT_EQ((partition.yes | partition.no | partition.maybe).count(), 8u);
    EXPECT_EQ(partition.maybe, states_of(8, {1}));
  }
}

// A self-loop keeps a state inside "states with a choice whose successors all have
// Pmax = 1" without ever reaching the goal: Prob1E must not be fooled by it.
TEST(Prob1E, SelfLoopAloneDoesNotMakeProbabilityOne) {
  SparseMdp mdp = make_mdp({{{{0, 1.0}}, {{1, 0.5}, {2, 0.5}}}, {{{1, 1.0}}}, {{{2, 1.0}}}}, {{"goal", {1}}});
  auto g = graph::build_choice_predecessor_graph(mdp);
  StateSet all = ~StateSet(3);
  StateSet goal = states_of(3, {1});
  EXPECT_EQ(graph::prob1e(g, mdp, all, goal, graph::prob0a(g, all, goal)), states_of(3, {1}));
}

}  // namespace
}  // namespace mdpvi
