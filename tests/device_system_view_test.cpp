// A maybe-state system kept as a view over the resident model (gpu/device_system.h's
// SystemStorage::view) against the same system copied: the sweeps over both, bit for
// bit where they sum alike (one lane a state, or lanes over whole rows), rows whose b
// is infinite included, under a minimum and a maximum, with the model's row offsets
// in 4 bytes and in 8; the window sizes it counts; and the solve that adopts it.
// Skipped without a device.
#include "engine/check/reachability.h"
#include "engine/check/rewards.h"
#include "engine/model/bit_words.h"
#include "engine/solve/maybe_system.h"
#include "engine/solve/method_requirements.h"
#include "gpu/device_solver.h"
#include "gpu/graph_search.h"
#include "graph/qualitative.h"
#include "graph/search_backend.h"
#include "random_mdps.h"
#include "window_rows_cases.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <random>

namespace mdpvi {
namespace {

// narrow: the device's offsets in 4 bytes (the rows' first entries as every model of
// fewer than 2^32 entries has them, the states' first rows as every model on the
// device has them), else in 8.
gpu::GraphArrays arrays_of(const SparseMdp& mdp, bool narrow = true) {
  return {mdp.num_states(), mdp.num_choices(),    mdp.num_transitions(), &mdp.row_group_starts,
          &mdp.row_starts, mdp.columns.data(), narrow};
}

// The states of `states` in a shuffled order, as a system's solving order.
std::vector<std::uint32_t> shuffled(const StateSet& states, std::uint32_t seed) {
  std::vector<std::uint32_t> order;
  for (auto s = states.find_first(); s != StateSet::npos; s = states.find_next(s)) order.push_back(static_cast<std::uint32_t>(s));
  std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  return order;
}

// A model, a system of some of its states, and what b is made of: expected rewards
// with rewards on states and choices, 0 on the marked states and +infinity on the
// others outside, so that some rows have an infinite b (left out) and some states
// have nothing else.
struct ViewCase {
  SparseMdp mdp;
  RewardStructure rewards;
  StateSet marked;
  std::vector<std::uint32_t> order;

  explicit ViewCase(std::uint32_t n) : mdp(test::random_mdp(n, n + 1)), marked(test::random_set(n, 0.3, n + 2)) {
    compact_model(mdp);
    std::mt19937 rng(n);
    rewards.state_rewards.plain().resize(n);
    rewards.choice_rewards.plain().resize(mdp.num_choices());
    for (double& r : rewards.state_rewards.plain()) r = 0.5 * (rng() % 4);
    for (double& r : rewards.choice_rewards.plain()) r = rng() % 2 == 0 ? 0.0 : 0.25 * (rng() % 7);
    const StateSet outside = test::random_set(n, 0.15, n + 3);
    order = shuffled(~outside, n + 4);
  }

