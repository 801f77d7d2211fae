// The maybe-state system built on the device from the graph searches' copy of the
// model (gpu/device_system.h), against the host's build_maybe_system; and the
// reachability solve that adopts it, against the same solve from the host's system.
// Also the host's view of a system (maybe_system.h's SystemView) against its copy.
// The device's tests are skipped without a device.
#include "engine/solve/method_requirements.h"
#include "engine/check/reachability.h"
#include "engine/check/rewards.h"
#include "engine/model/bit_words.h"
#include "engine/solve/maybe_system.h"
#include "engine/solve/prepared_chunk.h"
#include "engine/pipeline/check_run.h"
#include "reference_instances.h"
#include "gpu/allocation_faults.h"
#include "gpu/device_solver.h"
#include "gpu/graph_search.h"
#include "graph/qualitative.h"
#include "graph/search_backend.h"
#include "random_mdps.h"
#include "system_cases.h"
#include "window_rows_cases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <random>

namespace mdpvi {
namespace {

using test::as_vector;
using test::in_form;
using test::random_rewards;
using test::shuffled_order;
using test::ValueForm;

gpu::GraphArrays arrays_of(const SparseMdp& mdp) {
  return {mdp.num_states(), mdp.num_choices(), mdp.num_transitions(), &mdp.row_group_starts,
          &mdp.row_starts, mdp.columns.data()};
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

void expect_same_system(const MaybeSystem& host, const gpu::DeviceSystem& built) {
  EXPECT_EQ(built.num_states(), host.num_states());
  EXPECT_EQ(built.num_rows(), host.num_rows());
  EXPECT_EQ(built.num_entries(), host.columns.size());
  EXPECT_EQ(built.self_loops(), states_with_self_loops(host));
  for (std::uint32_t i = 0; i < host.num_states(); ++i) {
    bool loops = false;
    for (std::uint64_t k = host.row_starts[host.row_group_starts[i]]; k < host.row_starts[host.row_group_starts[i + 1]]; ++k) {
      loops = loops || host.columns[k] == i;
    }
    ASSERT_EQ(built.has_self_loop(i), loops) << "local state " << i;
  }
  const gpu::HostSystemArrays device = built.download();
  EXPECT_EQ(device.row_group_starts, as_vector<std::uint64_t>(host.row_group_starts));
  EXPECT_EQ(device.row_starts, as_vector<std::uint64_t>(host.row_starts));
  EXPECT_EQ(device.columns, as_vector<std::uint32_t>(host.columns));
  EXPECT_EQ(device.values, as_vector(host.values));
  EXPECT_EQ(device.row_constants, as_vector<double>(host.row_constants));  // summed in the same order
}

// The rows and entries a system's sweeps read: a copy's own; a view's, the model's
// rows of its states whole.
void expect_swept_sizes(const SparseMdp& mdp, const graph::SccDecomposition& sccs, const gpu::DeviceSystem& built,
                        gpu::SystemStorage storage) {
  ASSERT_EQ(built.storage(), storage);
  std::uint64_t rows = built.num_rows(), entries = built.num_entries();
  if (storage == gpu::SystemStorage::view) {
    rows = entries = 0;
    for (std::uint32_t s : sccs.order) {
      rows += mdp.row_group_starts[s + 1] - mdp.row_group_starts[s];
      entries += mdp.row_starts[mdp.row_group_starts[s + 1]] - mdp.row_starts[mdp.row_group_starts[s]];
    }
  }
  EXPECT_EQ(built.sizes().swept_rows, rows);
  EXPECT_EQ(built.sizes().swept_entries, entries);
  // A view reads the model's offsets, 4 bytes each on the device for a model this small.
  EXPECT_EQ(built.sizes().swept_offset_bytes, storage == gpu::SystemStorage::view ? 4u : 8u);
}

// A system built on the host as_model keeps its model's form: an indexed model's
// indices and table, so 1 or 2 bytes an entry, not 8; plain (the default) doubles;
// the same values either way, bit for bit. Odd sizes, an empty system among them.
TEST(HostSystem, KeepsTheModelsValueFormWhereAsked) {
  for (auto [n, form] : {std::pair{1u, ValueForm::one_byte}, {7u, ValueForm::plain}, {1000u, ValueForm::one_byte},
                         {4099u, ValueForm::two_bytes}}) {
    for (double maybe_share : {0.0, 0.6}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " form " + std::to_string(static_cast<int>(form)));
      const SparseMdp mdp = in_form(test::random_mdp(n, n + 5), form, n);
      graph::QualitativePartition partition;
      partition.yes = test::random_set(n, 0.2, n + 1);
      partition.maybe = test::random_set(n, maybe_share, n + 2) - partition.yes;
      partition.no = ~(partition.yes | partition.maybe);
      const MaybeSystem kept =
          build_maybe_system(mdp, partition, shuffled_order(partition.maybe, n), SystemValues::as_model);
      const MaybeSystem plain = build_maybe_system(mdp, partition, shuffled_order(partition.maybe, n));
      if (!kept.values.empty()) EXPECT_EQ(kept.values.index_bytes(), mdp.values.index_bytes());  // none: any form
      EXPECT_EQ(plain.values.index_bytes(), 0u);
      EXPECT_TRUE(kept.values == plain.values);
      EXPECT_EQ(as_vector<std::uint32_t>(kept.columns), as_vector<std::uint32_t>(plain.columns));
      // The estimate a run checks against its unused memory bounds each form's system
      // and the map it is built with, taken for every state.
      EXPECT_GE(host_system_bytes(mdp, SystemValues::as_model, n), host_system_bytes(kept) + 4 * n);
      EXPECT_GE(host_system_bytes(mdp, SystemValues::plain, n), host_system_bytes(plain) + 4 * n);
    }
  }
}

// A view's arrays and each chunk copied from the model against the copy's (built in
// the model's form, as a copy for a device is): the same kept rows, offsets, self-loops,
// chunk rows, entries inside and before the chunk, and b for any final values, bit for
// bit. random_mdp's shapes (one-choice and 40-choice states, rows longer than a warp,
// self-loops, a long chain), odd sizes, values plain and indexed; chunks of one state,
// empty ones, and more chunk edges than states; probabilities, and rewards with rows
// into infinity left out (but a state's last).
TEST(HostSystemView, ChunksAreEquivalentToTheCopysChunks) {
  const double infinity = std::numeric_limits<double>::infinity();
  for (auto [n, form] : {std::pair{1u, ValueForm::one_byte}, {7u, ValueForm::plain}, {33u, ValueForm::two_bytes},
                         {1000u, ValueForm::one_byte}, {4099u, ValueForm::plain}}) {
    const SparseMdp mdp = in_form(test::random_mdp(n, n + 19), form, n);
    graph::QualitativePartition partition;
    partition.yes = test::random_set(n, 0.2, n + 1);
    partition.maybe = test::random_set(n, 0.7, n + 2) - partition.yes;
    partition.no = ~(partition.yes | partition.maybe);
    const RewardStructure rewards = random_rewards(mdp, n);
    for (const bool with_rewards : {false, true}) {
      SCOPED_TRACE("n=" + std::to_string(n) + (with_rewards ? " rewards" : " probabilities"));
      const TwoValuedOutside outside{partition.yes, with_rewards ? 0.0 : 1.0, with_rewards ? infinity : 0.0};
      const MaybeSystem copy =
          with_rewards ? build_maybe_system(mdp, shuffled_order(partition.maybe, n), numbers_on(partition.yes, 0.0, infinity),
                                            &rewards, SystemValues::as_model)
                       : build_maybe_system(mdp, partition, shuffled_order(partition.maybe, n), SystemValues::as_model);
      const MaybeSystem view =
          build_system_view(mdp, shuffled_order(partition.maybe, n), outside, with_rewards ? &rewards : nullptr);
      ASSERT_TRUE(view.view);
      EXPECT_TRUE(view.columns.empty() && view.row_constants.empty()) << "nothing copied";
      EXPECT_EQ(as_vector<std::uint64_t>(view.row_group_starts), as_vector<std::uint64_t>(copy.row_group_starts));
      EXPECT_EQ(view.num_rows(), copy.num_rows());
      const std::uint32_t states = copy.num_states();
      for (std::uint32_t i = 0; i <= states; ++i) ASSERT_EQ(entries_before(view, i), entries_before(copy, i)) << i;
      for (std::size_t scc = 0; scc < copy.num_sccs(); ++scc) {
        ASSERT_EQ(is_trivial_scc(view, scc), is_trivial_scc(copy, scc)) << "SCC " << scc;
      }
      std::vector<std::uint64_t> edges{0, 1, 1, states / 3, states / 2 + 1, states};
      for (std::uint64_t e = 0; e < std::min<std::uint64_t>(states, 9); ++e) edges.push_back(e);  // chunks of one state
      std::sort(edges.begin(), edges.end());
      std::mt19937 rng(n);
      StateNumbers final(states);
      for (double& v : final) v = std::uniform_real_distribution<double>(0.0, 3.0)(rng);
      for (std::size_t c = 0; c + 1 < edges.size(); ++c) {
        const std::uint64_t first = std::min<std::uint64_t>(edges[c], states), end = std::min<std::uint64_t>(edges[c + 1], states);
        const Chunk chunk{first, end, first, end, 0, true};
        SCOPED_TRACE("chunk [" + std::to_string(first) + ", " + std::to_string(end) + ")");
        const PreparedChunk from_copy = prepare_chunk(copy, chunk), from_view = prepare_chunk(view, chunk);
        EXPECT_EQ(as_vector<std::uint64_t>(from_view.row_group_starts), as_vector<std::uint64_t>(from_copy.row_group_starts));
        EXPECT_EQ(as_vector<std::uint64_t>(from_view.row_starts), as_vector<std::uint64_t>(from_copy.row_starts));
        EXPECT_EQ(as_vector<std::uint32_t>(from_view.columns), as_vector<std::uint32_t>(from_copy.columns));
        EXPECT_TRUE(from_view.values == from_copy.values);
        EXPECT_EQ(as_vector<std::uint64_t>(from_view.outside_starts), as_vector<std::uint64_t>(from_copy.outside_starts));
        EXPECT_EQ(as_vector<std::uint32_t>(from_view.outside_columns), as_vector<std::uint32_t>(from_copy.outside_columns));
        EXPECT_EQ(as_vector<double>(from_view.outside_values), as_vector<double>(from_copy.outside_values));
        PodVector<double> b_copy, b_view, b_view_reference;
        from_copy.row_constants(copy, chunk, final.data(), b_copy);
        from_view.row_constants(view, chunk, final.data(), b_view);
        from_view.row_constants_reference(view, chunk, final.data(), b_view_reference);
        EXPECT_EQ(as_vector<double>(b_view), as_vector<double>(b_copy));
        EXPECT_EQ(as_vector<double>(b_view_reference), as_vector<double>(b_copy));
      }
      EXPECT_GE(system_view_bytes(mdp, states) + 8 * (states + 1), host_system_bytes(view) - 4 * states)
          << "the estimate bounds what the view holds beside its state map";
    }
  }
}

// Solved through the chunk driver on the device, in chunks of a small budget, a view
// answers as the copy does: the reference instances' properties, each against the
// same run with the host's copy (no system built on the device in either). Where an
// SCC alone exceeds the budget, the CPU solves it, the view's a window of rows at a
// time (engine/solve/view_windows.h).
TEST(HostSystemView, SolvedOnTheDeviceAnswersAsTheCopy) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  if (!test::have_shared()) GTEST_SKIP() << "no shared benchmarks";
  int compared = 0;
  for (const auto& [name, instance] : test::reference().items()) {
    SCOPED_TRACE(name);
    pipeline::CheckOptions options = test::reference_check(instance);
    options.solver.method = Method::automatic;
    options.solver.stop.epsilon = 1e-8;
    options.device.systems_on_device = false;
    options.device.memory_limit_bytes = 2'000'000;
    options.device.host_system = gpu::SystemStorage::copy;
    const pipeline::CheckReport copied = pipeline::run_check(options);
    options.device.host_system = gpu::SystemStorage::view;
    const pipeline::CheckReport viewed = pipeline::run_check(options);
    ASSERT_EQ(copied.properties.size(), viewed.properties.size());
    for (std::size_t i = 0; i < copied.properties.size(); ++i) {
      const pipeline::PropertyOutcome &a = copied.properties[i], &b = viewed.properties[i];
      SCOPED_TRACE(a.property);
      ASSERT_EQ(a.value.has_value(), b.value.has_value()) << a.error << " / " << b.error;
      if (!a.value || a.value->kind != PropertyValue::Kind::number) continue;
      EXPECT_NEAR(b.value->number, a.value->number, 1e-7 * std::max(1.0, std::abs(a.value->number)));
      ++compared;
    }
  }
  EXPECT_GT(compared, 0);
}

// random_mdp's shapes: one-choice and 40-choice states, rows longer than a warp,
// self-loops, a long chain; odd sizes, one state, and no, some or all states in the
// system; values plain and indexed. Reachability probabilities (1 on the yes-states
// outside) and expected rewards (0 on the targets, infinity elsewhere: rows into
// infinity left out, but a state's last one if no other was kept).
TEST(DeviceSystem, BuiltOnTheDeviceIsEquivalentToRef) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  const double infinity = std::numeric_limits<double>::infinity();
  for (auto [n, form] : {std::pair{1u, ValueForm::plain}, {2u, ValueForm::one_byte}, {7u, ValueForm::plain},
                         {33u, ValueForm::two_bytes}, {1000u, ValueForm::one_byte}, {1000u, ValueForm::two_bytes},
                         {4099u, ValueForm::plain}, {4099u, ValueForm::two_bytes}}) {
    for (double maybe_share : {0.0, 0.6, 1.0}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " maybe share " + std::to_string(maybe_share) + " form " +
                   std::to_string(static_cast<int>(form)));
      const SparseMdp mdp = in_form(test::random_mdp(n, n + 11), form, n);
      if (form == ValueForm::two_bytes && n > 33) {
        ASSERT_EQ(mdp.values.index_bytes(), 2u);
      }
      if (form == ValueForm::one_byte) {
        ASSERT_EQ(mdp.values.index_bytes(), 1u);
      }
      graph::QualitativePartition partition;
      partition.yes = maybe_share == 1.0 ? StateSet(n) : test::random_set(n, 0.2, n + 1);
      partition.maybe = test::random_set(n, maybe_share, n + 2) - partition.yes;
      partition.no = ~(partition.yes | partition.maybe);
      graph::SccDecomposition sccs = shuffled_order(partition.maybe, n);
      auto graph = gpu::upload_graph(arrays_of(mdp));
      ASSERT_TRUE(graph);
      const BitWords yes = BitWords::of(partition.yes);
      for (gpu::SystemStorage storage : {gpu::SystemStorage::copy, gpu::SystemStorage::view}) {
        SCOPED_TRACE(storage == gpu::SystemStorage::copy ? "copy" : "view");
        gpu::SystemInputs inputs;
        inputs.model_values = device_view(mdp.values);
        inputs.order = sccs.order.data();
        inputs.count = static_cast<std::uint32_t>(sccs.order.size());
        inputs.marked_words = yes.data();
        inputs.storage = storage;
        expect_swept_sizes(mdp, sccs, *graph->maybe_system(inputs), storage);
        {
          SCOPED_TRACE("probabilities");
          expect_same_system(build_maybe_system(mdp, partition, sccs), *graph->maybe_system(inputs));
        }
        {
          SCOPED_TRACE("rewards");
          const RewardStructure rewards = random_rewards(mdp, n);
          const StateNumbers outside = numbers_on(partition.yes, 0.0, infinity);  // the yes-states as targets
          inputs.marked_value = 0.0;
          inputs.unmarked_value = infinity;
          inputs.state_rewards = device_view(rewards.state_rewards);
          inputs.choice_rewards = device_view(rewards.choice_rewards);
          expect_same_system(build_maybe_system(mdp, sccs, outside, &rewards), *graph->maybe_system(inputs));
          inputs.state_rewards = {};  // choice rewards alone
          RewardStructure choices_only = rewards;
          choices_only.state_rewards = CompactValues();
          expect_same_system(build_maybe_system(mdp, sccs, outside, &choices_only), *graph->maybe_system(inputs));
        }
      }
    }
  }
}

