#include "engine/pipeline/model_source.h"

#include "engine/explore/model_builder.h"
#include "engine/model/process_memory.h"
#include "engine/model/stopwatch.h"
#include "engine/pipeline/name_checks.h"
#include "engine/pipeline/property_scope.h"
#include "io/model_files.h"

#include <spdlog/spdlog.h>

#include <chrono>

namespace mdpvi::pipeline {

namespace {

io::ModelFormat model_format(const CheckOptions& options) {
  const std::string& path = options.explicit_base ? *options.explicit_base : *options.model_file;
  return io::model_format(path, options.format, options.explicit_base.has_value());
}

// The model's values indexed (engine/model/compact_values.h), unless asked to keep
// them plain (--plain-values, for comparisons). A built model's are already (the
// builder indexes them as it goes): compact_model leaves them, and -v says their form.
void compact(SparseMdp& mdp, const CheckOptions& options) {
  if (!options.compact_values) return;
  const auto start = std::chrono::steady_clock::now();
  compact_model(mdp);
  spdlog::debug("probabilities: {} distinct, {}; {:.1f} MB, indexed in {:.3f} s here", mdp.values.table().size(),
                mdp.values.index_bytes() == 0 ? std::string("kept plain") : fmt::format("{}-byte indices", mdp.values.index_bytes()),
                mdp.values.bytes() / 1e6, seconds_since(start));
}

// PRISM's -dtmc, -mdp and -ctmc: the model is built as that type whatever its file
// says (none written: an MDP), with a note where that changes it.
void take_model_type(ModelType type, io::ModelDescription& model) {
  const ModelType written = model.type.value_or(ModelType::mdp);
  if (written != type) {
    spdlog::warn("{}: built as {} (--model-type), where the file says {}", model.file, to_string(type),
                 model.type ? to_string(written) : "nothing (an MDP)");
  }
  model.type = type;
}

}  // namespace

ModelSource read_model_source(const CheckOptions& options) {
  ModelSource source;
  auto start = std::chrono::steady_clock::now();
  const io::ModelFormat format = model_format(options);
  if (format == io::ModelFormat::prism || format == io::ModelFormat::jani) {  // a language: built
    const bool jani = format == io::ModelFormat::jani;
    if (options.explicit_ctmc) {
      throw std::invalid_argument(std::string("--ctmc is for PRISM's explicit files (.tra); a ") +
                                  (jani ? "JANI" : "PRISM-language") + " model says ctmc itself");
    }
    source.name = *options.model_file == "-" ? "<stdin>" : *options.model_file;
    const io::TextFile file = io::TextFile::load(*options.model_file);
    if (jani) {
      io::JaniFile read = io::read_jani(file);
      source.description = std::move(read.model);
      source.jani_properties = std::move(read.properties);
    } else {
      source.description = io::parse_model(file);
    }
    if (options.model_type) take_model_type(*options.model_type, *source.description);
    for (const auto& c : source.description->constants) source.constants.insert(c.name);
  } else {  // an explicit model: read, not built
    source.name = options.explicit_base ? *options.explicit_base : *options.model_file;
    // PRISM's explicit files do not say whether they hold rates.
    const bool rates = options.explicit_ctmc ||
                       (format == io::ModelFormat::explicit_files && options.model_type == ModelType::ctmc);
    source.mdp = io::read_model_file(format, source.name, rates);
    if (options.model_type) hold_model_type(*options.model_type, source.name, *source.mdp);
  }
  source.parse_s = seconds_since(start);
  return source;
}

void hold_model_type(ModelType type, const std::string& name, SparseMdp& mdp) {
  if (mdp.type == type) return;
  if (mdp.type == ModelType::dtmc && type == ModelType::mdp) {
    spdlog::warn("{}: taken as an MDP (--model-type), where the file holds a DTMC", name);
    mdp.type = type;
    return;
  }
  throw std::invalid_argument(fmt::format("{}: the file holds a {}, which --model-type {} cannot make of it", name,
                                          to_string(mdp.type), to_string(type)));
}

LoadedModel load_model(ModelSource& source, const CheckOptions& options, ModelSummary& summary,
                       ParsedProperties& properties, bool first) {
  LoadedModel loaded;
  summary.source = source.name;
  summary.parse_s = source.parse_s;
  if (!source.description) {
    loaded.mdp = std::move(*source.mdp);
    compact(loaded.mdp, options);
    if (first) resolve_references(properties, label_names(loaded.mdp, properties.file ? &*properties.file : nullptr));
    return loaded;
  }
  ResolvedModel resolved = resolve_model(*source.description, options.constants);
  if (first) {
    const KnownNames names = known_names(resolved, properties, options);
    resolve_references(properties, names.labels);
    check_property_names(properties, names);
  }
  summary.resident_bytes_before_build = resident_bytes();
  auto start = std::chrono::steady_clock::now();
  BuildOptions build_options;
  build_options.build_rewards = properties.use_rewards || options.whole_model;
  build_options.threads = options.threads;
  build_options.state_limit = options.state_limit;
  build_options.memory_limit = options.memory_limit;
  if (!options.whole_model) build_options.labels = labels_to_build(properties);
  build_options.verbose = options.verbose;
  build_options.keep_actions = options.keep_actions || options.whole_model;
  build_options.keep_valuations = options.keep_valuations || options.whole_model || reads_valuations(properties, resolved);
  build_options.compact_values = options.compact_values;
  BuiltModel built = build_model(resolved, build_options);
  compact(built.mdp, options);
  summary.build_s = seconds_since(start);
  summary.deadlocks = built.statistics.deadlocks;
  summary.state_table_bytes = built.statistics.table_bytes;
  summary.peak_bytes_after_build = peak_resident_bytes();
  if (built.statistics.deadlocks > 0) {
    spdlog::warn("{} deadlock states were given a self-loop (as PRISM does)", built.statistics.deadlocks);
  }
  loaded.mdp = std::move(built.mdp);
  loaded.scope.constants = resolved.constants;
  loaded.scope.formulas = resolved.formulas;
  return loaded;
}

}  // namespace mdpvi::pipeline
