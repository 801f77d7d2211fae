// The maybe-state system built on the device from the graph searches' copy of the
// model (gpu/device_system.h), against the host's build_maybe_system; and the
// reachability solve that adopts it, against the same solve from the host's system.
// Skipped without a device.
#include "engine/check/reachability.h"
#include "engine/model/bit_words.h"
#include "engine/solve/maybe_system.h"
#include "gpu/allocation_faults.h"
#include "gpu/device_solver.h"
#include "gpu/graph_search.h"
#include "graph/qualitative.h"
#include "graph/search_backend.h"
#include "random_mdps.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <random>

namespace mdpvi {
namespace {

gpu::GraphArrays arrays_of(const SparseMdp& mdp) {
  return {mdp.num_states(), mdp.num_choices(), mdp.num_transitions(), mdp.row_group_starts.data(),
          mdp.row_starts.data(), mdp.columns.data()};
}

// The maybe-states in a shuffled order, each an SCC of its own (the builder takes
// any order; the host's build does too).
graph::SccDecomposition shuffled_order(const StateSet& maybe, std::uint32_t seed) {
  graph::SccDecomposition sccs;
  for (auto s = maybe.find_first(); s != StateSet::npos; s = maybe.find_next(s)) sccs.order.push_back(static_cast<std::uint32_t>(s));
  std::shuffle(sccs.order.begin(), sccs.order.end(), std::mt19937(seed));
  sccs.scc_starts.resize(sccs.order.size() + 1);
  std::iota(sccs.scc_starts.begin(), sccs.scc_starts.end(), std::uint64_t{0});
  return sccs;
}

std::uint64_t states_with_self_loops(const MaybeSystem& system) {
  std::uint64_t count = 0;
  for (std::uint32_t i = 0; i < system.num_states(); ++i) {
    bool found = false;
    for (std::uint64_t k = system.row_starts[system.row_group_starts[i]]; k < system.row_starts[system.row_group_starts[i + 1]]; ++k) {
      found = found || system.columns[k] == i;
    }
    count += found;
  }
  return count;
}

template <typename T, typename Vector>
std::vector<T> as_vector(const Vector& v) {
  return std::vector<T>(v.begin(), v.end());
}

// random_mdp's shapes: one-choice and 40-choice states, rows longer than a warp,
// self-loops, a long chain; odd sizes, one state, and no maybe-states at all.
TEST(DeviceSystem, BuiltOnTheDeviceIsEquivalentToRef) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  for (std::uint32_t n : {1u, 2u, 7u, 33u, 1000u, 4099u}) {
    for (double maybe_share : {0.0, 0.6, 1.0}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " maybe share " + std::to_string(maybe_share));
      const SparseMdp mdp = test::random_mdp(n, n + 11);
      graph::QualitativePartition partition;
      partition.yes = maybe_share == 1.0 ? StateSet(n) : test::random_set(n, 0.2, n + 1);
      partition.maybe = test::random_set(n, maybe_share, n + 2) - partition.yes;
      partition.no = ~(partition.yes | partition.maybe);
      const graph::SccDecomposition sccs = shuffled_order(partition.maybe, n);

      const MaybeSystem host = build_maybe_system(mdp, partition, sccs);
      auto graph = gpu::upload_graph(arrays_of(mdp));
      ASSERT_TRUE(graph);
      auto built = graph->maybe_system(mdp.values.data(), BitWords::of(partition.yes).data(), sccs.order.data(),
                                       static_cast<std::uint32_t>(sccs.order.size()));
      EXPECT_EQ(built->num_states(), host.num_states());
      EXPECT_EQ(built->num_rows(), host.num_rows());
      EXPECT_EQ(built->num_entries(), host.columns.size());
      EXPECT_EQ(built->self_loops(), states_with_self_loops(host));
      const gpu::HostSystemArrays device = built->download();
      EXPECT_EQ(device.row_group_starts, as_vector<std::uint64_t>(host.row_group_starts));
      EXPECT_EQ(device.row_starts, as_vector<std::uint64_t>(host.row_starts));
      EXPECT_EQ(device.columns, as_vector<std::uint32_t>(host.columns));
      EXPECT_EQ(device.values, as_vector<double>(host.values));
      EXPECT_EQ(device.row_constants, as_vector<double>(host.row_constants));  // summed in the same order
    }
  }
}

// An acyclic MDP: every row of state s leads to states above s (or to the goal, the
// last state, or the sink before it), with one- and many-choice states and rows longer
// than a warp, and a long chain: a deep level order.
SparseMdp acyclic_mdp(std::uint32_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  SparseMdp mdp;
  mdp.row_group_starts.push_back(0);
  mdp.row_starts.push_back(0);
  const std::uint32_t goal = n - 1, sink = n - 2;
  for (std::uint32_t s = 0; s < n; ++s) {
    const std::uint32_t rows = s >= sink ? 1 : s % 5 == 0 ? 1 : 1 + rng() % 4;
    for (std::uint32_t r = 0; r < rows; ++r) {
      if (s >= sink) {
        mdp.columns.push_back(s);
        mdp.values.push_back(1.0);
      } else {
        const std::uint32_t length = s % 61 == 3 && r == 0 ? 40 : 1 + rng() % 3;
        for (std::uint32_t k = 0; k < length; ++k) {
          const std::uint32_t above = n - 1 - s;
          mdp.columns.push_back(k == 0 && s % 3 != 0 ? s + 1 : s + 1 + rng() % above);
          mdp.values.push_back(1.0 / length);
        }
      }
      mdp.row_starts.push_back(mdp.columns.size());
    }
    mdp.row_group_starts.push_back(mdp.row_starts.size() - 1);
  }
  mdp.initial_states = {0};
  return mdp;
}

