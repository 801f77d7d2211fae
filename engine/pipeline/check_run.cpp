#include "engine/pipeline/check_run.h"

#include "engine/model/located_error.h"
#include "engine/model/process_memory.h"
#include "engine/model/stopwatch.h"
#include "engine/model/uniformisation.h"
#include "engine/pipeline/constant_sweep.h"
#include "engine/pipeline/model_source.h"
#include "engine/pipeline/name_checks.h"
#include "engine/pipeline/property_names.h"
#include "engine/pipeline/property_scope.h"
#include "engine/pipeline/property_selection.h"
#include "gpu/device_solver.h"
#include "gpu/partitioned_sweeps.h"
#include "graph/qualitative.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <set>
#include <stdexcept>

namespace mdpvi::pipeline {

std::optional<double> bytes_each(std::size_t bytes, std::uint64_t count) {
  if (count == 0) return std::nullopt;
  return static_cast<double>(bytes) / static_cast<double>(count);
}

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

// The graph searches' backend: as asked, else the GPU unless the CPU was asked for.
graph::SearchKind search_kind(const CheckOptions& options) {
  if (options.search) return *options.search;
  return options.device.solver == SolverKind::cpu ? graph::SearchKind::cpu_parallel : graph::SearchKind::gpu;
}

// The documented fallback of --solver auto, said once per run in the debug log (-v):
// where the graph searches run on the device, there is one; else it is asked (the
// first device call of the run, which the graph phase's time then holds).
void say_where_solves_run(const CheckOptions& options, const graph::SearchBackend& search) {
  if (options.device.solver != SolverKind::automatic || search.kind() == graph::SearchKind::gpu) return;
  if (!gpu::free_device_memory()) spdlog::debug("no usable CUDA device: solving on the CPU");
}

// -v: the build's and the graph's peaks, whole and per state and transition.
void log_model_memory(const ModelSummary& m) {
  const auto per = [](std::size_t bytes, std::uint64_t count) { return bytes_each(bytes, count).value_or(0.0); };
  spdlog::debug("memory: build peak {:.3f} GB ({:.1f} bytes a state, {:.1f} a transition), graph peak {:.3f} GB, graph "
                "on the device {:.3f} GB ({:.1f} bytes a transition)",
                m.peak_bytes_after_build / 1e9, per(m.peak_bytes_after_build, m.states),
                per(m.peak_bytes_after_build, m.transitions), m.peak_bytes_after_graph / 1e9, m.graph_device_bytes / 1e9,
                per(m.graph_device_bytes, m.transitions));
}

// -v: a property's peaks at the end of each stage, and the solve's on the device.
void log_property_memory(const PropertyOutcome& outcome) {
  if (!outcome.computation) return;
  const NumericResult& d = *outcome.computation;
  spdlog::debug("memory of {}: host peak after the graph analysis {:.3f} GB, the system {:.3f} GB, the solve {:.3f} GB; "
                "device {:.3f} GB for the solve, {:.3f} GB in use at its end",
                outcome.property, d.qualitative.peak_host_bytes / 1e9, d.sccs.peak_host_bytes / 1e9,
                d.solve.peak_host_bytes / 1e9, d.solve.peak_device_bytes / 1e9, d.solve.device_in_use_bytes / 1e9);
}

// A property's answer: the outcome the report keeps, and the per-state results the
// listener may take (kept where the options ask).
struct Answer {
  PropertyOutcome outcome;
  PropertyResult result;
};

Answer answer(const SparseMdp& mdp, const PropertyScope& scope, const graph::SearchBackend& search,
              StationaryDistributions& stationary, const io::PropertyEntry& entry, const CheckOptions& options) {
  Answer answered;
  PropertyOutcome& outcome = answered.outcome;
  outcome.property = entry.text;
  outcome.expected = entry.expected;
  if (!entry.formula) {
    outcome.error = entry.error;
    return answered;
  }
  auto start = std::chrono::steady_clock::now();
  try {
    CheckContext context{mdp, search, scope, options.solver, options.device};
    context.scope.source = entry.source;
    context.keep_state_values = options.keep_state_values;
    context.keep_scheduler = options.keep_schedulers;
    context.fairness = options.fairness;
    context.stationary = &stationary;
    answered.result = check_property(*entry.formula, context);
    outcome.value = answered.result.value;
    outcome.computation = std::move(answered.result.computation);
  } catch (const NotConvergedError& error) {
    outcome.error = error.what();
    outcome.computation = error.summary();  // the phases, and "converged": false
  } catch (const UnknownIdentifierError& error) {
    outcome.error = std::string(error.what()) + " (an undefined constant? give it with --const NAME=VALUE)";
  } catch (const std::exception& error) {
    outcome.error = error.what();
  }
  outcome.time_s = seconds_since(start);
  return answered;
}

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

// A CTMC is checked as its uniformised DTMC (engine/model/uniformisation.h); the
// summary keeps the CTMC's counts, and -v tells the rate.
void uniformise_for_checking(SparseMdp& ctmc, ModelSummary& summary) {
  const auto start = std::chrono::steady_clock::now();
  uniformise(ctmc);
  summary.uniformisation_rate = ctmc.uniformisation_rate;
  spdlog::debug("uniformised at rate {} ({} entries, {:.3f} s)", ctmc.uniformisation_rate, ctmc.num_transitions(),
               seconds_since(start));
}

// One model, ready for its properties: the matrix, its search graph (built, and
// uploaded for the GPU, once for every property) and the model setting it is for.
struct ModelInUse {
  LoadedModel model;
  std::unique_ptr<graph::SearchBackend> search;
  StationaryDistributions stationary;  // solved by the first S or R[S] property
  ConstantSetting setting;
};

}  // namespace

