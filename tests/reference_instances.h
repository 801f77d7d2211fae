#pragma once
// ../shared/benchmarks/reference.json: PRISM's counts and sound values per instance.
#include "engine/pipeline/check_run.h"
#include "engine/pipeline/option_text.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

namespace mdpvi::test {

// ../shared beside the checkout, or $MDPVI_SHARED_DIR (the GPU machine has no ../shared).
inline const std::filesystem::path kShared = [] {
  const char* override_dir = std::getenv("MDPVI_SHARED_DIR");
  return std::filesystem::path(override_dir ? override_dir : MDPVI_SHARED_DIR);
}();

inline bool have_shared() { return std::filesystem::exists(kShared / "benchmarks/reference.json"); }

inline const nlohmann::json& reference() {
  static const nlohmann::json json = [] {
    std::ifstream in(kShared / "benchmarks/reference.json");
    return nlohmann::json::parse(in);
  }();
  return json;
}

// Within 1e-6 relative of PRISM's sound reference value (1e-9 for step-bounded
// properties, which are computed exactly up to rounding); Booleans and Infinity equal.
inline void expect_close_to_reference(double value, const nlohmann::json& property) {
  const std::string text = property.at("property").get<std::string>();
  double truth = std::stod(property.at("reference").get<std::string>());  // reads "Infinity" too
  if (std::isinf(truth)) {
    EXPECT_EQ(value, truth) << text;
    return;
  }
  double relative = text.find("<=") != std::string::npos ? 1e-9 : 1e-6;
  EXPECT_LE(std::abs(value - truth), relative * std::abs(truth) + 1e-12) << text << ": " << value << " vs " << truth;
}

inline void expect_matches_reference_value(const PropertyValue& value, const nlohmann::json& property) {
  const std::string reference = property.at("reference").get<std::string>();
  if (reference == "true" || reference == "false") {
    ASSERT_EQ(value.kind, PropertyValue::Kind::boolean) << property.at("property");
    EXPECT_EQ(value.truth, reference == "true") << property.at("property");
    return;
  }
  ASSERT_EQ(value.kind, PropertyValue::Kind::number) << property.at("property");
  expect_close_to_reference(value.number, property);
}

// The instance's model (PRISM language, or its explicit export when explicit_base is
// given), properties file and constants, checked tightly enough for the comparisons.
inline pipeline::CheckOptions reference_check(const nlohmann::json& instance,
                                           const std::optional<std::string>& explicit_base) {
  pipeline::CheckOptions options;
  if (explicit_base) {
    options.explicit_base = explicit_base;
  } else {
    options.model_file = (kShared / "benchmarks" / instance.at("path").get<std::string>()).string();
  }
  options.properties_file = (kShared / "benchmarks" / instance.at("properties_path").get<std::string>()).string();
  options.constants = pipeline::parse_constant_definitions({instance.at("constants").get<std::string>()});
  options.solver = {Method::value_iteration, {ConvergenceCriterion::absolute, 1e-10, 1000000}};
  return options;
}

// The PRISM-language model. (No default argument: GCC 12 warns of a temporary empty
// optional<string> as maybe uninitialized.)
inline pipeline::CheckOptions reference_check(const nlohmann::json& instance) {
  static const std::optional<std::string> none;
  return reference_check(instance, none);
}

// PRISM's counts, and each answered property within 1e-6 of its reference; returns
// how many properties were answered.
inline int expect_matches_reference(const pipeline::CheckReport& report, const nlohmann::json& instance) {
  EXPECT_EQ(report.model.states, instance.at("states").get<std::uint64_t>());
  EXPECT_EQ(report.model.choices, instance.at("choices").get<std::uint64_t>());
  EXPECT_EQ(report.model.transitions, instance.at("transitions").get<std::uint64_t>());
  const auto& properties = instance.at("properties");
  EXPECT_EQ(report.properties.size(), properties.size());
  int answered = 0;
  for (std::size_t i = 0; i < std::min(properties.size(), report.properties.size()); ++i) {
    if (!report.properties[i].value) continue;  // the caller counts what must be answered
    expect_matches_reference_value(*report.properties[i].value, properties[i]);
    ++answered;
  }
  return answered;
}

}  // namespace mdpvi::test
