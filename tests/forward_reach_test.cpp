// graph::forward_reachable on all cores against the sequential reference: random MDPs
// with one-choice and 40-choice states, rows longer than a warp, self-loops and long
// chains (levels of one state and levels wide enough to run in parallel), odd sizes down
// to one state, empty and dense starting sets; and the cap on the states reached.
#include "graph/forward_reach.h"
#include "random_mdps.h"
#include "test_models.h"

#include <gtest/gtest.h>

namespace mdpvi {
namespace {

// n states, each to the next, the last to itself: from state k, n - k are reached.
SparseMdp chain(std::uint32_t n) {
  std::vector<test::StateChoices> states(n);
  for (std::uint32_t s = 0; s < n; ++s) states[s] = {{{s + 1 < n ? s + 1 : s, 1.0}}};
  return test::make_mdp(states, {});
}

void expect_same(const SparseMdp& mdp, const StateSet& from, const std::string& what) {
  const std::optional<StateSet> all = graph::forward_reachable_reference(mdp, from, mdp.num_states());
  ASSERT_TRUE(all) << what;
  const std::optional<StateSet> got = graph::forward_reachable(mdp, from, mdp.num_states());
  ASSERT_TRUE(got) << what;
  EXPECT_EQ(*got, *all) << what;
  EXPECT_TRUE(from.is_subset_of(*got)) << what;
  const std::uint64_t count = all->count();
  EXPECT_EQ(graph::forward_reachable(mdp, from, count), all) << what << ": as many as allowed";
  if (count > 0) {
    EXPECT_FALSE(graph::forward_reachable(mdp, from, count - 1)) << what << ": one more than allowed";
    EXPECT_FALSE(graph::forward_reachable_reference(mdp, from, count - 1)) << what;
  }
}

TEST(ForwardReach, IsEquivalentToRef) {
  for (std::uint32_t n : {1u, 2u, 33u, 2049u, 20011u}) {
    const SparseMdp mdp = test::random_mdp(n, n);
    for (double p : {0.0, 0.0005, 0.3}) {
      expect_same(mdp, test::random_set(n, p, n + 1), "random, n " + std::to_string(n) + ", p " + std::to_string(p));
    }
    StateSet one(n);
    one.set(n - 1);  // the random part (or the only state)
    expect_same(mdp, one, "random, n " + std::to_string(n) + ", the last state");
  }
  const SparseMdp long_chain = chain(3001);
  for (std::uint32_t k : {0u, 1500u, 3000u}) {
    StateSet from(3001);
    from.set(k);
    expect_same(long_chain, from, "chain from " + std::to_string(k));
  }
}

TEST(ForwardReach, AChainReachesWhatFollows) {
  const SparseMdp long_chain = chain(1000);
  StateSet from(1000);
  from.set(990);
  const std::optional<StateSet> reached = graph::forward_reachable(long_chain, from, 1000);
  ASSERT_TRUE(reached);
  EXPECT_EQ(reached->count(), 10u);
  EXPECT_TRUE(reached->test(999));
  EXPECT_FALSE(reached->test(989));
}

}  // namespace
}  // namespace mdpvi
