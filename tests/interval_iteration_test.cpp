// Sound mode (--sound): interval iteration brackets the truth where plain value
// iteration stops early, and brackets PRISM's reference values within 2*epsilon.
#include "engine/check/property_checker.h"
#include "graph/qualitative.h"
#include "graph/search_backend.h"
#include "gpu/device_solver.h"
#include "io/property_parser.h"
#include "reference_instances.h"
#include "test_models.h"

#include <gtest/gtest.h>

namespace mdpvi {
namespace {

using test::make_mdp;

PropertyValue check(const SparseMdp& mdp, const std::string& text, bool sound, double epsilon,
                    ConvergenceCriterion criterion = ConvergenceCriterion::absolute) {
  io::PropertyEntry entry = io::parse_property(text, "p");
  if (!entry.formula) throw std::runtime_error(entry.error);
  graph::ChoicePredecessorGraph graph = graph::build_choice_predecessor_graph(mdp);
  auto search = graph::make_search_backend(mdp, graph, graph::SearchKind::reference);
  SolverOptions solver{sound ? Method::interval_iteration : Method::value_iteration, {criterion, epsilon, 10000000}};
  CheckContext context{mdp, *search, PropertyScope{"p", {}, {}, {}}, solver, {SolverKind::cpu, std::nullopt, 0}};
  return check_property(*entry.formula, context).value;
}

// State 0 keeps itself with probability 1 - 1e-4 or stops (b); goal and fail halve
// the rest. Pmax = 1/2, approached at rate 1e-4 per sweep: plain value iteration
// at absolute 1e-6 stops where one sweep adds less than 1e-6, near 0.49.
SparseMdp slow_leak() {
  const double d = 1e-4;
  return make_mdp({{{{0, 1 - d}, {1, d / 2}, {2, d / 2}}, {{2, 1.0}}}, {{{1, 1.0}}}, {{{2, 1.0}}}}, {{"goal", {1}}});
}

TEST(IntervalIteration, PlainValueIterationStopsFarFromTheTruth) {
  PropertyValue plain = check(slow_leak(), "Pmax=? [ F \"goal\" ]", false, 1e-6);
  EXPECT_GT(0.5 - plain.number, 1e-3);  // a thousand times epsilon off
  EXPECT_FALSE(plain.lower_bound);
  PropertyValue sound = check(slow_leak(), "Pmax=? [ F \"goal\" ]", true, 1e-6);
  ASSERT_TRUE(sound.lower_bound && sound.upper_bound);
  EXPECT_LE(*sound.lower_bound, 0.5);
  EXPECT_GE(*sound.upper_bound, 0.5);
  EXPECT_LE(*sound.upper_bound - *sound.lower_bound, 2e-6);
  EXPECT_NEAR(sound.number, 0.5, 1e-6);
}

// 0 and 1 can swap forever (an end component); each may also leave, to the goal with
// probability 1/2 from 0 and 3/10 from 1. Pmax = 1/2 from both. Without collapsing
// the component the upper iterate would stay at 1.
TEST(IntervalIteration, PmaxEndComponentsAreCollapsed) {
  SparseMdp mdp = make_mdp({{{{1, 1.0}}, {{2, 0.5}, {3, 0.5}}}, {{{0, 1.0}}, {{2, 0.3}, {3, 0.7}}}, {{{2, 1.0}}}, {{{3, 1.0}}}},
                           {{"goal", {2}}});
  PropertyValue sound = check(mdp, "Pmax=? [ F \"goal\" ]", true, 1e-8);
  ASSERT_TRUE(sound.lower_bound);
  EXPECT_NEAR(sound.number, 0.5, 1e-8);
  EXPECT_LE(*sound.lower_bound, 0.5);
  EXPECT_GE(*sound.upper_bound, 0.5);
  mdp.initial_states = {1};
  EXPECT_NEAR(check(mdp, "Pmax=? [ F \"goal\" ]", true, 1e-8).number, 0.5, 1e-8);
  EXPECT_NEAR(check(mdp, "Pmin=? [ F \"goal\" ]", true, 1e-8).number, 0.0, 0.0);  // swap forever
}

// One reward per step, leaving with probability 1e-4 per step: 10^4 steps expected.
// Plain value iteration (relative 1e-6) stops early; the sound one brackets 10^4.
TEST(IntervalIteration, RewardsGetAVerifiedUpperBound) {
  const double d = 1e-4;
  SparseMdp mdp = make_mdp({{{{0, 1 - d}, {1, d}}}, {{{1, 1.0}}}}, {{"goal", {1}}});
  mdp.rewards.push_back({"steps", {1.0, 0.0}, {}});
  PropertyValue plain = check(mdp, "R=? [ F \"goal\" ]", false, 1e-6, ConvergenceCriterion::relative);
  EXPECT_GT(1e4 - plain.number, 1.0);
  PropertyValue sound = check(mdp, "R=? [ F \"goal\" ]", true, 1e-6, ConvergenceCriterion::relative);
  ASSERT_TRUE(sound.lower_bound);
  EXPECT_LE(*sound.lower_bound, 1e4 * (1 + 1e-12));
  EXPECT_GE(*sound.upper_bound, 1e4 * (1 - 1e-12));
  EXPECT_LE(*sound.upper_bound - *sound.lower_bound, 2e-6 * *sound.lower_bound);
}

// Every property of the reference instances CI can afford, in sound mode at the
// default relative 1e-6: PRISM's value (itself within 1e-9) inside the interval, and
// the interval no wider than 2*epsilon relative to its lower end.
// With a device also on the GPU, whole and in chunks of at most 30 kB.
struct SoundCase {
  std::string instance;
  SolverKind solver;
  std::optional<std::size_t> memory_limit;
};

void PrintTo(const SoundCase& c, std::ostream* os) {
  *os << c.instance << (c.solver == SolverKind::cpu ? " cpu" : " gpu");
  if (c.memory_limit) *os << " limit " << *c.memory_limit;
}

class SoundReference : public ::testing::TestWithParam<SoundCase> {
 protected:
  void SetUp() override {
    if (!test::have_shared()) GTEST_SKIP();
    if (GetParam().solver == SolverKind::gpu && !gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_P(SoundReference, IntervalContainsReference) {
  const nlohmann::json& instance = test::reference().at(GetParam().instance);
  tools::CheckOptions options = test::reference_check(instance);
  options.solver = {Method::interval_iteration, {ConvergenceCriterion::relative, 1e-6, 10000000}};
  options.device = {GetParam().solver, GetParam().memory_limit, 0};
  tools::CheckReport report = tools::run_check(options);
  const auto& properties = instance.at("properties");
  ASSERT_EQ(report.properties.size(), properties.size());
  for (std::size_t i = 0; i < properties.size(); ++i) {
    const tools::PropertyOutcome& outcome = report.properties[i];
    ASSERT_TRUE(outcome.value) << outcome.property << ": " << outcome.error;
    const std::string reference = properties[i].at("reference").get<std::string>();
    if (outcome.value->kind == PropertyValue::Kind::boolean) {
      EXPECT_EQ(outcome.value->truth, reference == "true") << outcome.property;
      continue;
    }
    ASSERT_TRUE(outcome.value->lower_bound) << outcome.property;
    double truth = std::stod(reference), lower = *outcome.value->lower_bound, upper = *outcome.value->upper_bound;
    EXPECT_LE(lower, truth + 1e-9 * std::abs(truth) + 1e-15) << outcome.property;
    EXPECT_GE(upper, truth - 1e-9 * std::abs(truth) - 1e-15) << outcome.property;
    EXPECT_LE(upper - lower, 2e-6 * lower + 1e-15) << outcome.property;
  }
}

std::vector<SoundCase> sound_cases() {
  std::vector<SoundCase> cases;
  for (const char* name : {"coin2_2", "coin4_2", "coin4_4", "csma2_2", "csma3_2", "leader4", "leader5", "wlan1",
                           "wlan2_collide"}) {
    cases.push_back({name, SolverKind::cpu, std::nullopt});
    cases.push_back({name, SolverKind::gpu, std::nullopt});
    cases.push_back({name, SolverKind::gpu, 30000});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Reference, SoundReference, ::testing::ValuesIn(sound_cases()), [](const auto& info) {
  const SoundCase& c = info.param;
  return c.instance + (c.solver == SolverKind::cpu ? "_cpu" : c.memory_limit ? "_gpu_chunked" : "_gpu");
});

}  // namespace
}  // namespace mdpvi
