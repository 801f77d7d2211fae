#pragma once
// One run of a model with its properties, the pipeline's top stage: read or build
// the model (once per setting of its constants), choose the graph backend, answer
// each property, and tell a listener each result as it comes. The command (tools/)
// parses options, prints and writes the exports; a test or a library user calls
// run_check directly.
#include "engine/check/property_checker.h"
#include "io/property_parser.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mdpvi::pipeline {

struct CheckOptions {
  std::optional<std::string> model_file;     // a model file: PRISM language, .drn, .umb, or a .tra with its siblings
  std::optional<std::string> explicit_base;  // or BASE of BASE.tra/.lab/...
  bool explicit_ctmc = false;  // --ctmc: PRISM's explicit files hold a CTMC's rates
  // --model-type (PRISM's -dtmc, -mdp, -ctmc): a PRISM-language or JANI model is built
  // as this type whatever its file says; PRISM's explicit files read rates for ctmc (as
  // --ctmc); a model read (explicit files, DRN, UMB) must be of that type, or a DTMC
  // taken as an MDP.
  std::optional<ModelType> model_type;
  std::optional<std::string> format;         // --format prism|drn|umb|explicit: overrides the extension
  std::optional<std::string> properties_file;
  std::vector<std::string> inline_properties;  // --prop, in order, after the file's
  // --const, for the model and the properties; a value may be a range, a:b or a:s:b
  // (engine/pipeline/constant_sweep.h), and every combination is checked.
  std::map<std::string, std::string> constants;
  // What the caller does with the model and the results beyond the report (the
  // command's exports): the build keeps what that needs.
  bool whole_model = false;        // every reward structure and label, and the actions
  bool keep_actions = false;       // the choices' actions (a scheduler names them)
  bool keep_valuations = false;    // the states' variable values (exported), whatever the properties read
  bool keep_state_values = false;  // every state's value, per property, to the listener
  bool keep_schedulers = false;    // an optimal scheduler, per property, to the listener
  bool fairness = false;           // --fair: Pmin over fair schedulers (engine/check/fairness.h)
  SolverOptions solver;
  DeviceOptions device;
  std::optional<graph::SearchKind> search;  // --graph; default: the GPU unless --solver cpu
  std::uint64_t state_limit = 0;  // --state-limit: stop the build past this many states (0: none)
  std::size_t memory_limit = 0;   // --memory-limit: stop the build past this many bytes (0: none)
  bool compact_values = true;     // the model's probabilities indexed where few are distinct (--plain-values: not)
  int threads = 0;       // --threads: the builder's (and the solver's) worker threads; 0: all cores
  bool verbose = false;  // -v: the builder logs its phases
  std::string version;   // mdpvi's, for the reports
};

// The settings a result depends on, recorded beside it in the reports.
struct RunSettings {
  std::string constants;  // "K=2,k=10", as given (sorted by name)
  std::string method;     // the default method's name
  double epsilon = 0.0;
  std::string criterion;  // "relative" or "absolute"
  std::uint64_t max_iterations = 0;
  std::string version;
};

struct ModelSummary {
  std::string source;
  ModelType type = ModelType::mdp;
  std::uint32_t states = 0;
  std::uint64_t choices = 0;
  std::uint64_t transitions = 0;
  std::size_t initial_states = 0;
  std::size_t reward_structures = 0;  // built: none where no property asks for rewards
  std::uint64_t deadlocks = 0;  // PRISM-language models: states given a self-loop
  std::size_t state_table_bytes = 0;  // PRISM-language models: the builder's state table at its largest
  std::size_t peak_bytes_after_build = 0;  // the process's peak resident memory once the model is built
  std::size_t resident_bytes_before_build = 0;  // its resident memory just before
  double parse_s = 0.0;         // reading the files
  double build_s = 0.0;         // exploring the state space (PRISM-language models)
  double graph_s = 0.0;         // building the search graph shared by all properties (and uploading it)
  std::string graph_on;         // where the graph searches run: gpu, cpu-parallel, cpu-reference
  std::size_t graph_device_bytes = 0;  // the device memory the graph holds for the whole run (GPU searches)
  std::size_t peak_bytes_after_graph = 0;  // the process's peak resident memory once the graph is built
  double uniformisation_rate = 0.0;  // a CTMC's, once uniformised for its properties; else 0
};

struct PropertyOutcome {
  std::string property;
  std::map<std::string, std::string> constants;  // a sweep's setting for this result; empty outside sweeps
  std::optional<PropertyValue> value;  // set when answered
  std::string error;            // empty when answered
  std::optional<NumericResult> computation;  // the last numerical computation's stages
  double time_s = 0.0;
  std::vector<io::ExpectedResult> expected;  // its RESULT comments (--test)
};

// bytes / count, where there is a count: a footprint per state or per transition.
std::optional<double> bytes_each(std::size_t bytes, std::uint64_t count);

// The constants a result was computed with: its sweep setting, else the run's.
std::string constants_of(const PropertyOutcome& outcome, const RunSettings& settings);

struct CheckReport {
  RunSettings settings;
  ModelSummary model;
  std::vector<PropertyOutcome> properties;
  bool all_answered() const;
};

// Told of each result as soon as it is known, with the report so far: the command
// prints and flushes it, and rewrites its JSON file, so that a run stopped early
// keeps what it finished. An exception a listener throws ends the run.
class CheckListener {
 public:
  virtual ~CheckListener() = default;
  // The model of a setting, before its properties (the command's model exports).
  virtual void model_loaded(const SparseMdp& mdp, const CheckReport& report) = 0;
  // An answered property's per-state results, where the options keep them
  // (keep_state_values, keep_schedulers): before property_answered, then released.
  virtual void property_results(const std::string& property, const PropertyResult& result, const SparseMdp& mdp) {
    (void)property, (void)result, (void)mdp;
  }
  virtual void property_answered(const CheckReport& report) = 0;  // report.properties.back(): the new one
};

// Throws LocatedError (or std::exception) when the model or the properties file
// cannot be read or built; a property that cannot be answered becomes an outcome
// with an error.
CheckReport run_check(const CheckOptions& options, CheckListener* listener = nullptr);

}  // namespace mdpvi::pipeline
