// Every backend of the qualitative searches (graph/search_backend.h) against the Boost
// reference: each search and each of Prob0A/0E/1A/1E, on generated MDPs of odd sizes
// (tests/random_mdps.h), and whole properties of the reference instances. The GPU
// backend runs where there is a device and is skipped elsewhere.
#include "graph/qualitative.h"
#include "graph/reference_search.h"
#include "graph/search_backend.h"
#include "gpu/device_solver.h"
#include "random_mdps.h"
#include "reference_instances.h"

#include <gtest/gtest.h>

namespace mdpvi {
namespace {

using graph::SearchKind;

const std::uint32_t kSizes[] = {1u, 31u, 33u, 1025u, 20011u};

class SearchIsEquivalentToRef : public ::testing::TestWithParam<SearchKind> {
 protected:
  void SetUp() override {
    if (GetParam() == SearchKind::gpu && !gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  }

  // Calls check(reference, backend, mdp, n, seed) for every generated MDP.
  template <typename Check>
  void for_each_mdp(Check check) {
    for (std::uint32_t n : kSizes) {
      SparseMdp mdp = test::random_mdp(n, n);
      graph::ChoicePredecessorGraph g = graph::build_choice_predecessor_graph(mdp);
      graph::ReferenceSearch reference(mdp, g);
      std::unique_ptr<graph::SearchBackend> backend = graph::make_search_backend(mdp, g, GetParam());
      ASSERT_EQ(backend->kind(), GetParam());
      check(reference, *backend, mdp, n);
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

// Every property of every reference instance: the same yes/no/maybe counts and the
// same value, to the bit, as with the reference searches.
TEST_P(SearchIsEquivalentToRef, ReferenceInstances) {
  if (!test::have_shared()) GTEST_SKIP();
  for (const auto& [name, instance] : test::reference().items()) {
    tools::CheckOptions options = test::reference_check(instance);
    options.device.solver = SolverKind::cpu;
    options.search = SearchKind::reference;
    tools::CheckReport expected = tools::run_check(options);
    options.search = GetParam();
    tools::CheckReport actual = tools::run_check(options);
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
      EXPECT_EQ(a.value->number, e.value->number) << name << ": " << a.property;
      EXPECT_EQ(a.value->truth, e.value->truth) << name << ": " << a.property;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, SearchIsEquivalentToRef, ::testing::Values(SearchKind::cpu_parallel, SearchKind::gpu),
                         [](const auto& info) { return std::string(info.param == SearchKind::gpu ? "gpu" : "cpu_parallel"); });

}  // namespace
}  // namespace mdpvi
