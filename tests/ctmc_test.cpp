// CTMCs: the Poisson weights, the uniformised chain, the weighted sweeps against their
// reference, and CSL on chains solved by hand (an M/M/1 queue's stationary
// distribution, a two-state chain's transient probabilities), with the errors.
#include "engine/check/property_checker.h"
#include "engine/explore/model_builder.h"
#include "engine/model/uniformisation.h"
#include "engine/numeric/poisson_weights.h"
#include "engine/solve/uniformisation_sweeps.h"
#include "gpu/device_solver.h"
#include "graph/qualitative.h"
#include "graph/search_backend.h"
#include "io/model_files.h"
#include "io/property_parser.h"
#include "random_systems.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <numeric>

namespace mdpvi {
namespace {

double poisson_directly(double lambda, std::uint64_t k) {
  const double x = static_cast<double>(k);
  return std::exp(-lambda + x * std::log(lambda) - std::lgamma(x + 1.0));
}

TEST(PoissonWeights, MatchTheDirectFormulaAndBoundTheirTails) {
  for (double lambda : {0.5, 3.0, 17.25, 100.0, 4000.0, 1e5}) {
    for (double epsilon : {1e-6, 1e-12}) {
      const PoissonWeights w = poisson_weights(lambda, epsilon);
      EXPECT_LE(w.left, static_cast<std::uint64_t>(lambda));
      EXPECT_GE(w.right(), static_cast<std::uint64_t>(lambda));
      EXPECT_LE(w.left_tail, epsilon / 2);
      EXPECT_LE(w.right_tail, epsilon / 2);
      for (std::size_t i = 0; i < w.weights.size(); ++i) {
        const double direct = poisson_directly(lambda, w.left + i);
        EXPECT_NEAR(w.weights[i], direct, (epsilon + 1e-9) * direct + 1e-300) << lambda << " k=" << w.left + i;
      }
      // The weights leave out what missing() says, and the tails' bounds are bounds.
      const double inside = std::accumulate(w.weights.begin(), w.weights.end(), 0.0);
      EXPECT_NEAR(inside + w.missing(), 1.0, 1e-14) << lambda;
      if (w.left > 0) EXPECT_GE(w.left_tail, poisson_directly(lambda, w.left - 1));
      EXPECT_GE(w.right_tail, poisson_directly(lambda, w.right() + 1));
    }
  }
}

TEST(PoissonWeights, ZeroRateIsOneStepOfNone) {
  const PoissonWeights w = poisson_weights(0.0, 1e-9);
  EXPECT_EQ(w.left, 0u);
  ASSERT_EQ(w.weights.size(), 1u);
  EXPECT_EQ(w.weights[0], 1.0);
  EXPECT_EQ(w.missing(), 0.0);
  EXPECT_THROW(poisson_weights(-1.0, 1e-9), std::invalid_argument);
  EXPECT_THROW(poisson_weights(std::nan(""), 1e-9), std::invalid_argument);
}

// Odd sizes, empty rows, rows longer than a warp and a block, self-loops; a long
// chain; one state.
std::vector<MaybeSystem> uniformisation_shapes() {
  std::vector<MaybeSystem> systems;
  for (std::uint32_t n : {1u, 2u, 97u, 1031u, 5003u}) systems.push_back(test::first_rows_only(test::random_system(n, n)));
  MaybeSystem chain = test::empty_system();
  for (std::uint32_t s = 0; s + 1 < 3000; ++s) test::append_one_row_state(chain, {{s + 1, 0.9}}, 0.1);
  test::append_one_row_state(chain, {}, 1.0);
  systems.push_back(std::move(chain));
  return systems;
}

std::vector<double> start_values(std::size_t n) {
  std::vector<double> start(n);
  for (std::size_t i = 0; i < start.size(); ++i) start[i] = static_cast<double>(i % 5) / 4;
  return start;
}

// A ring of n states with self-loops, every state leaving to the target (b) with
// probability 0.2 a step: the steps rise towards 1.
MaybeSystem towards_one(std::uint32_t n) {
  MaybeSystem toward = test::empty_system();
  for (std::uint32_t s = 0; s < n; ++s) test::append_one_row_state(toward, {{(s + 1) % n, 0.5}, {s, 0.3}}, 0.2);
  return toward;
}

// Weights starting at step 0 and after it.
TEST(UniformisationSweeps, WeightedStepsIsEquivalentToRef) {
  const PoissonWeights poisson = poisson_weights(37.5, 1e-10);
  for (const MaybeSystem& system : uniformisation_shapes()) {
    const std::vector<double> start = start_values(system.num_states());
    for (std::uint64_t first : {std::uint64_t{0}, poisson.left}) {
      const StateNumbers fast = weighted_steps(system, start.data(), poisson.weights, first);
      const StateNumbers plain = weighted_steps_reference(system, start.data(), poisson.weights, first);
      ASSERT_EQ(fast.size(), plain.size());
      for (std::size_t i = 0; i < fast.size(); ++i) EXPECT_EQ(fast[i], plain[i]) << system.num_states() << " state " << i;
    }
  }
}

// Steps that rise towards 1 (each state reaches the target almost surely) may stop
// early: the result lies within its stated gap of the full sum, and takes fewer steps.
TEST(UniformisationSweeps, StepsTowardsOneStopWithinTheirGap) {
  const MaybeSystem toward = towards_one(9);
  const std::vector<double> start(9, 0.0);
  const PoissonWeights poisson = poisson_weights(2000.0, 1e-12);
  const StateNumbers full = weighted_steps(toward, start.data(), poisson.weights, poisson.left);
  const WeightedSum early = weighted_steps_towards_one(toward, start.data(), poisson.weights, poisson.left, 1e-12);
  EXPECT_LT(early.steps, poisson.right());
  EXPECT_LE(early.settled_gap, 1e-12);
  for (std::size_t i = 0; i < 9; ++i) {
    EXPECT_LE(early.sum[i], full[i] + 1e-14) << i;
    EXPECT_GE(early.sum[i] + early.settled_gap, full[i] - 1e-14) << i;
  }
  // Never settling, it is the full sum.
  EXPECT_EQ(weighted_steps_towards_one(toward, start.data(), poisson.weights, poisson.left, -1.0).sum[4], full[4]);
}

void expect_same_sums(const WeightedSum& a, const WeightedSum& b) {
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.settled_gap, b.settled_gap);
  ASSERT_EQ(a.sum.size(), b.sum.size());
  for (std::size_t i = 0; i < a.sum.size(); ++i) EXPECT_EQ(a.sum[i], b.sum[i]) << "state " << i;
}

// The dispatcher on the CPU is the cores' sum, with no chunk reported; the GPU
// required without a device is an error.
TEST(UniformisationSweeps, StepsOnTheCpuAreTheCoresSteps) {
  const MaybeSystem system = towards_one(301);
  const std::vector<double> start = start_values(301);
  const PoissonWeights poisson = poisson_weights(500.0, 1e-12);
  SolveReport report;
  expect_same_sums(weighted_steps_on(system, start.data(), poisson.weights, poisson.left, 1e-12, {SolverKind::cpu}, report),
                   weighted_steps_towards_one(system, start.data(), poisson.weights, poisson.left, 1e-12));
  EXPECT_TRUE(report.chunks.empty());
  if (gpu::free_device_memory()) return;
  EXPECT_THROW(weighted_steps_on(system, start.data(), poisson.weights, poisson.left, -1.0, {SolverKind::gpu}, report),
               std::runtime_error);
}

// The device's steps (skipped without one) against the cores', bit for bit: the
// shapes above with weights from step 0 and after it, and steps that settle early
// (the ring's: the steps the device queued past the settling one do nothing).
TEST(UniformisationSweeps, OnTheDeviceIsEquivalentToRef) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  const DeviceOptions gpu_only{SolverKind::gpu};
  const PoissonWeights poisson = poisson_weights(37.5, 1e-10);
  for (const MaybeSystem& system : uniformisation_shapes()) {
    SCOPED_TRACE(std::to_string(system.num_states()) + " states");
    const std::vector<double> start = start_values(system.num_states());
    for (std::uint64_t first : {std::uint64_t{0}, poisson.left}) {
      SolveReport report;
      const WeightedSum device = weighted_steps_on(system, start.data(), poisson.weights, first, -1.0, gpu_only, report);
      ASSERT_EQ(report.chunks.size(), 1u);
      EXPECT_TRUE(report.chunks[0].on_gpu);
      // The chain (8 bytes a row start, 12 an entry), b and three vectors at the least.
      EXPECT_GE(report.peak_device_bytes, 12 * system.columns.size() + 32 * system.num_states());
      EXPECT_EQ(report.chunks[0].footprint_bytes, report.peak_device_bytes);
      EXPECT_GE(report.device_in_use_bytes, report.peak_device_bytes);
      expect_same_sums(device, weighted_steps_towards_one(system, start.data(), poisson.weights, first, -1.0));
    }
  }
  const PoissonWeights many = poisson_weights(2000.0, 1e-12);
  for (std::uint32_t n : {9u, 5003u}) {
    SCOPED_TRACE("towards one, " + std::to_string(n) + " states");
    const MaybeSystem toward = towards_one(n);
    const std::vector<double> start(n, 0.0);
    SolveReport report;
    const WeightedSum device = weighted_steps_on(toward, start.data(), many.weights, many.left, 1e-12, gpu_only, report);
    const WeightedSum cpu = weighted_steps_towards_one(toward, start.data(), many.weights, many.left, 1e-12);
    EXPECT_LT(cpu.steps, many.right());
    expect_same_sums(device, cpu);
  }
}

