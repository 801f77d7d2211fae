#pragma once
// Which properties a run checks, parsed (syntax only) before the model is built: a
// bad declaration then fails before a long build, and the builder can leave out the
// reward structures when no property asks for rewards.
#include "engine/explore/resolved_model.h"
#include "engine/pipeline/check_run.h"
#include "io/jani_reader.h"
#include "io/property_parser.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mdpvi::pipeline {

struct ParsedProperties {
  std::optional<io::PropertyFile> file;    // its constants and labels (its properties moved to entries)
  std::vector<io::PropertyEntry> entries;  // to check, in order: the selected ones
  std::vector<io::PropertyEntry> named;    // the file's properties, which entries may refer to
  bool use_rewards = false;                // known once references are resolved
};

// The file's properties and --prop's. A --prop that is a bare number N (PRISM's
// habit: the N-th property, 1-based) or a property's name, quoted or not, selects a
// property of the file; selected ones come first, in that order, then the other
// --prop properties; all of the file's when none is selected. Throws
// std::invalid_argument for N out of range, a number without a file, or a property
// that cannot be read (a syntax error; "not supported yet" stays that property's).
// A JANI model's own properties (model_properties) stand in for a properties file
// where none is given: all of them are checked when no --prop is given, else those
// --prop names (and the others --prop writes).
ParsedProperties parse_all_properties(const CheckOptions& options,
                                      const std::vector<io::JaniProperty>* model_properties = nullptr);

// Resolves the entries' references to named properties (io/property_references.h),
// given every label's name, and then tells whether any entry needs rewards.
void resolve_references(ParsedProperties& properties, const std::set<std::string>& labels);

// The model's labels the properties may read.
std::set<std::string> labels_to_build(const ParsedProperties& properties);

// Whether the properties read the states' variable values: a property, or a label or
// constant of the properties file, names one of the model's variables (itself or
// through a formula of the model), or a filter lists states (print, printall, argmin,
// argmax: each state's line shows its values). Else the build need not keep them.
bool reads_valuations(const ParsedProperties& properties, const ResolvedModel& model);

}  // namespace mdpvi::pipeline