CheckReport run_check(const CheckOptions& options, CheckListener* listener) {
  if (options.device.solver == SolverKind::gpu && !gpu::free_device_memory()) {
    throw std::runtime_error("--solver gpu: no usable CUDA device here (use --solver cpu or auto)");
  }
  if (options.device.gpus > 1 && static_cast<int>(options.device.gpus) > gpu::usable_device_count()) {
    throw std::runtime_error(fmt::format("--gpus {}: this machine has {} usable CUDA devices", options.device.gpus,
                                         gpu::usable_device_count()));
  }
  CheckReport report;
  report.settings = run_settings(options);
  ModelSource source = read_model_source(options);
  ParsedProperties parsed = parse_all_properties(options, source.jani_properties ? &*source.jani_properties : nullptr);
  // An explicit model's file says not which constants made it: --const is unchecked.
  if (source.description) check_constants_are_known(options, source.constants, parsed);
  const bool sweep = has_range(options.constants);
  if (sweep) {
    check_swept_values(options.constants, source.description ? &*source.description : nullptr, source.name, parsed,
                       options);
  }
  std::vector<std::set<std::string>> depends_on;  // per entry: the identifiers it reaches
  for (const io::PropertyEntry& entry : parsed.entries) {
    depends_on.push_back(entry.formula ? identifiers_reached(*entry.formula, parsed.file ? *parsed.file : io::PropertyFile{})
                                       : std::set<std::string>{});
  }
  std::set<std::pair<std::size_t, ConstantSetting>> checked;  // (entry, relevant setting)
  std::optional<ModelInUse> current;
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
      SparseMdp& mdp = current->model.mdp;
      summarise(mdp, report.model);
      if (listener) listener->model_loaded(mdp, report);  // exports: a CTMC's rates
      if (parsed.entries.empty()) continue;
      if (mdp.type == ModelType::ctmc) uniformise_for_checking(mdp, report.model);
      auto start = std::chrono::steady_clock::now();
      current->search = graph::make_search_backend(mdp, search_kind(options));
      if (first) say_where_solves_run(options, *current->search);
      report.model.graph_s = seconds_since(start);
      report.model.graph_on = to_string(current->search->kind());
      report.model.graph_device_bytes = current->search->device_bytes();
      report.model.peak_bytes_after_graph = peak_resident_bytes();
      log_model_memory(report.model);
    }
    const PropertyScope scope = property_scope(current->model, source, parsed, fixed);
    for (std::size_t i = 0; i < parsed.entries.size(); ++i) {
      // In a sweep, a property is checked once per setting of the constants it
      // depends on (the model's, and the property constants it reaches).
      const ConstantSetting relevant = sweep ? relevant_part(setting, source.constants, depends_on[i]) : ConstantSetting{};
      if (sweep && !checked.insert({i, relevant}).second) continue;
      const bool last = i + 1 == parsed.entries.size();
      current->search->remember_sccs_while(!last);  // a later property may decompose the same states
      Answer answered =
          answer(current->model.mdp, scope, *current->search, current->stationary, parsed.entries[i], fixed);
      if (last) current->search->forget_sccs();
      answered.outcome.constants = relevant;
      if (listener && answered.outcome.error.empty()) {
        listener->property_results(answered.outcome.property, answered.result, current->model.mdp);
      }
      log_property_memory(answered.outcome);
      report.properties.push_back(std::move(answered.outcome));
      if (listener) listener->property_answered(report);
    }
  }
  return report;
}

}  // namespace mdpvi::pipeline