// An adopted system has no host arrays: the lanes of its iterated windows are sized
// from rows counted on the device, which must be the host's count of the same arrays
// (empty windows, one state, odd ranges, the whole, past the end; 40-choice states
// and rows longer than a warp among them).
TEST(DeviceSystem, WindowRowsOfAnAdoptedSystemAreEquivalentToRef) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  const std::uint32_t n = 4099;
  const SparseMdp mdp = in_form(test::random_mdp(n, 17), ValueForm::one_byte, n);
  const StateSet yes = test::random_set(n, 0.1, 18);
  const graph::SccDecomposition sccs = shuffled_order(~yes, 19);
  auto graph = gpu::upload_graph(arrays_of(mdp));
  ASSERT_TRUE(graph);
  const BitWords marked = BitWords::of(yes);
  gpu::SystemInputs inputs;
  inputs.model_values = device_view(mdp.values);
  inputs.order = sccs.order.data();
  inputs.count = static_cast<std::uint32_t>(sccs.order.size());
  inputs.marked_words = marked.data();
  std::unique_ptr<gpu::DeviceSystem> built = graph->maybe_system(inputs);
  const gpu::HostSystemArrays host = built->download();
  const gpu::ChunkMatrix arrays{built->num_states(), built->num_rows(), built->num_entries(), host.row_group_starts.data(),
                                host.row_starts.data(), host.columns.data(), host.values.data()};
  auto device = gpu::open_device();
  ASSERT_TRUE(device);
  const int ticket = device->adopt(*built);
  const std::uint64_t m = arrays.num_states;
  for (auto [first, end] : test::odd_windows(m)) {
    for (bool squares : {false, true}) {
      SCOPED_TRACE("window [" + std::to_string(first) + ", " + std::to_string(end) + ")" + (squares ? " squares" : ""));
      test::expect_same_window_rows(device->window_rows(ticket, first, end, squares),
                                    gpu::window_rows(arrays, first, end, squares));
    }
  }
  device->release(ticket);
}

