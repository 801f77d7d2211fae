#pragma once
// --export-results FILE: one row per property with what it depends on (property,
// constants, result, bounds, method, epsilon, criterion, time, error, version), for
// spreadsheets and scripts. JSON (an array of objects) when FILE ends in .json, else
// CSV (RFC 4180 quoting); "-" is CSV on standard output.
#include "engine/pipeline/check_run.h"

#include <string>

namespace mdpvi::tools {

// Throws std::runtime_error when FILE cannot be written.
void export_results(const pipeline::CheckReport& report, const std::string& path);

}  // namespace mdpvi::tools
