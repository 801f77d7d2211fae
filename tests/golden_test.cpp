// PRISM's own exports of the benchmark instances (../shared/benchmarks/explicit)
// against PRISM's counts and sound reference values (../shared/benchmarks/reference.json).
#include "reference_instances.h"
#include "engine/pipeline/check_run.h"

#include "engine/model/sparse_mdp.h"
#include "io/drn_reader.h"
#include "io/explicit_reader.h"

#include <algorithm>

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
  pipeline::CheckOptions options =
      test::reference_check(expected, (kShared / "benchmarks/explicit" / instance.name).string());
  // Properties using model formulas cannot be answered from explicit files.
  int answered = test::expect_matches_reference(pipeline::run_check(options), expected);
  EXPECT_EQ(answered, instance.answerable);
}

INSTANTIATE_TEST_SUITE_P(Benchmarks, Golden,
                         ::testing::Values(Instance{"coin2_2", 8}, Instance{"coin4_2", 8}, Instance{"leader3", 5},
                                           Instance{"leader4", 5}, Instance{"csma2_2", 6}, Instance{"wlan0", 9},
                                           Instance{"wlan0_collide", 1}),
                         [](const auto& info) { return std::string(info.param.name); });

// The same instances from PRISM's DRN and UMB exports (mdpvi check X.drn, X.umb). DRN
// carries no state valuations: only the properties over labels can be answered; UMB
// carries them, and as many are answered as from the .tra files.
void expect_export_matches_prism(const char* name, const std::string& extension, int answerable) {
  const nlohmann::json& expected = test::reference().at(name);
  pipeline::CheckOptions options = test::reference_check(expected);
  options.model_file = (kShared / "benchmarks/explicit" / (std::string(name) + extension)).string();
  const int answered = test::expect_matches_reference(pipeline::run_check(options), expected);
  EXPECT_EQ(answered, answerable);
}

class GoldenDrn : public Golden {};
TEST_P(GoldenDrn, CountsAndPropertiesMatchPrism) { expect_export_matches_prism(GetParam().name, ".drn", GetParam().answerable); }
INSTANTIATE_TEST_SUITE_P(Benchmarks, GoldenDrn,
                         ::testing::Values(Instance{"coin2_2", 8}, Instance{"coin4_2", 8}, Instance{"leader3", 5},
                                           Instance{"leader4", 5}, Instance{"csma2_2", 6}, Instance{"wlan0", 0},
                                           Instance{"wlan0_collide", 0}),
                         [](const auto& info) { return std::string(info.param.name); });

class GoldenUmb : public Golden {};
TEST_P(GoldenUmb, CountsAndPropertiesMatchPrism) { expect_export_matches_prism(GetParam().name, ".umb", GetParam().answerable); }
INSTANTIATE_TEST_SUITE_P(Benchmarks, GoldenUmb,
                         ::testing::Values(Instance{"coin2_2", 8}, Instance{"coin4_2", 8}, Instance{"leader3", 5},
                                           Instance{"leader4", 5}, Instance{"csma2_2", 6}, Instance{"wlan0", 9},
                                           Instance{"wlan0_collide", 1}),
                         [](const auto& info) { return std::string(info.param.name); });

// The DRN and .tra exports of one model are the same model: structure, labels,
// initial states and rewards (the unnamed structure of leader's, three of wlan's).
TEST(GoldenFiles, DrnAndTraExportsAreTheSameModel) {
  if (!test::have_shared()) GTEST_SKIP();
  for (const char* name : {"coin2_2", "csma2_2", "herman5", "leader3", "wlan0"}) {
    const std::string base = (kShared / "benchmarks/explicit" / name).string();
    const SparseMdp drn = io::read_drn_model(base + ".drn");
    const SparseMdp tra = io::read_explicit_model(base);
    EXPECT_EQ(drn.type, tra.type) << name;
    EXPECT_EQ(drn.row_group_starts, tra.row_group_starts) << name;
    EXPECT_EQ(drn.row_starts, tra.row_starts) << name;
    EXPECT_EQ(drn.columns, tra.columns) << name;
    EXPECT_EQ(drn.values, tra.values) << name;
    EXPECT_EQ(drn.initial_states, tra.initial_states) << name;
    // PRISM's DRN lists wlan's structures in another order than its numbered .srew
    // files: they are matched by name (an unnamed one by position).
    ASSERT_EQ(drn.rewards.size(), tra.rewards.size()) << name;
    for (std::size_t r = 0; r < drn.rewards.size(); ++r) {
      const RewardStructure& read = drn.rewards[r];
      const auto by_name = std::find_if(tra.rewards.begin(), tra.rewards.end(),
                                        [&](const RewardStructure& t) { return t.name == read.name; });
      ASSERT_TRUE(read.name.empty() || by_name != tra.rewards.end()) << name << ": " << read.name;
      const RewardStructure& exported = read.name.empty() ? tra.rewards[r] : *by_name;
      for (std::uint32_t s = 0; s < drn.num_states(); ++s) {
        for (std::uint64_t row = drn.row_group_starts[s]; row < drn.row_group_starts[s + 1]; ++row) {
          ASSERT_DOUBLE_EQ(read.row_reward(s, row), exported.row_reward(s, row)) << name << " state " << s;
        }
      }
    }
    for (const Label& label : tra.labels) {
      // DRN names a label only at its states: one that holds nowhere ("deadlock") is absent.
      const auto same = std::find_if(drn.labels.begin(), drn.labels.end(), [&](const Label& l) { return l.name == label.name; });
      if (same == drn.labels.end()) {
        EXPECT_TRUE(label.states.none()) << name << ": " << label.name;
      } else {
        EXPECT_EQ(same->states, label.states) << name << ": " << label.name;
      }
    }
  }
}

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
