#pragma once
// --export-results FILE: one row per property with what it depends on (property,
// constants, result, bounds, method, epsilon, criterion, time, error, version), for
// spreadsheets and scripts. JSON (an array of objects, "constants" as text) when FILE
// ends in .json, else CSV (RFC 4180 quoting) with a column per constant, as PRISM's;
// "-" is CSV on standard output.
#include "engine/pipeline/check_run.h"

#include <string>

namespace mdpvi::tools {

// Throws std::runtime_error when FILE cannot be written. format_of: the name whose
// extension says the format, where FILE is a temporary beside it (empty: FILE's).
void export_results(const pipeline::CheckReport& report, const std::string& path, const std::string& format_of = "");

}  // namespace mdpvi::tools