// An acyclic MDP: every row of state s leads to states above s (or to the goal, the
// last state, or the sink before it), with one- and many-choice states and rows longer
// than a warp, and a long chain: a deep level order. With sink_every, only the second
// choices of every sink_every-th state reach the sink (one entry more; UINT32_MAX:
// none does), so that expected rewards are finite for most states, and infinite
// through those choices.
SparseMdp acyclic_mdp(std::uint32_t n, std::uint32_t seed, std::uint32_t sink_every = 0) {
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
        const bool into_sink = sink_every > 0 && r == 1 && s % sink_every == sink_every - 1;
        for (std::uint32_t k = 0; k < length; ++k) {
          const std::uint32_t above = n - 1 - s;
          std::uint32_t t = k == 0 && s % 3 != 0 ? s + 1 : s + 1 + rng() % above;
          if (sink_every > 0 && t == sink) t = goal;
          mdp.columns.push_back(t);
          mdp.values.push_back(1.0 / (length + into_sink));
        }
        if (into_sink) {
          mdp.columns.push_back(sink);
          mdp.values.push_back(1.0 / (length + 1));
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
    auto gpu_search = graph::make_search_backend(mdp, graph::SearchKind::gpu);
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

// Expected rewards to the goal, from the system built on the device and from the
// host's, against each other.
void expect_rewards_agree(std::uint32_t n, std::uint32_t sink_every, Optimization direction) {
  SCOPED_TRACE("n=" + std::to_string(n) + (direction == Optimization::minimize ? " Rmin" : " Rmax"));
  const SparseMdp mdp = acyclic_mdp(n, n + 1, sink_every);
  const RewardStructure rewards = random_rewards(mdp, n);
  StateSet goal(n);
  goal.set(n - 1);
  auto gpu_search = graph::make_search_backend(mdp, graph::SearchKind::gpu);
  auto g = graph::build_choice_predecessor_graph(mdp);
  auto cpu_search = graph::make_search_backend(mdp, g, graph::SearchKind::cpu_parallel);
  DeviceOptions on_device;
  on_device.solver = SolverKind::gpu;
  on_device.schedule = DeviceSchedule::levels;
  const SolverOptions options = with_method(Method::optimistic_value_iteration);
  const NumericResult device = compute_reachability_reward(mdp, *gpu_search, direction, rewards, goal, options, on_device);
  const NumericResult host = compute_reachability_reward(mdp, *cpu_search, direction, rewards, goal, options, {SolverKind::cpu});
  ASSERT_GT(device.qualitative.maybe, n / 4);
  ASSERT_EQ(device.solve.chunks.size(), 1u);
  EXPECT_TRUE(device.solve.chunks[0].built_on_device);
  for (std::uint32_t s = 0; s < n; ++s) {
    if (std::isinf(host.values[s])) {
      EXPECT_EQ(device.values[s], host.values[s]) << "state " << s;
    } else {
      EXPECT_NEAR(device.values[s], host.values[s], 1e-12 * std::max(1.0, host.values[s])) << "state " << s;
    }
  }
}

// Rmin leaves out the rows into the sink (infinite), but a state's last; Rmax, on a
// model whose sink nothing reaches, has finite rewards everywhere.
TEST(DeviceSystem, AcyclicRewardsAreEquivalentToTheHostBuiltOnes) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  for (std::uint32_t n : {130u, 5003u}) {
    expect_rewards_agree(n, 29, Optimization::minimize);
    expect_rewards_agree(n, UINT32_MAX, Optimization::maximize);
  }
}

// A system with cycles (random_mdp: a chain back to its start, self-loops, random
// rows; values indexed by one byte, by two for the largest), solved from the system
// built on the device (level by level there, its values indexed) and from
// the one built on the host and uploaded (a memory limit keeps it there): each SCC
// of several states, and each state with a self-loop, iterated from the device's own
// b. The sweeps may sum a row in another order (the lanes per state differ), so the
// two agree to well within the precision asked for, and the sound methods' bounds
// hold the other's value. The device builds a system only for the model itself, so
// not where a maximising sound method or a minimised reward collapses end components;
// the caller counts the runs that were built there and had cycles.
struct CyclicRun {
  bool built_on_device = false;
  std::uint64_t iterated_sccs = 0;
};

CyclicRun expect_cyclic_agrees(std::uint32_t n, Optimization direction, Method method, bool rewarded) {
  SCOPED_TRACE("n=" + std::to_string(n) + " " + to_string(method) + (direction == Optimization::minimize ? " min" : " max") +
               (rewarded ? " reward" : " probability"));
  const SparseMdp mdp = in_form(test::random_mdp(n, n + 3), n > 1000 ? ValueForm::two_bytes : ValueForm::one_byte, n);
  StateSet goal = test::random_set(n, 0.05, n + 4);
  goal.set(n - 1);
  const RewardStructure rewards = random_rewards(mdp, n + 5);
  auto gpu_search = graph::make_search_backend(mdp, graph::SearchKind::gpu);
  EXPECT_NE(gpu_search->device_graph(), nullptr);
  DeviceOptions on_device;
  on_device.solver = SolverKind::gpu;
  on_device.schedule = DeviceSchedule::levels;
  DeviceOptions uploaded = on_device;
  uploaded.systems_on_device = false;
  const SolverOptions options = with_method(method);
  const auto run = [&](const DeviceOptions& device) {
    return rewarded ? compute_reachability_reward(mdp, *gpu_search, direction, rewards, goal, options, device)
                    : compute_until_probabilities(mdp, *gpu_search, direction, ~StateSet(n), goal, options, device);
  };
  const NumericResult device = run(on_device);
  const NumericResult host = run(uploaded);
  const double tolerance = 1e-9;
  for (std::uint32_t s = 0; s < n; ++s) {
    if (std::isinf(host.values[s])) {
      EXPECT_EQ(device.values[s], host.values[s]) << "state " << s;
      continue;
    }
    const double scale = std::max(1.0, std::abs(host.values[s]));
    EXPECT_NEAR(device.values[s], host.values[s], tolerance * scale) << "state " << s;
    if (!device.lower.empty()) {
      EXPECT_LE(device.lower[s], host.values[s] + tolerance * scale) << "state " << s;
      EXPECT_GE(device.upper[s], host.values[s] - tolerance * scale) << "state " << s;
    }
  }
  if (device.solve.chunks.size() != 1 || !device.solve.chunks[0].built_on_device) return {};
  EXPECT_FALSE(host.solve.chunks.at(0).built_on_device);
  return {true, device.solve.stats.iterated_sccs};
}

TEST(DeviceSystem, CyclicSolveIsEquivalentToTheHostBuiltOne) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  std::size_t built = 0, built_with_cycles = 0;
  for (std::uint32_t n : {37u, 1000u, 4099u}) {
    for (Method method : {Method::value_iteration, Method::interval_iteration, Method::optimistic_value_iteration}) {
      for (Optimization direction : {Optimization::minimize, Optimization::maximize}) {
        const CyclicRun run = expect_cyclic_agrees(n, direction, method, false);
        // Nothing collapses these: the model itself, so the device builds them.
        if (n > 37 && (method == Method::value_iteration || direction == Optimization::minimize)) {
          EXPECT_TRUE(run.built_on_device) << "n=" << n << " " << to_string(method);
        }
        built += run.built_on_device;
        built_with_cycles += run.iterated_sccs > 0;
      }
    }
    for (Optimization direction : {Optimization::minimize, Optimization::maximize}) {
      const CyclicRun run = expect_cyclic_agrees(n, direction, Method::optimistic_value_iteration, true);
      built += run.built_on_device;
      built_with_cycles += run.iterated_sccs > 0;
    }
  }
  EXPECT_GE(built, 8u);
  EXPECT_GE(built_with_cycles, 8u);
}

