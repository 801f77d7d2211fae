// A view over the model solved on the CPU a window of rows at a time
// (engine/solve/view_windows.h) against the copy: the windows' rows are the copy's,
// bit for bit; the windows cover the SCCs within their budget; their pages go back to
// the kernel; and the solve answers as the copy's, bit for bit.
#include "engine/check/reachability.h"
#include "engine/check/rewards.h"
#include "engine/pipeline/check_run.h"
#include "engine/solve/maybe_system.h"
#include "engine/solve/view_windows.h"
#include "graph/scc.h"
#include "graph/search_backend.h"
#include "random_mdps.h"
#include "system_cases.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <limits>
#include <string>

namespace mdpvi {
namespace {

using test::as_vector;
using test::in_form;
using test::ValueForm;

// Whether the page of address p is resident.
bool resident(const void* p) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const auto at = reinterpret_cast<std::uintptr_t>(p) / page * page;
  unsigned char in = 0;
  EXPECT_EQ(mincore(reinterpret_cast<void*>(at), page, &in), 0);
  return in & 1;
}

// Only whole pages within the range go back (they read as zeros after); the pages at
// its ends, shared with elements outside it, keep their values; the next release
// starts where this one ended, so that no page is left between.
TEST(ReleasePages, GivesBackWholePagesOnly) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  PodVector<double> values(std::size_t{8} << 20 >> 3);  // 8 MiB: a mapping of its own
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i) + 1.0;
  const std::size_t from = page + 24, to = (std::size_t{5} << 20) + 40;
  const std::size_t ended = release_pages(values, from, to);
  EXPECT_EQ(ended, to / page * page);
  const std::size_t first_whole = 2 * page / sizeof(double), end_whole = ended / sizeof(double);
  EXPECT_EQ(values[first_whole - 1], static_cast<double>(first_whole)) << "the first page is partly outside";
  EXPECT_EQ(values[end_whole], static_cast<double>(end_whole) + 1.0) << "the last page is partly outside";
  EXPECT_FALSE(resident(&values[first_whole]));
  EXPECT_FALSE(resident(&values[end_whole - 1]));
  EXPECT_EQ(values[first_whole], 0.0) << "a page given back reads as zeros";
  EXPECT_EQ(release_pages(values, ended, ended + page - 8), ended) << "no whole page: nothing";
  PodVector<double> small(100, 1.0);  // not a mapping of its own
  EXPECT_EQ(release_pages(small, 0, small.size() * sizeof(double)), 0u);
  EXPECT_EQ(small[50], 1.0);
}

// A model, its yes-states and a system over its maybe-states, decomposed into SCCs.
struct WindowCase {
  SparseMdp mdp;
  RewardStructure rewards;
  StateSet yes, maybe;

  WindowCase(std::uint32_t n, ValueForm form)
      : mdp(in_form(test::random_mdp(n, n + 29), form, n)), rewards(test::random_rewards(mdp, n)),
        yes(test::random_set(n, 0.2, n + 1)), maybe(test::random_set(n, 0.7, n + 2) - yes) {}

  graph::SccDecomposition sccs() const { return graph::maybe_state_sccs(mdp, maybe); }
};

// random_mdp's shapes (one-choice and 40-choice states, rows longer than a warp,
// self-loops, a long chain), odd sizes and one state, values plain and indexed;
// probabilities, and rewards with rows into infinity left out (but a state's last).
// Windows of one SCC each (a budget of 1 byte), of a few, and one window of all.
TEST(ViewWindows, RowsAreEquivalentToTheCopys) {
  const double infinity = std::numeric_limits<double>::infinity();
  for (auto [n, form] : {std::pair{1u, ValueForm::one_byte}, {7u, ValueForm::plain}, {33u, ValueForm::two_bytes},
                         {1000u, ValueForm::one_byte}, {4099u, ValueForm::plain}}) {
    const WindowCase c(n, form);
    for (const bool with_rewards : {false, true}) {
      const TwoValuedOutside outside{c.yes, with_rewards ? 0.0 : 1.0, with_rewards ? infinity : 0.0};
      const RewardStructure* rewards = with_rewards ? &c.rewards : nullptr;
      const MaybeSystem copy = build_maybe_system(c.mdp, c.sccs(), numbers_on(c.yes, outside.on_set, outside.elsewhere),
                                                  rewards);
      for (const std::uint64_t budget : {std::uint64_t{1}, std::uint64_t{600}, std::uint64_t{1} << 40}) {
        SCOPED_TRACE("n=" + std::to_string(n) + (with_rewards ? " rewards" : " probabilities") + ", budget " +
                     std::to_string(budget));
        MaybeSystem view = build_system_view(c.mdp, c.sccs(), outside, rewards);
        ViewWindows windows(view);
        std::size_t first = 0;
        for (const std::size_t end : window_ends(view, 0, view.num_sccs(), budget)) {
          const std::uint64_t a = view.scc_starts[first], b = view.scc_starts[end];
          windows.write({a, b});
          const std::uint64_t first_row = copy.row_group_starts[a], end_row = copy.row_group_starts[b];
          for (std::uint64_t r = first_row; r <= end_row; ++r) ASSERT_EQ(view.row_starts[r], copy.row_starts[r]) << r;
          for (std::uint64_t r = first_row; r < end_row; ++r) {
            ASSERT_EQ(view.row_constants[r], copy.row_constants[r]) << r;  // the same sums, bit for bit
            for (std::uint64_t k = copy.row_starts[r]; k < copy.row_starts[r + 1]; ++k) {
              ASSERT_EQ(view.columns[k], copy.columns[k]) << k;
              ASSERT_EQ(view.values[k], copy.values[k]) << k;
            }
          }
          windows.release_before(b);
          first = end;
        }
        EXPECT_EQ(first, view.num_sccs());
        EXPECT_EQ(host_system_bytes(view), host_system_bytes(build_system_view(c.mdp, c.sccs(), outside, rewards)))
            << "the windows' arrays are not counted as a copy's";
      }
    }
  }
}

