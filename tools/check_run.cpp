#include "tools/check_run.h"
#include "tools/constant_sweep.h"
#include "tools/output_path.h"
#include "tools/property_names.h"
#include "tools/property_scope.h"
#include "tools/scheduler_export.h"
#include "tools/vector_export.h"

#include "engine/build/model_builder.h"
#include "engine/check/state_formula.h"
#include "engine/model/process_memory.h"
#include "engine/model/stopwatch.h"
#include "gpu/device_solver.h"
#include "graph/qualitative.h"
#include "io/explicit_writer.h"
#include "io/model_files.h"
#include "io/property_parser.h"
#include "io/property_references.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <stdexcept>
#include <string_view>

namespace mdpvi::tools {

namespace {

// The model as read: an explicit model's matrix, or a PRISM-language description that
// is built for each setting of its constants (read once: "-" is standard input).
struct ModelSource {
  std::optional<io::ModelDescription> description;  // the PRISM language
  std::optional<SparseMdp> mdp;                     // an explicit model, until loaded
  std::set<std::string> constants;                  // the description's
  std::string name;
  double parse_s = 0.0;
};

struct LoadedModel {
  SparseMdp mdp;
  PropertyScope scope;  // the model's constants and formulas
};

// A --prop that selects a property of the file: a bare number N (PRISM's habit:
// the N-th property, 1-based) or a property's name, quoted or not. nullopt for a
// property to check as written.
std::optional<std::size_t> selected_index(const std::string& text, const std::vector<io::PropertyEntry>& all,
                                          bool have_file) {
  if (!text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (!have_file) throw std::invalid_argument("--prop " + text + ": a number selects a property of the properties file, and none is given");
    const std::size_t index = text.size() > 18 ? 0 : std::stoull(text);
    if (index < 1 || index > all.size()) {
      throw std::invalid_argument("--prop " + text + ": the properties file has " + std::to_string(all.size()) +
                                  " properties (numbered from 1)");
    }
    return index - 1;
  }
  const std::string name = text.size() > 1 && text.front() == '"' && text.back() == '"' ? text.substr(1, text.size() - 2) : text;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!all[i].name.empty() && all[i].name == name) return i;
  }
  return std::nullopt;
}

// The file's properties that --prop selects, in that order, then the other --prop
// properties; all of the file's when none is selected. Throws std::invalid_argument
// for N out of range, or a number without a file.
std::vector<io::PropertyEntry> chosen_properties(std::vector<io::PropertyEntry> file, std::vector<io::PropertyEntry> given,
                                                 const std::vector<std::string>& inline_texts, bool have_file) {
  std::vector<io::PropertyEntry> chosen, written;
  for (std::size_t i = 0; i < inline_texts.size(); ++i) {
    if (const std::optional<std::size_t> index = selected_index(inline_texts[i], file, have_file)) {
      chosen.push_back(file[*index]);
    } else {
      written.push_back(std::move(given[i]));
    }
  }
  if (chosen.empty()) chosen = std::move(file);
  std::move(written.begin(), written.end(), std::back_inserter(chosen));
  return chosen;
}

// The properties of the file and of --prop, parsed (syntax only) before the model is
// built: a bad declaration then fails before a long build, and the builder can leave
// out the reward structures when no property asks for rewards.
struct ParsedProperties {
  std::optional<io::PropertyFile> file;   // its constants and labels (its properties moved to entries)
  std::vector<io::PropertyEntry> entries;  // to check, in order: chosen_properties
  std::vector<io::PropertyEntry> named;    // the file's properties, which entries may refer to
  bool use_rewards = false;
};

bool uses_rewards(const Formula& formula) {
  if (formula.kind == Formula::Kind::temporal && formula.temporal.kind == TemporalOperator::Kind::reward) return true;
  return std::any_of(formula.operands.begin(), formula.operands.end(), uses_rewards);
}

