#pragma once
// What `mdpvi check` does, apart from parsing its command line: read the model,
// answer each property, and collect what the reports print.
#include "engine/reachability.h"

#include <optional>
#include <string>
#include <vector>

namespace mdpvi::tools {

struct CheckOptions {
  std::string explicit_base;                // BASE of BASE.tra/.lab/...
  std::optional<std::string> properties_file;
  std::vector<std::string> inline_properties;  // --prop, in order, after the file's
  SolverOptions solver;
};

struct ModelSummary {
  std::string source;
  ModelType type = ModelType::mdp;
  std::uint32_t states = 0;
  std::uint64_t choices = 0;
  std::uint64_t transitions = 0;
  std::size_t initial_states = 0;
  double read_s = 0.0;
  double graph_s = 0.0;  // building the search graph shared by all properties
};

struct PropertyOutcome {
  std::string property;
  std::optional<double> value;  // at the (first) initial state
  std::string error;            // empty when answered
  std::optional<ReachabilityResult> detail;
  double time_s = 0.0;
};

struct CheckReport {
  ModelSummary model;
  std::vector<PropertyOutcome> properties;
  bool all_answered() const;
};

// Throws io::ParseError (or std::exception) when the model or the properties file
// cannot be read; a property that cannot be answered becomes an outcome with error.
CheckReport run_check(const CheckOptions& options);

}  // namespace mdpvi::tools