// Each allocation of the run failed in turn, and every one after it: the system is
// then built on the host (or solved again from one built there), same answer.
TEST(DeviceSystem, DeviceFailuresFallBackToTheHostBuild) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  const SparseMdp mdp = acyclic_mdp(2001, 5);
  auto g = graph::build_choice_predecessor_graph(mdp);
  auto cpu_search = graph::make_search_backend(mdp, g, graph::SearchKind::cpu_parallel);
  const NumericResult host = until_goal(mdp, *cpu_search, Optimization::minimize, Method::optimistic_value_iteration, SolverKind::cpu);
  auto gpu_search = graph::make_search_backend(mdp, graph::SearchKind::gpu);
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

// A ring of n states, each leaving it with probability about leak per step (half to
// the goal, the last state, half to a sink before it) by either of two choices:
// value iteration crawls where leak is small.
SparseMdp leaking_ring(std::uint32_t n, double leak) {
  SparseMdp mdp;
  mdp.row_group_starts.push_back(0);
  mdp.row_starts.push_back(0);
  const std::uint32_t ring = n - 2, sink = n - 2, goal = n - 1;
  const auto entry = [&](std::uint32_t t, double p) {
    mdp.columns.push_back(t);
    mdp.values.push_back(p);
  };
  for (std::uint32_t s = 0; s < n; ++s) {
    if (s >= ring) {
      entry(s, 1.0);
      mdp.row_starts.push_back(mdp.columns.size());
    } else {
      for (double stay : {1.0 - leak, 1.0 - 2 * leak}) {
        entry((s + 1) % ring, stay);
        entry(sink, (1.0 - stay) / 2);
        entry(goal, (1.0 - stay) / 2);
        mdp.row_starts.push_back(mdp.columns.size());
      }
    }
    mdp.row_group_starts.push_back(mdp.row_starts.size() - 1);
  }
  mdp.initial_states = {0};
  compact_model(mdp);
  return mdp;
}