// Resolves the entries' references to named properties (io/property_references.h),
// given every label's name, and then tells whether any entry needs rewards.
void resolve_references(ParsedProperties& properties, const std::set<std::string>& labels) {
  io::resolve_property_references(properties.entries, properties.named, labels);
  properties.use_rewards = std::any_of(properties.entries.begin(), properties.entries.end(),
                                       [](const io::PropertyEntry& e) { return e.formula && uses_rewards(*e.formula); });
}

ParsedProperties parse_all_properties(const CheckOptions& options) {
  ParsedProperties parsed;
  std::vector<io::PropertyEntry> given, in_file;
  if (options.properties_file) {
    parsed.file = io::parse_properties(io::TextFile::load(*options.properties_file));
    in_file = std::move(parsed.file->properties);
  }
  for (std::size_t i = 0; i < options.inline_properties.size(); ++i) {
    given.push_back(io::parse_property(options.inline_properties[i], "--prop " + std::to_string(i + 1)));
  }
  parsed.named = in_file;  // references are resolved once the model's labels are known
  parsed.entries = chosen_properties(std::move(in_file), std::move(given), options.inline_properties, parsed.file.has_value());
  return parsed;  // use_rewards is known once references are resolved (resolve_references)
}

// How the model is read: --format, else the extension (io/model_files.h). --explicit
// BASE names PRISM's explicit files, or a .drn or .umb file.
io::ModelFormat model_format(const CheckOptions& options) {
  const std::string& path = options.explicit_base ? *options.explicit_base : *options.model_file;
  return io::model_format(path, options.format, options.explicit_base.has_value());
}

// Whether an identifier appears in a property's text (an inline property may use a
// constant that nothing declares).
bool mentions_identifier(const std::string& text, const std::string& name) {
  const auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const bool starts = at == 0 || !is_word(text[at - 1]);
    const bool ends = at + name.size() == text.size() || !is_word(text[at + name.size()]);
    if (starts && ends) return true;
  }
  return false;
}

// Every --const names a constant of the model or the properties file, or one an
// inline property uses; checked before the build, so a typo costs no time (PRISM-
// language models only: an explicit model's constants are gone). Throws
// std::invalid_argument naming the known constants.
void check_constants_are_known(const CheckOptions& options, const std::set<std::string>& model_constants,
                               const ParsedProperties& properties) {
  std::set<std::string> known = model_constants;
  if (properties.file) {
    for (const io::ConstantDeclaration& c : properties.file->constants) known.insert(c.name);
  }
  for (const auto& given : options.constants) {
    const std::string& name = given.first;  // a plain reference: clang 14 captures no structured binding
    if (known.count(name)) continue;
    const bool used_inline = std::any_of(options.inline_properties.begin(), options.inline_properties.end(),
                                         [&](const std::string& p) { return mentions_identifier(p, name); });
    if (used_inline) continue;
    std::string names;
    for (const std::string& k : known) names += (names.empty() ? "" : ", ") + k;
    throw std::invalid_argument("--const " + name + ": no constant of that name (" +
                                (names.empty() ? std::string("the model declares none") : "declared: " + names) + ")");
  }
}

// The labels and identifiers the properties may name, of a PRISM-language model.
struct KnownNames {
  std::set<std::string> labels{"init", "deadlock"};
  std::set<std::string> identifiers;
  std::set<std::string> rewards;  // the reward structures' names
};

KnownNames known_names(const ResolvedModel& model, const ParsedProperties& properties, const CheckOptions& options) {
  KnownNames names;
  for (const auto& [label, body] : model.labels) names.labels.insert(label);
  for (const ResolvedVariable& v : model.variables) names.identifiers.insert(v.name);
  for (const auto& [name, value] : model.constants) names.identifiers.insert(name);
  for (const auto& [name, body] : model.formulas) names.identifiers.insert(name);
  for (const ResolvedReward& r : model.rewards) names.rewards.insert(r.name);
  for (const auto& [name, text] : options.constants) names.identifiers.insert(name);
  if (properties.file) {
    for (const io::LabelDeclaration& l : properties.file->labels) names.labels.insert(l.name);
    for (const io::ConstantDeclaration& c : properties.file->constants) names.identifiers.insert(c.name);
  }
  return names;
}