SolverOptions with_method(Method method) {
  SolverOptions options;
  options.method = method;
  options.stop.epsilon = 1e-10;
  options.stop.max_sweeps = default_max_sweeps(method);
  return options;
}

NumericResult until_goal(const SparseMdp& mdp, const graph::SearchBackend& search, Optimization direction,
                         Method method, SolverKind solver) {
  StateSet goal(mdp.num_states());
  goal.set(mdp.num_states() - 1);
  DeviceOptions device;
  device.solver = solver;
  device.schedule = DeviceSchedule::levels;  // small systems to the device too
  return compute_until_probabilities(mdp, search, direction, ~StateSet(mdp.num_states()), goal, with_method(method), device);
}

TEST(DeviceSystem, AcyclicSolveIsEquivalentToTheHostBuiltOne) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  for (std::uint32_t n : {3u, 130u, 5003u}) {
    const SparseMdp mdp = acyclic_mdp(n, n);
    std::optional<graph::ChoicePredecessorGraph> host_graph;
    auto gpu_search = graph::make_search_backend(mdp, graph::SearchKind::gpu, host_graph);
    ASSERT_NE(gpu_search->device_graph(), nullptr);
    auto g = graph::build_choice_predecessor_graph(mdp);
    auto cpu_search = graph::make_search_backend(mdp, g, graph::SearchKind::cpu_parallel);
    for (Method method : {Method::value_iteration, Method::interval_iteration, Method::optimistic_value_iteration}) {
      for (Optimization direction : {Optimization::minimize, Optimization::maximize}) {
        SCOPED_TRACE("n=" + std::to_string(n) + " " + to_string(method) + (direction == Optimization::minimize ? " min" : " max"));
        const NumericResult device = until_goal(mdp, *gpu_search, direction, method, SolverKind::gpu);
        const NumericResult host = until_goal(mdp, *cpu_search, direction, method, SolverKind::cpu);
        if (device.sccs.num_sccs > 0) {
          ASSERT_EQ(device.solve.chunks.size(), 1u);
          EXPECT_TRUE(device.solve.chunks[0].built_on_device);
          EXPECT_TRUE(device.lower.empty()) << "exact passes: the values are their own bounds";
        }
        ASSERT_EQ(device.values.size(), host.values.size());
        for (std::uint32_t s = 0; s < n; ++s) EXPECT_NEAR(device.values[s], host.values[s], 1e-12) << "state " << s;
      }
    }
  }
}

// Each allocation of the run failed in turn, and every one after it: the system is
// then built on the host (or solved again from one built there), same answer.
TEST(DeviceSystem, DeviceFailuresFallBackToTheHostBuild) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  const SparseMdp mdp = acyclic_mdp(2001, 5);
  auto g = graph::build_choice_predecessor_graph(mdp);
  auto cpu_search = graph::make_search_backend(mdp, g, graph::SearchKind::cpu_parallel);
  const NumericResult host = until_goal(mdp, *cpu_search, Optimization::minimize, Method::optimistic_value_iteration, SolverKind::cpu);
  std::optional<graph::ChoicePredecessorGraph> host_graph;
  auto gpu_search = graph::make_search_backend(mdp, graph::SearchKind::gpu, host_graph);
  gpu::restart_device_allocation_count();
  until_goal(mdp, *gpu_search, Optimization::minimize, Method::optimistic_value_iteration, SolverKind::gpu);
  const std::uint64_t allocations = gpu::device_allocations_counted();
  ASSERT_GT(allocations, 5u);
  for (std::uint64_t n = 1; n <= allocations; ++n) {
    SCOPED_TRACE("failing allocations from " + std::to_string(n) + " of " + std::to_string(allocations));
    gpu::restart_device_allocation_count();
    setenv(gpu::kFailDeviceAllocationsVariable, (std::to_string(n) + "-").c_str(), 1);
    NumericResult device;
    try {
      device = until_goal(mdp, *gpu_search, Optimization::minimize, Method::optimistic_value_iteration, SolverKind::gpu);
    } catch (const std::exception& error) {
      unsetenv(gpu::kFailDeviceAllocationsVariable);
      FAIL() << error.what();
    }
    unsetenv(gpu::kFailDeviceAllocationsVariable);
    for (std::uint32_t s = 0; s < mdp.num_states(); ++s) ASSERT_NEAR(device.values[s], host.values[s], 1e-12) << "state " << s;
  }
}

}  // namespace
}  // namespace mdpvi
