// PRISM's own exports of the benchmark instances (../shared/benchmarks/explicit)
// against PRISM's counts and sound reference values (../shared/benchmarks/reference.json).
#include "engine/reachability.h"
#include "engine/state_formula.h"
#include "io/explicit_reader.h"
#include "io/property_parser.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace mdpvi {
namespace {

const std::filesystem::path kShared = MDPVI_SHARED_DIR;

nlohmann::json reference() {
  std::ifstream in(kShared / "benchmarks/reference.json");
  return nlohmann::json::parse(in);
}

struct Instance {
  const char* name;
  int label_properties;  // Pmin/Pmax properties over labels in its property file
};

class Golden : public ::testing::TestWithParam<Instance> {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kShared / "benchmarks")) GTEST_SKIP() << "no " << kShared << " here";
  }
};

TEST_P(Golden, CountsAndLabelPropertiesMatchPrism) {
  const Instance instance = GetParam();
  const nlohmann::json expected = reference().at(instance.name);
  SparseMdp mdp = io::read_explicit_model((kShared / "benchmarks/explicit" / instance.name).string());
  EXPECT_EQ(mdp.num_states(), expected.at("states").get<std::uint64_t>());
  EXPECT_EQ(mdp.num_choices(), expected.at("choices").get<std::uint64_t>());
  EXPECT_EQ(mdp.num_transitions(), expected.at("transitions").get<std::uint64_t>());

  SolverOptions options;
  options.epsilon = 1e-10;
  options.criterion = ConvergenceCriterion::absolute;
  options.max_iterations = 1000000;
  auto graph = graph::build_choice_predecessor_graph(mdp);
  int checked = 0;
  for (const nlohmann::json& property : expected.at("properties")) {
    io::PropertyEntry entry = io::parse_property(property.at("property").get<std::string>(), "reference");
    if (!entry.query) continue;
    StateSet phi = evaluate(entry.query->left, mdp);
    StateSet psi = evaluate(entry.query->right, mdp);
    ReachabilityResult result = compute_until_probabilities(mdp, graph, entry.query->direction, phi, psi, options);
    double value = result.state_values[mdp.initial_states.front()];
    double truth = std::stod(property.at("reference").get<std::string>());
    EXPECT_LE(std::abs(value - truth), 1e-6 * std::abs(truth) + 1e-12) << entry.text << ": " << value << " vs " << truth;
    EXPECT_TRUE(result.solve.converged);
    ++checked;
  }
  EXPECT_EQ(checked, instance.label_properties);
}

INSTANTIATE_TEST_SUITE_P(Benchmarks, Golden,
                         ::testing::Values(Instance{"coin2_2", 3}, Instance{"coin4_2", 3}, Instance{"leader3", 0},
                                           Instance{"leader4", 0}, Instance{"csma2_2", 2}, Instance{"wlan0", 0},
                                           Instance{"wlan0_collide", 0}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(GoldenFiles, Herman5IsReadAsADtmc) {
  if (!std::filesystem::exists(kShared / "benchmarks")) GTEST_SKIP();
  SparseMdp mdp = io::read_explicit_model((kShared / "benchmarks/explicit/herman5").string());
  EXPECT_EQ(mdp.type, ModelType::dtmc);
  EXPECT_EQ(mdp.num_states(), 32u);
  EXPECT_EQ(mdp.num_choices(), 32u);
  EXPECT_EQ(mdp.num_transitions(), 244u);
  ASSERT_TRUE(mdp.valuations);
  EXPECT_EQ(mdp.valuations->variables.size(), 5u);
  ASSERT_EQ(mdp.rewards.size(), 1u);
  EXPECT_EQ(mdp.rewards[0].name, "steps");
}

TEST(GoldenFiles, Wlan0HasItsThreeNumberedRewardStructures) {
  if (!std::filesystem::exists(kShared / "benchmarks")) GTEST_SKIP();
  SparseMdp mdp = io::read_explicit_model((kShared / "benchmarks/explicit/wlan0").string());
  ASSERT_EQ(mdp.rewards.size(), 3u);
  EXPECT_EQ(mdp.rewards[0].name, "collisions");
  EXPECT_EQ(mdp.rewards[1].name, "time");
  EXPECT_EQ(mdp.rewards[2].name, "cost");
  EXPECT_EQ(mdp.rewards[1].choice_rewards.size(), mdp.num_choices());
}

}  // namespace
}  // namespace mdpvi