// The first label or identifier of f that names nothing known, as the checker would
// word it ("LINE:COLUMN: unknown label ..."); nullopt when all are known.
std::optional<std::string> first_unknown_name(const Expression& e, const KnownNames& names) {
  const auto at = [&] { return std::to_string(e.position.line) + ":" + std::to_string(e.position.column) + ": "; };
  if (e.kind == Expression::Kind::label && !names.labels.count(e.name)) return at() + "unknown label \"" + e.name + "\"";
  if (e.kind == Expression::Kind::identifier && !names.identifiers.count(e.name)) {
    return at() + "unknown identifier '" + e.name + "' (an undefined constant? give it with --const NAME=VALUE)";
  }
  for (const Expression& operand : e.operands) {
    if (auto unknown = first_unknown_name(operand, names)) return unknown;
  }
  return std::nullopt;
}

// The first reward structure f names that the model lacks, as the checker would word it.
std::optional<std::string> first_unknown_reward(const Formula& f, const KnownNames& names) {
  const std::optional<std::string>& reward = f.temporal.reward_name;
  if (f.kind == Formula::Kind::temporal && reward && !names.rewards.count(*reward)) {
    return std::to_string(f.position.line) + ":" + std::to_string(f.position.column) +
           ": the model has no reward structure \"" + *reward + "\"";
  }
  for (const Formula& operand : f.operands) {
    if (auto unknown = first_unknown_reward(operand, names)) return unknown;
  }
  return std::nullopt;
}

std::optional<std::string> first_unknown_name(const Formula& f, const KnownNames& names) {
  std::optional<std::string> unknown = first_unknown_reward(f, names);
  for_each_expression(f, [&](const Expression& e) {
    if (!unknown) unknown = first_unknown_name(e, names);
  });
  return unknown;
}

// A property that names an unknown label or identifier is answered with that error
// before the build, and said at once: a typo must not wait for millions of states
// (the others still run).
void check_property_names(ParsedProperties& properties, const KnownNames& names) {
  auto check = [&](io::PropertyEntry& entry) {
    if (!entry.formula) return;
    if (std::optional<std::string> unknown = first_unknown_name(*entry.formula, names)) {
      entry.error = entry.source + ":" + *unknown;
      entry.formula.reset();
      spdlog::error("{} (found before the build)", entry.error);
    }
  };
  std::for_each(properties.entries.begin(), properties.entries.end(), check);
}

// The model's labels the properties may read; an export writes them all.
std::set<std::string> labels_to_build(const ParsedProperties& properties) {
  std::vector<const Formula*> formulas;
  for (const io::PropertyEntry& entry : properties.entries) {
    if (entry.formula) formulas.push_back(&*entry.formula);
  }
  return labels_named(formulas, properties.file ? &*properties.file : nullptr);
}

ModelSource read_model_source(const CheckOptions& options) {
  ModelSource source;
  auto start = std::chrono::steady_clock::now();
  const io::ModelFormat format = model_format(options);
  if (format == io::ModelFormat::prism) {
    source.name = *options.model_file == "-" ? "<stdin>" : *options.model_file;
    source.description = io::parse_model(io::TextFile::load(*options.model_file));
    for (const auto& c : source.description->constants) source.constants.insert(c.name);
  } else {  // an explicit model: read, not built
    source.name = options.explicit_base ? *options.explicit_base : *options.model_file;
    source.mdp = io::read_model_file(format, source.name);
  }
  source.parse_s = seconds_since(start);
  return source;
}