TEST(UniformisationSweeps, RefuseASystemWithChoices) {
  const MaybeSystem with_choices = test::random_system(50, 3);
  const std::vector<double> start(50, 0.0);
  EXPECT_THROW(weighted_steps(with_choices, start.data(), {1.0}, 0), std::invalid_argument);
}

SparseMdp built(const std::string& text, const std::map<std::string, std::string>& constants = {}) {
  BuildOptions options;
  options.build_rewards = true;
  return build_model(resolve_model(io::parse_model(io::TextFile::from_string("m.sm", text)), constants), options).mdp;
}

// Two states: 0 -> 1 at rate a, 1 -> 0 at rate b; a self-loop on 1 that changes nothing.
const char* kTwoStates = R"(ctmc
const double a = 2.0;
const double b = 0.5;
module m
  s : [0..1] init 0;
  [] s=0 -> a : (s'=1);
  [] s=1 -> b : (s'=0);
  [] s=1 -> 3 : true;
endmodule
rewards "up" s=1 : 1; endrewards
rewards "switches" [] s=0 : 1; endrewards
)";

TEST(Uniformisation, TheChainMovesAsTheCtmcJumps) {
  SparseMdp ctmc = built(kTwoStates);
  ASSERT_EQ(ctmc.type, ModelType::ctmc);
  ASSERT_EQ(ctmc.num_states(), 2u);
  EXPECT_EQ(uniformisation_rate(ctmc), 2.0);  // the self-loop's rate leaves nothing
  uniformise(ctmc);
  EXPECT_EQ(ctmc.uniformisation_rate, 2.0);
  // Row 0: to 1 with 2/2, no self-loop; row 1: to 0 with 0.5/2, stays with the rest.
  ASSERT_EQ(ctmc.row_starts[1], 1u);
  EXPECT_EQ(ctmc.columns[0], 1u);
  EXPECT_EQ(ctmc.values[0], 1.0);
  ASSERT_EQ(ctmc.row_starts[2], 3u);
  EXPECT_EQ(ctmc.values[1], 0.25);
  EXPECT_EQ(ctmc.columns[2], 1u);
  EXPECT_EQ(ctmc.values[2], 0.75);
  EXPECT_THROW(uniformise(ctmc), std::invalid_argument);  // once only
}

struct Checked {
  SparseMdp ctmc;
  std::unique_ptr<graph::ChoicePredecessorGraph> graph;
  std::unique_ptr<graph::SearchBackend> search;
};

Checked uniformised(const std::string& text, const std::map<std::string, std::string>& constants = {}) {
  Checked c{built(text, constants), nullptr, nullptr};
  uniformise(c.ctmc);
  c.graph = std::make_unique<graph::ChoicePredecessorGraph>(graph::build_choice_predecessor_graph(c.ctmc));
  c.search = graph::make_search_backend(c.ctmc, *c.graph, graph::SearchKind::reference);
  return c;
}

PropertyResult check(const Checked& c, const std::string& text, SolverKind where = SolverKind::cpu) {
  io::PropertyEntry entry = io::parse_property(text, "p");
  if (!entry.formula) throw std::runtime_error(entry.error);
  SolverOptions solver{Method::optimistic_value_iteration, {ConvergenceCriterion::absolute, 1e-9, 1000000}};
  CheckContext context{c.ctmc, *c.search, PropertyScope{"p", {}, {}, {}}, solver, {where}};
  return check_property(*entry.formula, context);
}

double number(const Checked& c, const std::string& text) {
  const PropertyResult r = check(c, text);
  EXPECT_EQ(r.value.kind, PropertyValue::Kind::number) << text;
  return r.value.number;
}

std::string error(const Checked& c, const std::string& text) {
  try {
    check(c, text);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

TEST(Csl, TwoStateChainInClosedForm) {
  const Checked c = uniformised(kTwoStates);
  const double a = 2.0, b = 0.5, sum = a + b;
  for (double t : {0.1, 1.0, 7.5}) {
    const double up = a / sum * (1 - std::exp(-sum * t));  // P(X_t = 1 | X_0 = 0)
    const std::string at = std::to_string(t);
    EXPECT_NEAR(number(c, "P=? [ true U[" + at + "," + at + "] s=1 ]"), up, 1e-12) << t;
    EXPECT_NEAR(number(c, "R{\"up\"}=? [ I=" + at + " ]"), up, 1e-12) << t;
    // The time spent up by t, and the switches 0 -> 1 made by then (rate a while down).
    const double time_up = a / sum * (t - (1 - std::exp(-sum * t)) / sum);
    EXPECT_NEAR(number(c, "R{\"up\"}=? [ C<=" + at + " ]"), time_up, 1e-11) << t;
    EXPECT_NEAR(number(c, "R{\"switches\"}=? [ C<=" + at + " ]"), a * (t - time_up), 1e-10) << t;
    EXPECT_NEAR(number(c, "P=? [ F<=" + at + " s=1 ]"), 1 - std::exp(-a * t), 1e-12) << t;
    EXPECT_NEAR(number(c, "P=? [ F<" + at + " s=1 ]"), 1 - std::exp(-a * t), 1e-12) << t;  // < is <= in time
  }
  EXPECT_NEAR(number(c, "S=? [ s=1 ]"), a / sum, 1e-12);
  EXPECT_NEAR(number(c, "R{\"switches\"}=? [ S ]"), a * b / sum, 1e-12);  // a times the share of time down
  EXPECT_NEAR(number(c, "R{\"up\"}=? [ F s=0 ]"), 0.0, 0.0);               // starts in s=0
  // From s=0, the expected time until s=1 is 1/a: the reward of time down.
  const Checked counting = uniformised(std::string(kTwoStates) + "rewards \"down\" s=0 : 1; endrewards\n");
  EXPECT_NEAR(number(counting, "R{\"down\"}=? [ F s=1 ]"), 1 / a, 1e-9);
  EXPECT_EQ(number(c, "P=? [ F<=0 s=1 ]"), 0.0);
}

// The bounds of a time-bounded property hold the exact value.
TEST(Csl, BoundsHoldTheExactValue) {
  const Checked c = uniformised(kTwoStates);
  const PropertyResult r = check(c, "P=? [ true U[3,3] s=1 ]");
  ASSERT_TRUE(r.value.lower_bound && r.value.upper_bound);
  const double exact = 2.0 / 2.5 * (1 - std::exp(-2.5 * 3));
  EXPECT_LE(*r.value.lower_bound, exact + 1e-15);
  EXPECT_GE(*r.value.upper_bound, exact - 1e-15);
}

// Where a time-bounded probability is exactly 0 or 1 (a state that cannot reach the
// target, the target itself), its bounds are that number, so that P>0 and P>=1 are
// decided there, as PRISM's graph analysis decides them; the others' bounds are wide.
TEST(Csl, ExactZerosAndOnesKeepTheirBounds) {
  const Checked c = uniformised(R"(ctmc
module branch
  s : [0..2] init 0;
  [] s=0 -> 1 : (s'=1) + 1 : (s'=2);
endmodule
)");
  for (const char* path : {"F<=4 s=1", "F[1,2] s=1", "s!=2 U[0.5,3] s=1"}) {
    const std::string p(path);
    const PropertyResult decided = check(c, "filter(forall, (P>0 [ " + p + " ] <=> s<2) & (P>=1 [ " + p + " ] <=> s=1))");
    EXPECT_EQ(decided.value.kind, PropertyValue::Kind::boolean) << path;
    EXPECT_TRUE(decided.value.truth) << path;
    const PropertyResult from_start = check(c, "P=? [ " + p + " ]");
    ASSERT_TRUE(from_start.value.lower_bound && from_start.value.upper_bound) << path;
    EXPECT_LT(*from_start.value.lower_bound, *from_start.value.upper_bound) << path;  // moved: bounds apart
  }
}

// An M/M/1 queue of capacity k, arrivals at rate 3, service at rate 4.
std::string queue_of(int k) {
  return "ctmc\nconst int K = " + std::to_string(k) + R"(;
module queue
  n : [0..K] init 0;
  [] n<K -> 3 : (n'=n+1);
  [] n>0 -> 4 : (n'=n-1);
endmodule
rewards "length" true : n; endrewards
)";
}

// M/M/1 with capacity K: pi_n proportional to rho^n, rho = lambda / mu.
TEST(Csl, QueueStationaryDistribution) {
  const Checked c = uniformised(queue_of(20));
  const double rho = 0.75, K = 20;
  const double norm = (1 - std::pow(rho, K + 1)) / (1 - rho);
  for (int n : {0, 1, 7, 20}) {
    EXPECT_NEAR(number(c, "S=? [ n=" + std::to_string(n) + " ]"), std::pow(rho, n) / norm, 1e-12) << n;
  }
  double mean = 0;
  for (int n = 0; n <= K; ++n) mean += n * std::pow(rho, n) / norm;
  EXPECT_NEAR(number(c, "R{\"length\"}=? [ S ]"), mean, 1e-10);
}

// The same queue, long enough (20,001 states) that its stationary distribution is
// solved on the device where there is one: the same closed form, on the GPU and on
// the cores.
TEST(Csl, LongQueueStationaryDistributionOnTheDeviceAndTheCores) {
  const bool device = gpu::free_device_memory() > 0;
  const Checked c = uniformised(queue_of(20000));
  const double rho = 0.75, K = 20000;
  const double norm = (1 - std::pow(rho, K + 1)) / (1 - rho);
  for (SolverKind where : {SolverKind::cpu, SolverKind::gpu}) {
    if (where == SolverKind::gpu && !device) continue;
    for (int n : {0, 1, 7, 40}) {
      const PropertyResult r = check(c, "S=? [ n=" + std::to_string(n) + " ]", where);
      EXPECT_NEAR(r.value.number, std::pow(rho, n) / norm, 1e-12) << n;
      ASSERT_TRUE(r.computation);
      const std::vector<ChunkReport>& chunks = r.computation->solve.chunks;
      ASSERT_FALSE(chunks.empty());
      EXPECT_EQ(chunks.front().on_gpu, where == SolverKind::gpu);
      // The device's share is reported where it held the system (8 bytes a row of its
      // matrix's entries and vectors at the least), and none where it did not.
      const SolveReport& solve = r.computation->solve;
      if (where == SolverKind::gpu) {
        EXPECT_GE(solve.peak_device_bytes, 8 * K);
        EXPECT_GE(solve.device_in_use_bytes, solve.peak_device_bytes);
      } else {
        EXPECT_EQ(solve.peak_device_bytes, 0u);
      }
    }
    EXPECT_NEAR(check(c, "R{\"length\"}=? [ S ]", where).value.number, rho / (1 - rho), 1e-9);
  }
  if (!device) GTEST_SKIP() << "no CUDA device: the cores only";
}

// A long-run property's phases do not overlap: together they take no longer than the
// whole check (the Prob0/Prob1 phase held the stationary solve's time too).
TEST(Csl, LongRunPhasesDoNotOverlap) {
  const Checked c = uniformised(queue_of(20000));
  const auto start = std::chrono::steady_clock::now();
  const PropertyResult r = check(c, "S=? [ n<=7 ]");
  const double whole_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.computation);
  const NumericResult& d = *r.computation;
  EXPECT_GT(d.solve.time_s, 0.0);
  EXPECT_LE(d.qualitative.time_s + d.sccs.time_s + d.solve.time_s, whole_s);
}

TEST(Csl, ErrorsNameTheBound) {
  const Checked c = uniformised(kTwoStates);
  EXPECT_EQ(error(c, "P=? [ F<=-1 s=1 ]"), "p:1:10: a time bound must be a finite number >= 0, found -1");
  EXPECT_EQ(error(c, "P=? [ F<=0/0 s=1 ]"), "p:1:11: a time bound must be a finite number >= 0, found NaN");
  EXPECT_EQ(error(c, "P=? [ F[2,1] s=1 ]"), "p:1:11: the time interval [2, 1] is empty");
  EXPECT_EQ(error(c, "E [ F<=1 s=1 ]"), "p:1:1: not supported yet: E and A with a time bound on a CTMC");
}

// The path quantifiers and X range over the CTMC's jumps: state 1 leaves at rate b, however
// large the uniformised chain's self-loop there (and its own rate-3 self-loop is no
// jump), so every path visits both states forever. On the uniformised chain, A [ F s=0 ]
// from 1 and A [ G F s=0 ] were false. A state that leaves nowhere keeps its loop.
TEST(Csl, PathQuantifiersFollowTheJumps) {
  const Checked c = uniformised(kTwoStates);
  const SparseMdp jumps = embedded_chain(c.ctmc);
  ASSERT_EQ(jumps.num_transitions(), 2u);
  EXPECT_EQ(jumps.columns[1], 0u);
  EXPECT_EQ(jumps.values[1], 1.0);
  const auto holds_everywhere = [&](const std::string& text) {
    return check(c, "filter(forall, " + text + ")").value.truth;
  };
  EXPECT_TRUE(holds_everywhere("A [ F s=0 ]"));
  EXPECT_TRUE(holds_everywhere("A [ G F s=0 ]"));
  EXPECT_TRUE(holds_everywhere("A [ G F s=1 ]"));
  EXPECT_FALSE(holds_everywhere("E [ F G s=1 ]"));
  EXPECT_FALSE(holds_everywhere("E [ G s=1 ]"));
  // X is the first jump's: from 1 (leaving at rate b, a rate-3 loop beside) surely to 0.
  EXPECT_EQ(number(c, "P=? [ X s=0 ]"), 0.0);
  EXPECT_EQ(check(c, "filter(state, P=? [ X s=0 ], s=1)").value.number, 1.0);
  const Checked absorbing = uniformised("ctmc\nmodule m s:[0..1] init 0; [] s=0 -> 4:(s'=1); endmodule\n");
  EXPECT_EQ(check(absorbing, "filter(state, P=? [ X s=1 ], s=1)").value.number, 1.0);  // its loop
  EXPECT_TRUE(check(absorbing, "filter(forall, A [ F G s=1 ])").value.truth);
  EXPECT_EQ(embedded_chain(absorbing.ctmc).columns.back(), 1u);  // state 1's own loop
}

TEST(CtmcBuild, RatesAddUpAndNegativeRatesAreErrors) {
  // Two commands to the same state race: their rates add up (a DTMC would average them).
  SparseMdp ctmc = built("ctmc\nmodule m s:[0..1] init 0; [] s=0 -> 2:(s'=1); [] s=0 -> 3:(s'=1); endmodule\n");
  double out = 0;
  for (std::uint64_t k = ctmc.row_starts[0]; k < ctmc.row_starts[1]; ++k) out += ctmc.values[k];
  EXPECT_EQ(out, 5.0);
  try {
    built("ctmc\nmodule m s:[0..1] init 0; [] s=0 -> -2:(s'=1); endmodule\n");
    FAIL() << "a negative rate was accepted";
  } catch (const std::exception& e) {
    EXPECT_STREQ(e.what(), "m.sm:2:27: rate -2 is not a finite number >= 0 in state (s=0)");
  }
}

// PRISM's explicit files hold rates where --ctmc says so, DRN its rates, UMB its exit
// rates and embedded probabilities: written and read back, the CTMC is the same,
// rewards (as rates) included (UMB's rates to rounding: rate / exit rate * exit rate).
TEST(CtmcFiles, ExplicitFilesDrnAndUmbReadBackTheSameRates) {
  const SparseMdp ctmc = built(kTwoStates);
  const std::string base = (std::filesystem::temp_directory_path() / "mdpvi_two_states").string();
  for (const std::string& path : {base + ".tra", base + ".drn", base + ".umb"}) {
    io::write_model_file(ctmc, path);
    const SparseMdp read = io::read_model_file(io::model_format(path, std::nullopt), path, path.ends_with(".tra"));
    EXPECT_EQ(read.type, ModelType::ctmc) << path;
    ASSERT_EQ(read.num_transitions(), ctmc.num_transitions()) << path;
    for (std::uint64_t k = 0; k < ctmc.num_transitions(); ++k) {
      EXPECT_NEAR(read.values[k], ctmc.values[k], 1e-15 * ctmc.values[k]) << path;
    }
    ASSERT_EQ(read.rewards.size(), 2u) << path;
  }
  // Without --ctmc the rates are a DTMC's probabilities, which do not sum to 1.
  EXPECT_THROW(io::read_model_file(io::ModelFormat::explicit_files, base + ".tra"), std::exception);
}

}  // namespace
}  // namespace mdpvi
