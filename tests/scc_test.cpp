#include "graph/scc.h"
#include "test_models.h"

#include <gtest/gtest.h>

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

TEST(MaybeStateSccs, AreExactAndSuccessorsFirst) {
  std::mt19937 rng(7);
  for (int round = 0; round < 40; ++round) {
    const std::uint32_t n = 1 + round % 23;
    SparseMdp mdp = random_mdp(rng, n);
    StateSet maybe(n);
    for (std::uint32_t s = 0; s < n; ++s) maybe[s] = (rng() % 4) != 0;
    graph::SccDecomposition sccs = graph::maybe_state_sccs(mdp, maybe);
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

TEST(MaybeStateSccs, NoMaybeStatesGiveNoSccs) {
  SparseMdp mdp = test::knuth_yao_die();
  graph::SccDecomposition sccs = graph::maybe_state_sccs(mdp, StateSet(mdp.num_states()));
  EXPECT_EQ(sccs.num_sccs(), 0u);
  EXPECT_TRUE(sccs.order.empty());
}

}  // namespace
}  // namespace mdpvi