// The model for the setting's constants (options.constants): built from the
// description, or the explicit model (which has no constants of its own). The first
// time, the properties' names are checked before the build.
LoadedModel load_model(ModelSource& source, const CheckOptions& options, ModelSummary& summary,
                       ParsedProperties& properties, bool first) {
  LoadedModel loaded;
  summary.source = source.name;
  summary.parse_s = source.parse_s;
  if (!source.description) {
    loaded.mdp = std::move(*source.mdp);
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
  // An export holds the whole model: every reward structure and the actions.
  build_options.build_rewards = properties.use_rewards || options.export_model.has_value();
  build_options.threads = options.threads;
  build_options.state_limit = options.state_limit;
  build_options.memory_limit = options.memory_limit;
  if (!options.export_model) build_options.labels = labels_to_build(properties);
  build_options.verbose = options.verbose;
  build_options.keep_actions = options.export_scheduler.has_value() || options.export_model.has_value();
  BuiltModel built = build_model(resolved, build_options);
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

void export_states(const SparseMdp& mdp, const std::string& path) {
  if (!mdp.valuations) throw std::runtime_error(path + ": the model has no state valuations to export");
  write_to_path(path, "states", [&](std::ostream& out) { io::write_states(*mdp.valuations, mdp.num_states(), out); });
}

void export_transitions(const SparseMdp& mdp, const std::string& path) {
  write_to_path(path, "transitions", [&](std::ostream& out) { io::write_transitions(mdp, out); });
}

// The graph searches' backend: as asked, else the GPU unless the CPU was asked for.
graph::SearchKind search_kind(const CheckOptions& options) {
  if (options.search) return *options.search;
  return options.device.solver == SolverKind::cpu ? graph::SearchKind::cpu_parallel : graph::SearchKind::gpu;
}

// The per-state exports a run writes as each property is answered.
struct StateExports {
  std::optional<VectorExport> vectors;
  std::optional<SchedulerExport> schedulers;
};

// Every state's value and scheduler go to the exports as soon as they are known (and
// are then released: a large model's vectors are not kept for every property).
PropertyOutcome answer(const SparseMdp& mdp, const PropertyScope& scope, const graph::SearchBackend& search,
                       const io::PropertyEntry& entry, const CheckOptions& options, StateExports& exports) {
  PropertyOutcome outcome;
  outcome.property = entry.text;
  if (!entry.formula) {
    outcome.error = entry.error;
    return outcome;
  }
  auto start = std::chrono::steady_clock::now();
  PropertyResult result;
  try {
    CheckContext context{mdp, search, scope, options.solver, options.device};
    context.scope.source = entry.source;
    context.keep_state_values = exports.vectors.has_value();
    context.keep_scheduler = exports.schedulers.has_value();
    result = check_property(*entry.formula, context);
    outcome.value = result.value;
    outcome.computation = std::move(result.computation);
  } catch (const NotConvergedError& error) {
    outcome.error = error.what();
    outcome.computation = error.summary();  // the phases, and "converged": false
  } catch (const std::exception& error) {
    outcome.error = error.what();
    if (outcome.error.find("unknown identifier") != std::string::npos) {
      outcome.error += " (an undefined constant? give it with --const NAME=VALUE)";
    }
  }
  outcome.time_s = seconds_since(start);
  if (!outcome.error.empty()) return outcome;
  if (exports.vectors && result.state_values) exports.vectors->write(entry.text, *result.state_values, mdp);
  if (exports.schedulers && result.scheduler) exports.schedulers->write(entry.text, *result.scheduler, mdp);
  if (exports.schedulers && !result.scheduler) {
    spdlog::warn("--export-scheduler: no scheduler for {}: {}", entry.text, result.no_scheduler);
    exports.schedulers->write_none(entry.text, result.no_scheduler);
  }
  return outcome;
}

}  // namespace

std::string constants_of(const PropertyOutcome& outcome, const RunSettings& settings) {
  return outcome.constants.empty() ? settings.constants : describe(outcome.constants);
}

bool CheckReport::all_answered() const {
  for (const PropertyOutcome& p : properties) {
    if (!p.error.empty()) return false;
  }
  return true;
}

namespace {

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return std::string(text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1));
}

}  // namespace

std::map<std::string, std::string> parse_constant_definitions(const std::vector<std::string>& texts) {
  std::map<std::string, std::string> constants;
  for (const std::string& text : texts) {
    if (trimmed(text).empty()) continue;  // nothing given
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t end = text.find(',', start);
      if (end == std::string::npos) end = text.size();
      const std::string item = text.substr(start, end - start);
      const std::size_t eq = item.find('=');
      const std::string name = eq == std::string::npos ? std::string() : trimmed(std::string_view(item).substr(0, eq));
      const std::string value = eq == std::string::npos ? std::string() : trimmed(std::string_view(item).substr(eq + 1));
      if (name.empty() || value.empty()) {
        throw std::invalid_argument("--const: expected NAME=VALUE, found '" + item + "'");
      }
      if (!constants.emplace(name, value).second) throw std::invalid_argument("--const: " + name + " is given twice");
      start = end + 1;
    }
  }
  return constants;
}

