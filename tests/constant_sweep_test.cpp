// PRISM's constant ranges: expansion, and the order of the settings (the model's
// constants varying slowest, so each model is built once).
#include "engine/pipeline/constant_sweep.h"
#include "engine/model/property_value.h"
#include "engine/pipeline/option_text.h"

#include <gtest/gtest.h>

namespace mdpvi::pipeline {
namespace {

using Values = std::vector<std::string>;

TEST(ConstantRange, ExpandsIntegerRanges) {
  EXPECT_EQ(expand_constant_range("K", "2:2:6"), (Values{"2", "4", "6"}));
  EXPECT_EQ(expand_constant_range("K", "2:4"), (Values{"2", "3", "4"}));
  EXPECT_EQ(expand_constant_range("K", "2:2:7"), (Values{"2", "4", "6"}));
  EXPECT_EQ(expand_constant_range("K", "6:-3:0"), (Values{"6", "3", "0"}));
  EXPECT_EQ(expand_constant_range("K", "5:5"), (Values{"5"}));
  EXPECT_EQ(expand_constant_range("K", "7"), (Values{"7"}));
  EXPECT_EQ(expand_constant_range("b", "true"), (Values{"true"}));
}

// In the decimals the range is written in, as PRISM prints them (issue 44); in the
// shortest text that reads back where its numbers have an exponent.
TEST(ConstantRange, ExpandsRealRangesWithoutDrift) {
  EXPECT_EQ(expand_constant_range("p", "0:0.1:0.3"), (Values{"0", "0.1", "0.2", "0.3"}));
  EXPECT_EQ(expand_constant_range("p", "0.5:0.25:1"), (Values{"0.5", "0.75", "1"}));
  EXPECT_EQ(expand_constant_range("p", "1:-0.1:0.7"), (Values{"1", "0.9", "0.8", "0.7"}));
  EXPECT_EQ(expand_constant_range("p", "-0.2:0.1:0"), (Values{"-0.2", "-0.1", "0"}));
  EXPECT_EQ(expand_constant_range("p", "0:1e-1:0.3"), (Values{"0", "0.1", "0.2", "0.30000000000000004"}));
}

// PRISM's exact-arithmetic tests sweep p=0:1/3:1: fractions as bounds and steps.
TEST(ConstantRange, ExpandsRangesWrittenInFractions) {
  EXPECT_EQ(expand_constant_range("p", "0:1/3:1"),
            (std::vector<std::string>{"0", format_number(1.0 / 3), format_number(2.0 / 3), "1"}));
  EXPECT_EQ(expand_constant_range("p", "1/4:1/4:1/2"), (std::vector<std::string>{"0.25", "0.5"}));
  EXPECT_THROW(expand_constant_range("p", "0:1/0:1"), std::invalid_argument);
}

TEST(ConstantRange, RejectsBadRanges) {
  for (const char* bad : {"3:1", "1:0:5", "a:3", "1:2:3:4", "1:", "0:1e-9:1000"}) {
    EXPECT_THROW(expand_constant_range("K", bad), std::invalid_argument) << bad;
  }
}

TEST(ConstantSettings, ModelConstantsVarySlowest) {
  const std::vector<ConstantSetting> settings = constant_settings({{"K", "2:3"}, {"k", "1:2"}, {"a", "0"}}, {"K"});
  ASSERT_EQ(settings.size(), 4u);
  EXPECT_EQ(describe(settings[0]), "K=2,a=0,k=1");
  EXPECT_EQ(describe(settings[1]), "K=2,a=0,k=2");
  EXPECT_EQ(describe(settings[2]), "K=3,a=0,k=1");
  EXPECT_EQ(describe(model_part(settings[3], {"K"})), "K=3");
  EXPECT_TRUE(has_range({{"K", "2:3"}}));
  EXPECT_FALSE(has_range({{"K", "2"}}));
  EXPECT_EQ(constant_settings({}, {}).size(), 1u);  // one setting of no constants
}

TEST(OptionText, ConstantDefinitionsSplitAtCommasAndTrim) {
  const std::map<std::string, std::string> expected{{"K", "2"}, {"N", "3"}, {"k", "1:2"}};
  EXPECT_EQ(parse_constant_definitions({"K = 2, N=3", " k=1:2 ", ""}), expected);
  EXPECT_THROW(parse_constant_definitions({"K=2,K=3"}), std::invalid_argument);
  EXPECT_THROW(parse_constant_definitions({"K"}), std::invalid_argument);
  EXPECT_THROW(parse_constant_definitions({"=2"}), std::invalid_argument);
}

TEST(OptionText, InlinePropertiesSplitAtSemicolonsOutsideQuotes) {
  const std::vector<std::string> expected{"P=? [ F \"a;b\" ]", "Pmax=? [ F x=1 ]"};
  EXPECT_EQ(split_inline_properties({" P=? [ F \"a;b\" ] ;; Pmax=? [ F x=1 ];", "  "}), expected);
}

// The names of the solver's choices, as the command and the Python module take them.
TEST(OptionText, SolverChoicesByName) {
  EXPECT_EQ(method_named("ovi"), Method::optimistic_value_iteration);
  EXPECT_EQ(method_named("ii"), Method::interval_iteration);
  EXPECT_EQ(method_named("vi"), Method::value_iteration);
  EXPECT_EQ(method_named("bicgstab"), Method::bicgstab);
  EXPECT_EQ(solver_named("auto"), SolverKind::automatic);
  EXPECT_EQ(solver_named("gpu"), SolverKind::gpu);
  EXPECT_EQ(solver_named("cpu"), SolverKind::cpu);
  EXPECT_EQ(system_storage_named("auto"), gpu::SystemStorage::automatic);
  EXPECT_EQ(system_storage_named("copy"), gpu::SystemStorage::copy);
  EXPECT_EQ(system_storage_named("view"), gpu::SystemStorage::view);
  EXPECT_THROW(method_named("fast"), std::invalid_argument);
  EXPECT_THROW(solver_named("GPU"), std::invalid_argument);
  EXPECT_THROW(system_storage_named(""), std::invalid_argument);
}

// --gpus: all, a count, or a list of distinct device indices; a list becomes the
// CUDA_VISIBLE_DEVICES value that shows those devices, in its order, counting among the
// devices visible now.
TEST(OptionText, GpuChoices) {
  EXPECT_EQ(gpus_named("all").count, 0u);
  EXPECT_EQ(gpus_named("3").count, 3u);
  EXPECT_TRUE(gpus_named("3").devices.empty());
  const GpuChoice listed = gpus_named("2, 0");
  EXPECT_EQ(listed.count, 2u);
  EXPECT_EQ(listed.devices, (std::vector<std::uint32_t>{2, 0}));
  for (const char* bad : {"0", "", "two", "1,1", "0,x", "2,", "-1", "1.5"}) {
    EXPECT_THROW(gpus_named(bad), std::invalid_argument) << bad;
  }
  EXPECT_EQ(visible_devices_for({2, 0}, nullptr), "2,0");
  EXPECT_EQ(visible_devices_for({1, 0}, "4,6,7"), "6,4");
  EXPECT_EQ(visible_devices_for({1}, "GPU-aa, GPU-bb"), "GPU-bb");
  EXPECT_THROW(visible_devices_for({0, 3}, "4,6,7"), std::invalid_argument);
}

}  // namespace
}  // namespace mdpvi::pipeline
