#pragma once
// ../shared/benchmarks/reference.json: PRISM's counts and sound values per instance.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <filesystem>
#include <fstream>
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

// Within 1e-6 relative of PRISM's sound reference value.
inline void expect_close_to_reference(double value, const nlohmann::json& property) {
  double truth = std::stod(property.at("reference").get<std::string>());
  EXPECT_LE(std::abs(value - truth), 1e-6 * std::abs(truth) + 1e-12)
      << property.at("property").get<std::string>() << ": " << value << " vs " << truth;
}

}  // namespace mdpvi::test