  std::unique_ptr<gpu::DeviceSystem> build(gpu::DeviceGraphSearch& graph, gpu::SystemStorage storage,
                                           const BitWords& marked_words) const {
    gpu::SystemInputs inputs;
    inputs.model_values = device_view(mdp.values);
    inputs.order = order.data();
    inputs.count = static_cast<std::uint32_t>(order.size());
    inputs.marked_words = marked_words.data();
    inputs.marked_value = 0.0;
    inputs.unmarked_value = std::numeric_limits<double>::infinity();
    inputs.state_rewards = device_view(rewards.state_rewards);
    inputs.choice_rewards = device_view(rewards.choice_rewards);
    inputs.storage = storage;
    return graph.maybe_system(inputs);
  }
};

// Three sweeps of value iteration from `start` on the system adopted, its own b.
std::vector<double> three_sweeps(gpu::DeviceSolver& device, gpu::DeviceSystem& system, const std::vector<double>& start,
                                 bool maximize, gpu::GroupShape shape) {
  const int ticket = device.adopt(system, shape);
  gpu::DeviceSolver::BoundInputs inputs;
  inputs.lower = start.data();
  inputs.own_b = true;
  device.bind(ticket, inputs);
  gpu::SweepSettings settings;
  settings.maximize = maximize;
  settings.fixed_sweeps = true;
  settings.max_sweeps = 3;
  device.iterate(ticket, nullptr, settings, nullptr);
  std::vector<double> result(start.size());
  device.read_bound(ticket, result.data(), nullptr);
  device.release(ticket);
  return result;
}

TEST(DeviceSystemView, SweepsAreEquivalentToTheCopy) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  auto device = gpu::open_device();
  ASSERT_TRUE(device);
  for (auto [n, narrow] : {std::pair{1u, true}, {7u, false}, {130u, true}, {4099u, true}, {4099u, false}}) {
    const ViewCase c(n);
    auto graph = gpu::upload_graph(arrays_of(c.mdp, narrow));
    ASSERT_TRUE(graph);
    const BitWords marked = BitWords::of(c.marked);
    std::mt19937 rng(n);
    std::vector<double> start(c.order.size());
    for (double& x : start) x = 0.125 * (rng() % 40);
    std::size_t infinite = 0;
    for (bool maximize : {false, true}) {
      for (gpu::GroupShape shape : {gpu::GroupShape{1, false}, gpu::GroupShape{4, true}, gpu::GroupShape{8, false}}) {
        SCOPED_TRACE("n=" + std::to_string(n) + (narrow ? " 4-byte" : " 8-byte") + " offsets" +
                     (maximize ? " max" : " min") + " lanes " + std::to_string(shape.lanes) +
                     (shape.over_rows ? " over rows" : ""));
        auto copy = c.build(*graph, gpu::SystemStorage::copy, marked);
        auto view = c.build(*graph, gpu::SystemStorage::view, marked);
        ASSERT_EQ(view->storage(), gpu::SystemStorage::view);
        EXPECT_EQ(view->num_rows(), copy->num_rows());
        EXPECT_EQ(view->num_entries(), copy->num_entries());
        EXPECT_EQ(view->self_loops(), copy->self_loops());
        const std::vector<double> expected = three_sweeps(*device, *copy, start, maximize, shape);
        const std::vector<double> swept = three_sweeps(*device, *view, start, maximize, shape);
        const bool same_sums = shape.lanes == 1 || shape.over_rows;
        for (std::size_t i = 0; i < expected.size(); ++i) {
          infinite += std::isinf(expected[i]);
          if (same_sums || std::isinf(expected[i])) {
            ASSERT_EQ(swept[i], expected[i]) << "local state " << i;
          } else {
            ASSERT_NEAR(swept[i], expected[i], 1e-12 * std::max(1.0, expected[i])) << "local state " << i;
          }
        }
      }
    }
    if (n > 100) {
      EXPECT_GT(infinite, 0u) << "some states have only rows into infinity";
    }
  }
}

// A view's windows: its states' model rows whole (empty, one state, odd ranges, the
// whole, past the end).
TEST(DeviceSystemView, WindowRowsAreTheModelRowsOfItsStates) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  const ViewCase c(4099);
  auto graph = gpu::upload_graph(arrays_of(c.mdp));
  ASSERT_TRUE(graph);
  const BitWords marked = BitWords::of(c.marked);
  auto view = c.build(*graph, gpu::SystemStorage::view, marked);
  auto device = gpu::open_device();
  ASSERT_TRUE(device);
  const int ticket = device->adopt(*view);
  const std::uint64_t m = c.order.size();
  for (auto [first, end] : test::odd_windows(m)) {
    SCOPED_TRACE("window [" + std::to_string(first) + ", " + std::to_string(end) + ")");
    gpu::WindowRows expected;
    for (std::uint64_t i = first; i < std::min(end, m); ++i) {
      const std::uint32_t s = c.order[i];
      ++expected.states;
      for (std::uint64_t r = c.mdp.row_group_starts[s]; r < c.mdp.row_group_starts[s + 1]; ++r) {
        const std::uint64_t length = c.mdp.row_starts[r + 1] - c.mdp.row_starts[r];
        ++expected.rows;
        expected.entries += length;
        expected.squares += static_cast<double>(length * length);
      }
    }
    test::expect_same_window_rows(device->window_rows(ticket, first, end, true), expected);
  }
  device->release(ticket);
}

// A system's build frees the predecessor arrays for its solve; the next searches make
// them again and find what they found before.
TEST(DeviceSystemView, SearchesAfterASystemMakeTheirPredecessorsAgain) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  const ViewCase c(4099);
  auto search = graph::make_search_backend(c.mdp, graph::SearchKind::gpu);
  ASSERT_NE(search->device_graph(), nullptr);
  const StateSet all = ~StateSet(c.mdp.num_states());
  const graph::QualitativePartition before = graph::partition_for_max(*search, all, c.marked);
  const BitWords marked = BitWords::of(c.marked);
  auto view = c.build(*search->device_graph(), gpu::SystemStorage::view, marked);
  for (int round = 0; round < 2; ++round) {
    const graph::QualitativePartition after = graph::partition_for_max(*search, all, c.marked);
    EXPECT_EQ(after.yes, before.yes);
    EXPECT_EQ(after.no, before.no);
    search->device_graph()->release_predecessors();
  }
}

