#pragma once
// Mistakes in names and constants, found before the build: a typo must not wait for
// millions of states.
#include "engine/explore/resolved_model.h"
#include "engine/pipeline/property_selection.h"
#include "io/prism_model.h"

#include <map>
#include <set>
#include <string>

namespace mdpvi::pipeline {

// Every --const names a constant of the model or the properties file, or one an
// inline property uses (PRISM-language models only: an explicit model's constants
// are gone). Throws std::invalid_argument naming the known constants.
void check_constants_are_known(const CheckOptions& options, const std::set<std::string>& model_constants,
                               const ParsedProperties& properties);

// Every value a sweep gives an undefined constant has the constant's type, checked
// before the first build: a bad value late in a sweep must not cost the ones before.
// model: the PRISM-language description, if any, read from model_name. Throws
// LocatedError at the declaration.
void check_swept_values(const std::map<std::string, std::string>& given, const io::ModelDescription* model,
                        const std::string& model_name, const ParsedProperties& parsed, const CheckOptions& options);

// The labels and identifiers the properties may name, of a PRISM-language model.
struct KnownNames {
  std::set<std::string> labels{"init", "deadlock"};
  std::set<std::string> identifiers;
  std::set<std::string> rewards;  // the reward structures' names
};

KnownNames known_names(const ResolvedModel& model, const ParsedProperties& properties, const CheckOptions& options);

// A property that names an unknown label, identifier or reward structure is answered
// with that error before the build, and said at once (the others still run).
void check_property_names(ParsedProperties& properties, const KnownNames& names);

}  // namespace mdpvi::pipeline