std::vector<std::string> split_inline_properties(const std::vector<std::string>& texts) {
  std::vector<std::string> properties;
  for (const std::string& text : texts) {
    bool quoted = false;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
      if (i < text.size() && text[i] == '"') quoted = !quoted;
      if (i < text.size() && (quoted || text[i] != ';')) continue;
      std::string property = trimmed(std::string_view(text).substr(start, i - start));
      if (!property.empty()) properties.push_back(std::move(property));
      start = i + 1;
    }
  }
  return properties;
}

namespace {

RunSettings run_settings(const CheckOptions& options) {
  RunSettings settings;
  settings.constants = describe(options.constants);
  settings.method = to_string(options.solver.method);
  settings.epsilon = options.solver.stop.epsilon;
  settings.criterion = options.solver.stop.criterion == ConvergenceCriterion::relative ? "relative" : "absolute";
  settings.max_iterations = options.solver.stop.max_sweeps;
  settings.version = options.version;
  return settings;
}

}  // namespace

namespace {

// The scope the properties of one setting see: the model's constants and formulas,
// the properties file's constants and labels, and the --const values nothing declares.
PropertyScope property_scope(const LoadedModel& model, const ModelSource& source, const ParsedProperties& parsed,
                             const CheckOptions& options) {
  PropertyScope scope = model.scope;
  std::set<std::string> declared = source.constants;
  if (parsed.file) {
    add_property_constants(*parsed.file, *options.properties_file, options.constants, scope);
    add_property_labels(*parsed.file, *options.properties_file, model.mdp, scope);
    for (const io::ConstantDeclaration& c : parsed.file->constants) declared.insert(c.name);
  }
  // A --const that nothing declares is still usable in --prop properties, typed by
  // its text: true/false, an integer, or a real.
  for (const auto& [name, text] : options.constants) {
    if (declared.count(name)) continue;
    for (ValueType type : {ValueType::boolean, ValueType::integer, ValueType::real}) {
      try {
        scope.constants[name] = parse_constant_value(name, type, text);
        break;
      } catch (const std::invalid_argument&) {
        if (type == ValueType::real) spdlog::warn("--const {}={}: not a value; ignored", name, text);
      }
    }
  }
  return scope;
}

// Every value a sweep gives an undefined constant has the constant's type, checked
// before the first build: a bad value late in a sweep must not cost the ones before.
// Throws LocatedError at the declaration.
void check_swept_values(const std::map<std::string, std::string>& given, const ModelSource& source,
                        const ParsedProperties& parsed, const CheckOptions& options) {
  auto check = [&](const std::vector<io::ConstantDeclaration>& declared, const std::string& file) {
    for (const io::ConstantDeclaration& c : declared) {
      auto text = given.find(c.name);
      if (c.value || text == given.end()) continue;
      for (const std::string& value : expand_constant_range(c.name, text->second)) {
        try {
          parse_constant_value(c.name, c.type, value);
        } catch (const std::invalid_argument& error) {
          throw LocatedError(file, c.position.line, c.position.column, error.what());
        }
      }
    }
  };
  if (source.description) check(source.description->constants, source.name);
  if (parsed.file) check(parsed.file->constants, *options.properties_file);
}

// The part of a sweep's setting a property depends on: the model's constants, and
// the other constants it names (directly or through the properties file).
ConstantSetting relevant_part(const ConstantSetting& setting, const std::set<std::string>& model_constants,
                              const std::set<std::string>& reached) {
  ConstantSetting part;
  for (const auto& [name, value] : setting) {
    if (model_constants.count(name) || reached.count(name)) part[name] = value;
  }
  return part;
}

void summarise(const SparseMdp& mdp, ModelSummary& summary) {
  summary.type = mdp.type;
  summary.states = mdp.num_states();
  summary.choices = mdp.num_choices();
  summary.transitions = mdp.num_transitions();
  summary.initial_states = mdp.initial_states.size();
  summary.reward_structures = mdp.rewards.size();
}

// One model, ready for its properties: the matrix, its search graph (built, and
// uploaded for the GPU, once for every property) and the model setting it is for.
struct ModelInUse {
  LoadedModel model;
  std::optional<graph::ChoicePredecessorGraph> host_graph;
  std::unique_ptr<graph::SearchBackend> search;
  ConstantSetting setting;
};

}  // namespace