// Consecutive windows cover the SCCs asked for; each is within the budget, or one SCC
// over it alone, and could not take the next SCC too.
TEST(ViewWindows, EndsCoverTheSccsWithinTheBudget) {
  const WindowCase c(4099, ValueForm::one_byte);
  const MaybeSystem view = build_system_view(c.mdp, c.sccs(), {c.yes, 1.0, 0.0});
  const std::size_t sccs = view.num_sccs();
  ASSERT_GT(sccs, 10u);
  for (const std::uint64_t budget : {std::uint64_t{1}, std::uint64_t{500}, std::uint64_t{20000}, std::uint64_t{1} << 40}) {
    for (const auto [first_scc, end_scc] : {std::pair{std::size_t{0}, sccs}, {sccs / 3, sccs / 2}, {sccs, sccs}}) {
      SCOPED_TRACE("budget " + std::to_string(budget) + ", SCCs from " + std::to_string(first_scc));
      const auto bytes = [&](std::size_t a, std::size_t b) {
        return window_bytes(view, view.scc_starts[a], view.scc_starts[b]);
      };
      std::size_t first = first_scc;
      for (const std::size_t end : window_ends(view, first_scc, end_scc, budget)) {
        ASSERT_GT(end, first);
        EXPECT_TRUE(bytes(first, end) <= budget || end == first + 1);
        if (end < end_scc) EXPECT_GT(bytes(first, end + 1), budget);
        first = end;
      }
      EXPECT_EQ(first, end_scc);
    }
  }
}

// Through the checker's own path (build_system, the chunk driver), a view solved on
// the CPU in windows of one SCC, of a few and of all answers as the copy does, bit for
// bit, bounds included: each method that solves a view, both directions,
// probabilities and rewards.
TEST(ViewWindows, SolveIsEquivalentToTheCopys) {
  for (auto [n, form] : {std::pair{1u, ValueForm::one_byte}, {33u, ValueForm::two_bytes}, {1000u, ValueForm::one_byte},
                         {4099u, ValueForm::plain}}) {
    const WindowCase c(n, form);
    const auto search = graph::make_search_backend(c.mdp, graph::SearchKind::cpu_parallel);
    const StateSet all = ~StateSet(n);
    for (const Method method : {Method::automatic, Method::interval_iteration, Method::optimistic_value_iteration,
                                Method::value_iteration}) {
      for (const Optimization direction : {Optimization::minimize, Optimization::maximize}) {
        SolverOptions options;
        options.method = method;
        options.stop.epsilon = 1e-9;
        DeviceOptions device;
        device.solver = SolverKind::cpu;
        const auto answers = [&](gpu::SystemStorage storage, std::uint64_t window_bytes, bool rewards) {
          device.host_system = storage;
          device.view_window_bytes = window_bytes;
          return rewards ? compute_reachability_reward(c.mdp, *search, direction, c.rewards, c.yes, options, device)
                         : compute_until_probabilities(c.mdp, *search, direction, all, c.yes, options, device);
        };
        for (const bool rewards : {false, true}) {
          const NumericResult copy = answers(gpu::SystemStorage::copy, 0, rewards);
          for (const std::uint64_t window : {std::uint64_t{1}, std::uint64_t{2000}, std::uint64_t{1} << 40}) {
            SCOPED_TRACE("n=" + std::to_string(n) + " " + to_string(method) + (rewards ? " rewards" : " probabilities") +
                         (direction == Optimization::minimize ? " min" : " max") + ", window " + std::to_string(window));
            const NumericResult view = answers(gpu::SystemStorage::view, window, rewards);
            EXPECT_EQ(as_vector<double>(view.values), as_vector<double>(copy.values));
            EXPECT_EQ(as_vector<double>(view.lower), as_vector<double>(copy.lower));
            EXPECT_EQ(as_vector<double>(view.upper), as_vector<double>(copy.upper));
          }
        }
      }
    }
  }
}

// Through the command's pipeline on the CPU, the default (a view) answers as the copy
// does; a method that cannot solve a view is refused by name where one is asked for,
// and the property with it.
TEST(ViewWindows, OnTheCpuAnswersAsTheCopyOrIsRefusedByName) {
  pipeline::CheckOptions options;
  options.model_file = std::string(MDPVI_SOURCE_DIR) + "/models/resend/resend.nm";
  options.inline_properties = {"Pmax=? [ F delivered ]"};
  options.device.solver = SolverKind::cpu;
  const pipeline::CheckReport by_default = pipeline::run_check(options);
  ASSERT_EQ(by_default.properties.size(), 1u);
  ASSERT_TRUE(by_default.properties[0].value) << by_default.properties[0].error;
  options.device.host_system = gpu::SystemStorage::copy;
  const pipeline::CheckReport copied = pipeline::run_check(options);
  ASSERT_TRUE(copied.properties[0].value) << copied.properties[0].error;
  EXPECT_EQ(by_default.properties[0].value->number, copied.properties[0].value->number);
  options.device.host_system = gpu::SystemStorage::view;
  options.solver.method = Method::policy_iteration;
  const pipeline::CheckReport refused = pipeline::run_check(options);
  EXPECT_FALSE(refused.properties[0].value);
  EXPECT_NE(refused.properties[0].error.find("--host-system view: needs a method that solves by levels"),
            std::string::npos)
      << refused.properties[0].error;
}

}  // namespace
}  // namespace mdpvi
