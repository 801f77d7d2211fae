// SCCs solved in parts over MPI ranks (engine/solve/rank_sweeps.h) against one process,
// bit for bit. Run under mpirun with 2, 3, 4 and 8 ranks (tests/CMakeLists.txt): each rank
// solves every case both ways and compares. The cases (tests/partition_cases.h) hold
// one state (more ranks than states), odd sizes, rows longer than a warp, SCC-like
// blocks and a long chain.
#include "engine/ranks/ranks.h"
#include "engine/solve/chunk_driver.h"
#include "engine/solve/scc_sweeps.h"
#include "partition_cases.h"

#include <gtest/gtest.h>

#include <iostream>
#include <stdexcept>

namespace mdpvi {
namespace {

// The run's ranks, counting the exchanges: a solve in parts makes some, a whole one none.
class CountingRanks final : public Ranks {
 public:
  CountingRanks() : ranks_(*run_ranks()) {}
  std::uint64_t exchanges() const { return exchanges_; }

  std::uint32_t rank() const override { return ranks_.rank(); }
  std::uint32_t size() const override { return ranks_.size(); }
  std::uint32_t on_this_machine() const override { return ranks_.on_this_machine(); }
  void all_to_all(std::span<const std::uint64_t> to, std::span<std::uint64_t> from) override { ranks_.all_to_all(to, from); }
  void exchange(std::span<const std::span<const std::byte>> to, std::span<const std::span<std::byte>> from) override {
    ++exchanges_;
    ranks_.exchange(to, from);
  }
  void max_in_place(std::span<double> values) override { ranks_.max_in_place(values); }
  bool agree(std::uint64_t value) override { return ranks_.agree(value); }
  void broadcast(std::span<std::byte> bytes, std::uint32_t root) override { ranks_.broadcast(bytes, root); }

 private:
  Ranks& ranks_;
  std::uint64_t exchanges_ = 0;
};

SolveRequest request_for(const MaybeSystem& system, Optimization direction, Method method, Ranks* ranks) {
  SolverOptions options{method, {ConvergenceCriterion::relative, 1e-9, 1000000}};
  options.ranks = ranks;
  return {.system = system, .direction = direction, .options = options, .known_upper_bound = 1.0};
}

// Whole solves by every method and direction.
TEST(RankSolve, IsEquivalentToOneProcess) {
  for (const MaybeSystem& system : test::partition_cases()) {
    for (Method method : {Method::value_iteration, Method::interval_iteration, Method::optimistic_value_iteration,
                          Method::policy_iteration}) {
      for (Optimization direction : {Optimization::minimize, Optimization::maximize}) {
        SCOPED_TRACE(testing::Message() << system.num_states() << " states, " << to_string(method) << ", "
                                        << run_ranks()->size() << " ranks");
        const SolveResult one = solve(request_for(system, direction, method, nullptr), {SolverKind::cpu});
        CountingRanks ranks;
        const SolveResult parts = solve(request_for(system, direction, method, &ranks), {SolverKind::cpu});
        EXPECT_EQ(parts.lower, one.lower);
        EXPECT_EQ(parts.upper, one.upper);
        EXPECT_EQ(parts.report.stats.max_scc_iterations, one.report.stats.max_scc_iterations);
        if (one.report.stats.max_scc_iterations > 0) {
          EXPECT_GT(ranks.exchanges(), 0u);
        }
      }
    }
  }
}

// Below parts_from an SCC is solved whole on every rank: no exchange, the same values.
TEST(RankSolve, SmallSccsAreSolvedWholeByEveryRank) {
  const MaybeSystem system = test::random_system(1025, 9);
  const SolveResult one = solve(request_for(system, Optimization::maximize, Method::interval_iteration, nullptr),
                                {SolverKind::cpu});
  CountingRanks ranks;
  SolveRequest request = request_for(system, Optimization::maximize, Method::interval_iteration, &ranks);
  request.options.parts_from = system.num_rows() + system.columns.size() + 1;
  const SolveResult whole = solve(request, {SolverKind::cpu});
  EXPECT_EQ(ranks.exchanges(), 0u);
  EXPECT_EQ(whole.lower, one.lower);
  EXPECT_EQ(whole.upper, one.upper);
}

// The sweeps one at a time, each step against the range's in one process.
TEST(RankSweeps, StepAsTheRangeDoes) {
  const MaybeSystem system = test::random_system(1025, 9);
  const StateRange range{0, system.num_states()};
  SolveRequest one = request_for(system, Optimization::maximize, Method::interval_iteration, nullptr);
  SolveRequest many = request_for(system, Optimization::maximize, Method::interval_iteration, run_ranks());
  Iterates x_one(one, true), x_many(many, true);
  x_one.make_second_buffers();
  x_many.make_second_buffers();
  const auto sweeps_one = make_scc_sweeps(one, range, x_one);
  const auto sweeps_many = make_scc_sweeps(many, range, x_many);
  test::expect_steps_alike(*sweeps_one, *sweeps_many, x_one, x_many);
}

// Ranks whose systems differ (here: the first rank's is another random draw) refuse
// the SCC, every one of them, rather than exchange values of different states.
TEST(RankSweeps, RanksThatDisagreeOnTheSccAllRefuseIt) {
  const MaybeSystem system = test::random_system(33, run_ranks()->rank() == 0 ? 1 : 2);
  SolveRequest request = request_for(system, Optimization::maximize, Method::value_iteration, run_ranks());
  Iterates x(request, false);
  x.make_second_buffers();
  EXPECT_THROW(make_scc_sweeps(request, {0, system.num_states()}, x), std::runtime_error);
}

}  // namespace
}  // namespace mdpvi

int main(int argc, char** argv) {
  const std::unique_ptr<mdpvi::RanksSession> session = mdpvi::start_ranks(argc, argv);
  testing::InitGoogleTest(&argc, argv);
  if (mdpvi::run_ranks() == nullptr) {
    std::cerr << "rank_sweeps_test: run it under mpirun with 2 or more ranks\n";
    return session->finish(1);
  }
  return session->finish(RUN_ALL_TESTS());
}