CheckReport run_check(const CheckOptions& options, CheckListener* listener) {
  if (options.device.solver == SolverKind::gpu && !gpu::free_device_memory()) {
    throw std::runtime_error("--solver gpu: no usable CUDA device here (use --solver cpu or auto)");
  }
  if (options.export_model) io::check_model_file_path(*options.export_model);
  io::compression_named(options.umb_compression);  // a bad name fails before the build
  CheckReport report;
  report.settings = run_settings(options);
  ModelSource source = read_model_source(options);
  ParsedProperties parsed = parse_all_properties(options);
  // An explicit model's file says not which constants made it: --const is unchecked.
  if (source.description) check_constants_are_known(options, source.constants, parsed);
  const bool sweep = has_range(options.constants);
  if (sweep) check_swept_values(options.constants, source, parsed, options);
  std::vector<std::set<std::string>> depends_on;  // per entry: the identifiers it reaches
  for (const io::PropertyEntry& entry : parsed.entries) {
    depends_on.push_back(entry.formula ? identifiers_reached(*entry.formula, parsed.file ? *parsed.file : io::PropertyFile{})
                                       : std::set<std::string>{});
  }
  std::set<std::pair<std::size_t, ConstantSetting>> checked;  // (entry, relevant setting)
  std::optional<ModelInUse> current;
  StateExports exports;
  if (options.export_vector) exports.vectors.emplace(*options.export_vector);
  if (options.export_scheduler) exports.schedulers.emplace(*options.export_scheduler);
  for (const ConstantSetting& setting : constant_settings(options.constants, source.constants)) {
    CheckOptions fixed = options;
    fixed.constants = setting;
    const ConstantSetting model_setting = model_part(setting, source.constants);
    if (!current || current->setting != model_setting) {
      const bool first = !current;
      current.reset();  // the last model's memory, before the next is built
      current.emplace();
      current->setting = model_setting;
      current->model = load_model(source, fixed, report.model, parsed, first);
      const SparseMdp& mdp = current->model.mdp;
      summarise(mdp, report.model);
      if (options.export_states) export_states(mdp, *options.export_states);
      if (options.export_transitions) export_transitions(mdp, *options.export_transitions);
      if (options.export_model) io::write_model_file(mdp, *options.export_model, io::compression_named(options.umb_compression));
      if (listener) listener->model_loaded(report);
      if (parsed.entries.empty()) continue;
      auto start = std::chrono::steady_clock::now();
      current->search = graph::make_search_backend(mdp, search_kind(options), current->host_graph);
      report.model.graph_s = seconds_since(start);
      report.model.graph_on = to_string(current->search->kind());
      report.model.graph_device_bytes = current->search->device_bytes();
    }
    const PropertyScope scope = property_scope(current->model, source, parsed, fixed);
    for (std::size_t i = 0; i < parsed.entries.size(); ++i) {
      // In a sweep, a property is checked once per setting of the constants it
      // depends on (the model's, and the property constants it reaches).
      const ConstantSetting relevant = sweep ? relevant_part(setting, source.constants, depends_on[i]) : ConstantSetting{};
      if (sweep && !checked.insert({i, relevant}).second) continue;
      report.properties.push_back(answer(current->model.mdp, scope, *current->search, parsed.entries[i], fixed, exports));
      report.properties.back().constants = relevant;
      if (listener) listener->property_answered(report);
    }
  }
  return report;
}

}  // namespace mdpvi::tools
