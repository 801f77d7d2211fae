// PRISM's own exports of the benchmark instances (../shared/benchmarks/explicit)
// against PRISM's counts and sound reference values (../shared/benchmarks/reference.json).
#include "reference_instances.h"
#include "tools/check_run.h"

#include "engine/model/sparse_mdp.h"
#include "io/explicit_reader.h"

namespace mdpvi {
namespace {

using test::kShared;

struct Instance {
  const char* name;
  int answerable;  // properties over labels and variables (an explicit model has no formulas)
};

class Golden : public ::testing::TestWithParam<Instance> {
 protected:
  void SetUp() override {
    if (!test::have_shared()) GTEST_SKIP() << "no " << kShared << " here";
  }
};

TEST_P(Golden, CountsAndPropertiesMatchPrism) {
  const Instance instance = GetParam();
  const nlohmann::json& expected = test::reference().at(instance.name);
  tools::CheckOptions options =
      test::reference_check(expected, (kShared / "benchmarks/explicit" / instance.name).string());
  // Properties using model formulas cannot be answered from explicit files.
  int answered = test::expect_matches_reference(tools::run_check(options), expected);
  EXPECT_EQ(answered, instance.answerable);
}

INSTANTIATE_TEST_SUITE_P(Benchmarks, Golden,
                         ::testing::Values(Instance{"coin2_2", 8}, Instance{"coin4_2", 8}, Instance{"leader3", 5},
                                           Instance{"leader4", 5}, Instance{"csma2_2", 6}, Instance{"wlan0", 9},
                                           Instance{"wlan0_collide", 1}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(GoldenFiles, Herman5IsReadAsADtmc) {
  if (!test::have_shared()) GTEST_SKIP();
  SparseMdp mdp = io::read_explicit_model((kShared / "benchmarks/explicit/herman5").string());
  EXPECT_EQ(mdp.type, ModelType::dtmc);
  EXPECT_EQ(mdp.num_states(), 32u);
  EXPECT_EQ(mdp.num_choices(), 32u);
  EXPECT_EQ(mdp.num_transitions(), 244u);
  ASSERT_TRUE(mdp.valuations);
  EXPECT_EQ(mdp.valuations->variables.size(), 5u);
  EXPECT_EQ(mdp.initial_states.size(), 32u);  // init true endinit
  ASSERT_EQ(mdp.rewards.size(), 1u);
  EXPECT_EQ(mdp.rewards[0].name, "steps");
}

TEST(GoldenFiles, Wlan0HasItsThreeNumberedRewardStructures) {
  if (!test::have_shared()) GTEST_SKIP();
  SparseMdp mdp = io::read_explicit_model((kShared / "benchmarks/explicit/wlan0").string());
  ASSERT_EQ(mdp.rewards.size(), 3u);
  EXPECT_EQ(mdp.rewards[0].name, "collisions");
  EXPECT_EQ(mdp.rewards[1].name, "time");
  EXPECT_EQ(mdp.rewards[2].name, "cost");
  EXPECT_EQ(mdp.rewards[1].choice_rewards.size(), mdp.num_choices());
}

}  // namespace
}  // namespace mdpvi
