#pragma once
// The model of a run: read once, then built for each setting of its constants.
#include "engine/check/state_formula.h"
#include "engine/model/sparse_mdp.h"
#include "engine/pipeline/property_selection.h"
#include "io/jani_reader.h"
#include "io/prism_model.h"

#include <optional>
#include <set>
#include <string>

namespace mdpvi::pipeline {

// The model as read: an explicit model's matrix, or a PRISM-language description that
// is built for each setting of its constants (read once: "-" is standard input).
struct ModelSource {
  std::optional<io::ModelDescription> description;  // the PRISM language (or JANI, read into it)
  // A JANI model's own properties (io/jani_reader.h); none for other formats.
  std::optional<std::vector<io::JaniProperty>> jani_properties;
  std::optional<SparseMdp> mdp;                     // an explicit model, until loaded
  std::set<std::string> constants;                  // the description's
  std::string name;
  double parse_s = 0.0;
};

// How the model is read: --format, else the extension (io/model_files.h). --explicit
// BASE names PRISM's explicit files, or a .drn or .umb file.
ModelSource read_model_source(const CheckOptions& options);

// --model-type for a model read rather than built (explicit files, DRN, UMB), whose
// numbers are what they are: a DTMC may be taken as an MDP of one choice a state (a
// warning says so); any other change throws std::invalid_argument naming the file.
void hold_model_type(ModelType type, const std::string& name, SparseMdp& mdp);

struct LoadedModel {
  SparseMdp mdp;
  PropertyScope scope;  // the model's constants and formulas
};

// The model for the setting's constants (options.constants): built from the
// description, or the explicit model (which has no constants of its own). The first
// time, the properties' references are resolved and their names checked before the
// build. Fills the summary's source and the build's times and memory.
LoadedModel load_model(ModelSource& source, const CheckOptions& options, ModelSummary& summary,
                       ParsedProperties& properties, bool first);

}  // namespace mdpvi::pipeline