TEST(DeviceSystemView, TakesNoBFromTheHost) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  const ViewCase c(130);
  auto graph = gpu::upload_graph(arrays_of(c.mdp));
  const BitWords marked = BitWords::of(c.marked);
  auto view = c.build(*graph, gpu::SystemStorage::view, marked);
  auto device = gpu::open_device();
  const int ticket = device->adopt(*view);
  std::vector<double> b(view->sizes().swept_rows, 0.0), x(c.order.size(), 0.0);
  EXPECT_THROW(device->iterate(ticket, b.data(), gpu::SweepSettings{}, x.data()), std::logic_error);
  device->release(ticket);
}

// The solve from a view, against the same from a copy: every method, both
// directions, probabilities and rewards; the sweeps pick their own lanes, so the two
// agree to well within the precision asked for.
TEST(DeviceSystemView, SolveIsEquivalentToTheCopys) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  std::size_t views = 0;
  for (std::uint32_t n : {37u, 4099u}) {
    const ViewCase c(n);
    StateSet goal = c.marked;
    goal.set(n - 1);
    auto search = graph::make_search_backend(c.mdp, graph::SearchKind::gpu);
    ASSERT_NE(search->device_graph(), nullptr);
    for (Method method : {Method::value_iteration, Method::interval_iteration, Method::optimistic_value_iteration}) {
      for (Optimization direction : {Optimization::minimize, Optimization::maximize}) {
        for (bool rewarded : {false, true}) {
          SCOPED_TRACE("n=" + std::to_string(n) + " " + to_string(method) + (direction == Optimization::minimize ? " min" : " max") +
                       (rewarded ? " reward" : " probability"));
          SolverOptions options;
          options.method = method;
          options.stop.epsilon = 1e-10;
          options.stop.max_sweeps = default_max_sweeps(method);
          const auto run = [&](gpu::SystemStorage storage) {
            DeviceOptions device;
            device.solver = SolverKind::gpu;
            device.schedule = DeviceSchedule::levels;
            device.system_storage = storage;
            return rewarded ? compute_reachability_reward(c.mdp, *search, direction, c.rewards, goal, options, device)
                            : compute_until_probabilities(c.mdp, *search, direction, ~StateSet(n), goal, options, device);
          };
          const NumericResult copy = run(gpu::SystemStorage::copy);
          const NumericResult view = run(gpu::SystemStorage::view);
          for (std::uint32_t s = 0; s < n; ++s) {
            if (std::isinf(copy.values[s])) {
              ASSERT_EQ(view.values[s], copy.values[s]) << "state " << s;
            } else {
              ASSERT_NEAR(view.values[s], copy.values[s], 1e-9 * std::max(1.0, copy.values[s])) << "state " << s;
            }
          }
          if (view.solve.chunks.size() == 1 && view.solve.chunks[0].built_on_device) {
            EXPECT_TRUE(view.solve.chunks[0].device_view);
            EXPECT_FALSE(copy.solve.chunks.at(0).device_view);
            ++views;
          }
        }
      }
    }
  }
  EXPECT_GE(views, 8u);
}

// Under a chunk budget the system is a view, solved whole where it and its vectors
// fit the budget, and built on the host and solved in chunks where they do not (a
// warning says so): the same answer, to well within the precision asked for.
// Minimum probabilities: nothing collapses end components, so the device builds it.
TEST(DeviceSystemView, ABudgetTakesAViewWhereItFits) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  const std::uint32_t n = 4099;
  const ViewCase c(n);
  StateSet goal = c.marked;
  goal.set(n - 1);
  auto search = graph::make_search_backend(c.mdp, graph::SearchKind::gpu);
  SolverOptions options;
  options.stop.epsilon = 1e-10;
  options.stop.max_sweeps = default_max_sweeps(options.method);
  const auto run = [&](std::size_t budget) {
    DeviceOptions device;
    device.solver = SolverKind::gpu;
    device.memory_limit_bytes = budget;
    return compute_until_probabilities(c.mdp, *search, Optimization::minimize, ~StateSet(n), goal, options, device);
  };
  const NumericResult whole = run(std::size_t{1} << 30);
  ASSERT_EQ(whole.solve.chunks.size(), 1u);
  EXPECT_TRUE(whole.solve.chunks[0].device_view);
  EXPECT_LE(whole.solve.chunks[0].footprint_bytes, std::size_t{1} << 30);
  const NumericResult chunked = run(whole.solve.chunks[0].footprint_bytes / 4);
  ASSERT_GT(chunked.solve.chunks.size(), 1u);
  for (const ChunkReport& chunk : chunked.solve.chunks) EXPECT_FALSE(chunk.built_on_device);
  for (std::uint32_t s = 0; s < n; ++s) {
    ASSERT_NEAR(chunked.values[s], whole.values[s], 1e-8) << "state " << s;
  }
}

}  // namespace
}  // namespace mdpvi
