// E/A [ F G phi ] and [ G F phi ] (engine/check/ctl.h) against a brute-force reference
// that looks for cycles state by state, on sparse random graphs with deadlocks,
// self-loops, chains and back edges; on each search backend (the GPU's where there
// is a device). And the parser's reading of the four forms.
#include "engine/check/ctl.h"
#include "gpu/device_solver.h"
#include "graph/search_backend.h"
#include "io/property_parser.h"
#include "random_mdps.h"
#include "search_backends.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace mdpvi {
namespace {

// Mostly forward edges, so that cycles are few: each state has 0 (a deadlock), 1 or 2
// rows of 1 or 2 successors; every fifth state a back edge, every seventh a self-loop.
SparseMdp sparse_graph(std::uint32_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  SparseMdp mdp;
  mdp.row_group_starts.push_back(0);
  mdp.row_starts.push_back(0);
  for (std::uint32_t s = 0; s < n; ++s) {
    const std::uint32_t rows = s % 9 == 4 ? 0 : 1 + rng() % 2;
    for (std::uint32_t r = 0; r < rows; ++r) {
      const std::uint32_t length = 1 + rng() % 2;
      for (std::uint32_t k = 0; k < length; ++k) {
        std::uint32_t t = s + 1 + rng() % 4;
        if (s % 5 == 0 && k == 0) t = rng() % (s + 1);  // back
        if (s % 7 == 3 && r == 0 && k == 0) t = s;      // self-loop
        mdp.columns.push_back(std::min(t, n - 1));
        mdp.values.push_back(1.0 / length);
      }
      mdp.row_starts.push_back(mdp.columns.size());
    }
    mdp.row_group_starts.push_back(mdp.row_starts.size() - 1);
  }
  return mdp;
}

// Successor lists over all rows.
std::vector<std::vector<std::uint32_t>> successors(const SparseMdp& mdp) {
  std::vector<std::vector<std::uint32_t>> next(mdp.num_states());
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    for (std::uint64_t k = mdp.row_starts[mdp.row_group_starts[s]]; k < mdp.row_starts[mdp.row_group_starts[s + 1]]; ++k) {
      next[s].push_back(mdp.columns[k]);
    }
  }
  return next;
}

// The states reached from `from` in one step or more, through states in `within` only
// (every state reached must be in it).
std::vector<bool> reached_from(const std::vector<std::vector<std::uint32_t>>& next, std::uint32_t from,
                               const std::vector<bool>& within) {
  std::vector<bool> seen(next.size(), false);
  std::vector<std::uint32_t> stack{from};
  while (!stack.empty()) {
    const std::uint32_t s = stack.back();
    stack.pop_back();
    for (std::uint32_t t : next[s]) {
      if (!within[t] || seen[t]) continue;
      seen[t] = true;
      stack.push_back(t);
    }
  }
  return seen;
}

StateSet from_flags(const std::vector<bool>& flags) {
  StateSet set(flags.size());
  for (std::size_t s = 0; s < flags.size(); ++s) set[s] = flags[s];
  return set;
}

// E F G phi: some phi state on a cycle inside phi, reached inside phi from a phi state
// that any state reaches (in zero steps or more).
StateSet reference_eventually_always(const SparseMdp& mdp, const StateSet& phi) {
  const auto next = successors(mdp);
  const std::uint32_t n = mdp.num_states();
  std::vector<bool> in_phi(n), all(n, true), on_cycle(n, false), stays(n, false), holds(n, false);
  for (std::uint32_t s = 0; s < n; ++s) in_phi[s] = phi.test(s);
  for (std::uint32_t s = 0; s < n; ++s) on_cycle[s] = in_phi[s] && reached_from(next, s, in_phi)[s];
  for (std::uint32_t s = 0; s < n; ++s) {
    if (!in_phi[s]) continue;
    const auto seen = reached_from(next, s, in_phi);
    for (std::uint32_t t = 0; t < n; ++t) stays[s] = stays[s] || ((seen[t] || t == s) && on_cycle[t]);
  }
  for (std::uint32_t s = 0; s < n; ++s) {
    const auto seen = reached_from(next, s, all);
    for (std::uint32_t t = 0; t < n; ++t) holds[s] = holds[s] || ((seen[t] || t == s) && stays[t]);
  }
  return from_flags(holds);
}

// E G F phi: a phi state on a cycle (through any states) that the state reaches.
StateSet reference_always_eventually(const SparseMdp& mdp, const StateSet& phi) {
  const auto next = successors(mdp);
  const std::uint32_t n = mdp.num_states();
  std::vector<bool> all(n, true), good(n, false), holds(n, false);
  for (std::uint32_t s = 0; s < n; ++s) good[s] = phi.test(s) && reached_from(next, s, all)[s];
  for (std::uint32_t s = 0; s < n; ++s) {
    const auto seen = reached_from(next, s, all);
    for (std::uint32_t t = 0; t < n; ++t) holds[s] = holds[s] || ((seen[t] || t == s) && good[t]);
  }
  return from_flags(holds);
}

class InfinitelyOftenIsEquivalentToRef : public ::testing::TestWithParam<graph::SearchKind> {
 protected:
  void SetUp() override {
    if (GetParam() == graph::SearchKind::gpu && !gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_P(InfinitelyOftenIsEquivalentToRef, OnSparseGraphs) {
  for (std::uint32_t n : {1u, 2u, 33u, 151u}) {
    for (std::uint32_t seed = 0; seed < 6; ++seed) {
      const SparseMdp mdp = sparse_graph(n, seed);
      const std::unique_ptr<graph::SearchBackend> search = graph::make_search_backend(mdp, GetParam());
      const StateSet phi = test::random_set(n, 0.3 + 0.1 * seed, seed);
      EXPECT_EQ(exists_eventually_always(mdp, *search, phi), reference_eventually_always(mdp, phi))
          << "n = " << n << ", seed " << seed;
      EXPECT_EQ(exists_always_eventually(mdp, *search, phi), reference_always_eventually(mdp, phi))
          << "n = " << n << ", seed " << seed;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, InfinitelyOftenIsEquivalentToRef, test::every_search_backend(), test::search_backend_name);

// E reads F G and G F as they are; A as the complement of E over the negated operand.
TEST(InfinitelyOftenPaths, ParseAsEOrTheComplementOfE) {
  using Path = TemporalOperator::Path;
  struct Case {
    const char* text;
    Path path;
    bool complement;
  };
  for (const Case& c : {Case{"E [ F G \"a\" ]", Path::eventually_always, false},
                        Case{"E [ G F \"a\" ]", Path::always_eventually, false},
                        Case{"A [ F G \"a\" ]", Path::always_eventually, true},
                        Case{"A [ G F \"a\" ]", Path::eventually_always, true}}) {
    const io::PropertyEntry entry = io::parse_property(c.text, "p");
    ASSERT_TRUE(entry.formula) << c.text << ": " << entry.error;
    EXPECT_EQ(entry.formula->temporal.path, c.path) << c.text;
    EXPECT_EQ(entry.formula->temporal.complement, c.complement) << c.text;
  }
  for (const char* text : {"P=? [ G F \"a\" ]", "E [ F F \"a\" ]", "A [ G X \"a\" ]", "E [ F<=3 G \"a\" ]"}) {
    const io::PropertyEntry entry = io::parse_property(text, "p");  // LTL (engine/check/ltl.h)
    ASSERT_TRUE(entry.formula) << text << ": " << entry.error;
    EXPECT_EQ(entry.formula->temporal.path, Path::ltl) << text;
  }
}

}  // namespace
}  // namespace mdpvi