// The default method on a system built on the device: where a level crawls under
// value iteration, the system is built again on the host and solved under policy
// iteration (its steps need the host's matrix), with bounds around interval
// iteration's; where none crawls, the device solves what it built.
TEST(DeviceSystem, ADefaultSolveWhereValueIterationCrawlsGoesToPolicyIteration) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  for (double leak : {1e-4, 0.2}) {
    const SparseMdp mdp = leaking_ring(1003, leak);
    auto gpu_search = graph::make_search_backend(mdp, graph::SearchKind::gpu);
    ASSERT_NE(gpu_search->device_graph(), nullptr);
    auto g = graph::build_choice_predecessor_graph(mdp);
    auto cpu_search = graph::make_search_backend(mdp, g, graph::SearchKind::cpu_parallel);
    for (Optimization direction : {Optimization::minimize, Optimization::maximize}) {
      SCOPED_TRACE("leak " + std::to_string(leak) + (direction == Optimization::minimize ? " min" : " max"));
      const NumericResult device = until_goal(mdp, *gpu_search, direction, Method::automatic, SolverKind::gpu);
      const NumericResult truth = until_goal(mdp, *cpu_search, direction, Method::interval_iteration, SolverKind::cpu);
      ASSERT_FALSE(device.solve.chunks.empty());
      const bool crawls = leak < 0.01;
      EXPECT_EQ(device.solve.method, crawls ? Method::policy_iteration : Method::automatic);
      EXPECT_EQ(device.solve.chunks[0].built_on_device, !crawls);
      EXPECT_EQ(device.solve.stats.policy_sccs > 0, crawls);
      EXPECT_TRUE(device.solve.chunks[0].on_gpu);
      ASSERT_FALSE(device.lower.empty());
      for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
        EXPECT_LE(device.lower[s], truth.upper[s]) << "state " << s;
        EXPECT_GE(device.upper[s], truth.lower[s]) << "state " << s;
      }
    }
  }
}

}  // namespace
}  // namespace mdpvi
