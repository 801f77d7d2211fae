#pragma once
// How `mdpvi check` shows its results: text like PRISM's, or JSON for scripts.
#include "engine/pipeline/check_run.h"

#include <nlohmann/json.hpp>

#include <ostream>

namespace mdpvi::tools {

void write_model_text(std::ostream& out, const pipeline::ModelSummary& model);
void write_property_text(std::ostream& out, const pipeline::PropertyOutcome& outcome);
nlohmann::json to_json(const pipeline::CheckReport& report);
// After a sweep: per property, a table of each setting's constants and result.
void write_sweep_tables(std::ostream& out, const pipeline::CheckReport& report);

}  // namespace mdpvi::tools
