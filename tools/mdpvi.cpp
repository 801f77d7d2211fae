// mdpvi: probabilistic model checking of MDPs by value iteration.
#include "engine/solve/method_requirements.h"
#include "engine/explore/model_builder.h"
#include "engine/model/process_memory.h"
#include "engine/pipeline/check_run.h"
#include "engine/pipeline/memory_budget.h"
#include "engine/pipeline/option_text.h"
#include "engine/ranks/ranks.h"
#include "gpu/device_info.h"
#include "gpu/device_solver.h"
#include "gpu/partitioned_sweeps.h"
#include "io/parse_error.h"
#include "tools/option_aliases.h"
#include "tools/report.h"
#include "tools/results_export.h"
#include "tools/run_exports.h"
#include "tools/sweep_plot.h"
#include "tools/streaming_output.h"

#include "git_commit.h"  // generated: MDPVI_GIT_COMMIT

#include <CLI/CLI.hpp>
#include <oneapi/tbb/global_control.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <pthread.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string_view>
#include <thread>

namespace {

// Exit codes: 0 all properties answered, 1 some property not answered, 2 bad input.
constexpr int kSomePropertyFailed = 1;
constexpr int kBadInput = 2;

// A number > 0 that is finite: CLI11's PositiveNumber lets NaN through (every
// comparison with it is false), and --epsilon nan answered 0.
const CLI::Validator finite_positive(
    [](std::string& text) {
      double value = 0.0;
      try {
        std::size_t used = 0;
        value = std::stod(text, &used);
        if (used != text.size()) return text + " is not a number";
      } catch (const std::exception&) {
        return text + " is not a number";
      }
      return std::isfinite(value) && value > 0.0 ? std::string() : text + " must be a finite number above 0";
    },
    "POSITIVE");

// Runs work on a thread with a stack of 1 GiB (address space; pages are committed only
// as they are used): the passes over a model's expressions recurse once per operator of
// a chain, and a 60 KB sum of 30,000 variables overflowed the main thread's 8 MB. The
// parsers bound nesting by parentheses and operators themselves (200 levels).
template <typename Work>
void run_with_large_stack(Work work) {
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, std::size_t{1} << 30);
  pthread_t thread;
  auto run = [](void* w) -> void* {
    (*static_cast<Work*>(w))();
    return nullptr;
  };
  if (pthread_create(&thread, &attributes, run, &work) != 0) {
    work();  // no such thread to be had: the main thread's stack it is
  } else {
    pthread_join(thread, nullptr);
  }
  pthread_attr_destroy(&attributes);
}

// A whole number > 0. CLI11's PositiveNumber names its range in a 309-digit number.
const CLI::Validator positive_count(
    [](std::string& text) {
      const bool digits = !text.empty() && text.size() <= 19 && text.find_first_not_of("0123456789") == std::string::npos;
      return digits && std::stoull(text) > 0 ? std::string() : text + " must be a whole number above 0";
    },
    "COUNT");

struct CheckArguments {
  mdpvi::pipeline::CheckOptions options;
  std::string gpus = "all";
  std::string explicit_base;
  std::string model_type;  // --model-type; empty: the file's
  std::vector<std::string> constants;
  std::vector<std::string> properties;  // --prop, before splitting at ';'
  std::string export_states;
  std::string export_transitions;
  std::string export_model;
  std::string export_results;
  std::string plot_path;      // --plot
  std::string plot_constant;  // the swept constant it draws over
  std::string export_vector;
  std::string export_pareto;
  std::string export_scheduler;
  mdpvi::tools::ExportPaths exports;  // the export_* given, and --umb-compression
  std::vector<std::string> files;
  std::string json_path;
  bool test = false;  // --test
  std::string solver = "auto";
  std::string graph = "auto";
  std::size_t gpu_memory_limit = 0;
  bool absolute = false;
  bool relative = false;
  bool sound = false;
  std::string method;  // empty: the default, SolverOptions's
  std::uint64_t max_iters = 0;  // 0: the default, which depends on the method
  unsigned timeout_s = 0;       // 0: none
  int threads = 0;
  std::string format;  // empty: from the extension
  std::string gpu_schedule = "auto";
  std::string gpu_system = "auto";
  std::string host_system = "auto";
  std::string gpu_chunk_cut = "device";
  std::string gpu_lanes_over = "entries";
  std::optional<std::uint64_t> parts_from;  // --parts-from
};

// "0.1 (commit abc1234": --version closes it after the CUDA runtime, the reports at once.
std::string version_text() { return std::string(MDPVI_VERSION) + " (commit " + MDPVI_GIT_COMMIT; }

// The first "--name" or "--name=value" that no command defines. CLI11 would hand an
// unknown option's value to the positional files and answer "files: At Most 2
// required", naming the wrong mistake.
const char* unknown_long_option(CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") return nullptr;  // the rest are files
    if (arg.size() <= 2 || arg.substr(0, 2) != "--") continue;
    const std::string name(arg.substr(0, arg.find('=')));
    bool known = app.get_option_no_throw(name) != nullptr;
    for (CLI::App* sub : app.get_subcommands({})) known = known || sub->get_option_no_throw(name) != nullptr;
    if (!known) return argv[i];
  }
  return nullptr;
}

// Where the first word is no command (PRISM's habit: `prism model.nm props.pctl`),
// what to say instead of CLI11's "A subcommand is required".
std::optional<std::string> missing_command(const std::vector<std::string>& arguments) {
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    const std::string& word = arguments[i];
    if (word.empty() || word[0] == '-') continue;
    if (word == "check" || word == "devices") return std::nullopt;
    std::string rest;
    for (std::size_t j = i; j < arguments.size(); ++j) rest += " " + arguments[j];
    return "'" + word + "' is no command; the commands are check and devices (did you mean: mdpvi check" + rest + "?)";
  }
  return std::nullopt;
}

// --model-type's word (CLI11 admits only these three).
mdpvi::ModelType model_type_named(const std::string& word) {
  if (word == "dtmc") return mdpvi::ModelType::dtmc;
  return word == "ctmc" ? mdpvi::ModelType::ctmc : mdpvi::ModelType::mdp;
}

void add_check_command(CLI::App& app, CheckArguments& args) {
  CLI::App* check = app.add_subcommand("check", "Check properties of a model");
  check->add_option("--explicit", args.explicit_base,
                    "Explicit model: BASE.tra, BASE.lab (and BASE.sta/.srew/.trew when present)");
  check->add_flag("--ctmc", args.options.explicit_ctmc,
                  "The explicit model (.tra) is a CTMC: its entries are rates (PRISM's -ctmc; the files do not say)");
  check->add_option("files", args.files,
                    "MODEL [PROPERTIES] (or just PROPERTIES with --explicit). MODEL: PRISM language (.nm, .pm, "
                    ".prism), JANI (.jani: its own properties are checked unless --prop or PROPERTIES says "
                    "otherwise; --prop NAME picks one), Storm's DRN (.drn), UMB (.umb), or PRISM's explicit files "
                    "(BASE.tra, beside BASE.lab ...)")
      ->expected(0, 2);
  check->add_option("--model-type", args.model_type,
                    "The model's type whatever its file says (PRISM's -dtmc, -mdp, -ctmc): a PRISM-language or JANI "
                    "model is built as this type; PRISM's explicit files are read as rates for ctmc (--ctmc); a DTMC "
                    "read from a file may be taken as an MDP")
      ->check(CLI::IsMember({"dtmc", "mdp", "ctmc"}));
  check->add_option("--format", args.format, "How to read MODEL, whatever its extension")
      ->check(CLI::IsMember({"prism", "jani", "drn", "umb", "explicit"}));
  check->add_option("--const", args.constants, "Values of undefined constants: N=2,K=4,k=10 (repeatable)");
  check->add_option("--export-states", args.export_states, "Write the states (index: valuation) as PRISM's .sta");
  check->add_option("--export-transitions", args.export_transitions, "Write the transitions as PRISM's .tra");
  check->add_option("--export-model", args.export_model,
                    "Write the whole model (every label and reward structure), in the format of FILE's extension: "
                    "FILE.tra (PRISM's explicit files: FILE.tra, .lab, .sta, .srew, .trew), FILE.drn or FILE.umb");
  check->add_option("--umb-compression", args.exports.umb_compression,
                    "How --export-model compresses FILE.umb: gzip (as PRISM, the default), xz, or none (the fastest to read)")
      ->check(CLI::IsMember({"gzip", "xz", "none"}));
  check->add_option("--export-vector", args.export_vector,
                    "Write every state's value (with its valuation and bounds) of each property that is not a "
                    "filter ('-': standard output)");
  check->add_option("--export-pareto", args.export_pareto,
                    "Write each multi(...) Pareto front's vertices as CSV, one \"x,y\" (or \"x,y,z\", ...) line each after a "
                    "\"# property\" line ('-': standard output)");
  check->add_option("--export-scheduler", args.export_scheduler,
                    "Write an optimal scheduler of each Pmin/Pmax/Rmin/Rmax=? property of an unbounded F or U: "
                    "per state, its valuation, the index of its choice and the choice's action ('-': standard output)");
  check->add_option("--export-results", args.export_results,
                    "Write each property's result, bounds, constants, method, epsilon, time and mdpvi's version: "
                    "JSON for FILE.json, else CSV ('-': CSV on standard output)");
  check->add_option("--plot", args.plot_path,
                    "Draw a sweep of one constant (--const N=a:b or a:s:b) into FILE.svg or FILE.png, one line per "
                    "property, with gnuplot");
  // One property an occurrence: CLI11 would otherwise split "[[*]] P>0 [ F a ]" (PRISM's
  // strategy operator) as a bracketed list of values.
  check->add_option("--prop", args.properties, "A property, or several separated by ';' (repeatable)")
      ->allow_extra_args(false);
  check->add_option("--epsilon", args.options.solver.stop.epsilon, "Convergence threshold (default 1e-6)")
      ->check(finite_positive);
  CLI::Option* relative = check->add_flag("--relative", args.relative, "Relative convergence criterion (default)");
  check->add_flag("--absolute", args.absolute, "Absolute convergence criterion")->excludes(relative);
  check->add_option("--max-iters", args.max_iters,
                    "Sweeps per SCC (a GPU chunk of SCCs counts as one), CPU and GPU alike; reaching it is an error, with no result (default 1000000; 10000 with --method vi, as PRISM)")
      ->check(positive_count);
  check->add_option("--gpus", args.gpus,
                    "GPUs an SCC too large for one GPU's memory is solved on, in parts that exchange what they read "
                    "after each sweep: all (the default), a count (1: the CPU solves it), or device indices such as "
                    "0,2 (those devices, the run starting on the first). Two or more given: the chunks of a system "
                    "larger than one GPU also take turns over them, and a system built on the host that fits one "
                    "GPU is put on each of them, each level's SCCs spread over them");
  check->add_option("--cpu-partitions", args.options.solver.partitions,
                    "Solve each SCC that the CPU iterates as N parts that exchange the values they read after each "
                    "sweep, the layout of a solve over several GPUs or MPI ranks; the answers are the same bit for "
                    "bit (default 1)")
      ->check(positive_count);
  check->add_option("--parts-from", args.parts_from,
                    "Cut only SCCs of at least N rows plus entries into parts (MPI ranks, --cpu-partitions, GPUs); "
                    "smaller ones are solved whole, under mpirun by every rank alike (default: 65536 under mpirun, "
                    "else 0)");
  check->add_flag(
      "--sound", args.sound, "A sound method (the default, auto); excludes --method vi");
  check->add_flag("--fair", args.options.fairness,
                  "Pmin of an MDP's unbounded F and U over fair schedulers only (PRISM's -fair): every choice of a "
                  "state visited infinitely often is taken infinitely often");
  check->add_option("--method", args.method,
                    "auto (default): per SCC on the CPU, optimistic value iteration, or policy iteration where "
                    "value iteration would crawl; on the GPU, optimistic value iteration level by level, and policy "
                    "iteration (over a system built on the host) where a level takes it more than 10,000 sweeps. "
                    "ovi: optimistic value "
                    "iteration, ii: interval iteration, pi: policy iteration (BiCGStab per scheduler) where value "
                    "iteration would crawl, on the GPU too. These give results with a guaranteed bound, +/- epsilon "
                    "(absolute, or relative to the result). vi: value iteration as PRISM's default, faster, no "
                    "bound. bicgstab: BiCGStab for DTMCs (per SCC on the CPU, per chunk on the GPU), no bound")
      ->check(CLI::IsMember({"auto", "ovi", "ii", "vi", "bicgstab", "pi"}));
  check->add_option("--timeout", args.timeout_s,
                    "Stop after SECONDS, keeping the finished properties (printed, and in the --json file); exit 1")
      ->check(finite_positive);
  check->add_option("--state-limit", args.options.state_limit,
                    "Stop building past N states, with a message and exit status 1 (default: no limit)")
      ->check(positive_count);
  args.options.memory_limit = mdpvi::pipeline::default_memory_limit();
  check->add_option("--memory-limit", args.options.memory_limit,
                    "Stop building once the process holds more than BYTES (K, M, G, T: powers of 1024), with a "
                    "message and exit status 1 (default: three quarters of the memory, or of the container's "
                    "limit; 0: none)")
      ->transform(CLI::AsSizeValue(false));
  check->add_flag("--plain-values{false}", args.options.compact_values,
                  "Keep the model's probabilities as plain doubles (default: indices into a table of the distinct "
                  "values, where there are at most 65,536; the answers are the same bit for bit)");
  check->add_option("--threads", args.threads, "Worker threads (default: all cores)")->check(positive_count);
  check->add_option("--json", args.json_path, "Write results as JSON to FILE ('-' for standard output)");
  check->add_flag("--test", args.test,
                  "Compare each result with the '// RESULT: value' (or 'RESULT (c=1): value') comment above its "
                  "property, as PRISM's -test: PASS or FAIL after each, a count at the end; exit status 1 where one "
                  "fails or an error was not expected");
  check->add_option("--solver", args.solver, "auto (GPU when there is one), gpu or cpu")
      ->check(CLI::IsMember({"auto", "gpu", "cpu"}));
  check->add_option("--graph", args.graph,
                    "Where Prob0/Prob1 run: auto (the GPU when there is one and --solver is not cpu), gpu, cpu "
                    "(oneTBB) or reference (Boost, sequential)")
      ->check(CLI::IsMember({"auto", "gpu", "cpu", "reference"}));
  check->add_option("--gpu-memory-limit", args.gpu_memory_limit, "Device memory budget for a chunk, in bytes")
      ->check(positive_count);
  CLI::Option* group_size =
      check->add_option("--gpu-group-size", args.options.device.group.lanes,
                        "Lanes per state in the GPU sweep: 1-32 (default: from the row lengths), for measurements")
          ->check(CLI::IsMember({1, 2, 4, 8, 16, 32}));
  check->add_option("--gpu-lanes-over", args.gpu_lanes_over,
                    "With --gpu-group-size, what a state's lanes share: entries (each row's) or rows (each lane sums "
                    "whole rows)")
      ->check(CLI::IsMember({"entries", "rows"}))
      ->needs(group_size);
  check->add_option("--gpu-system", args.gpu_system,
                    "How a maybe-state system built on the GPU is kept there: auto (a view), copy (its own "
                    "matrix: the sweeps read the fewest bytes) or view (read from the GPU's one copy of the model: 8 "
                    "bytes a state)")
      ->check(CLI::IsMember({"auto", "copy", "view"}));
  check->add_option("--host-system", args.host_system,
                    "How a maybe-state system built on the host is kept there: auto (on the CPU a view; with a GPU "
                    "a copy where it fits the host's memory, else a view), copy (its own matrix in solving order) or "
                    "view (none: each chunk is copied from the model's rows as it goes to the GPU, or on the CPU "
                    "written a window of rows at a time)")
      ->check(CLI::IsMember({"auto", "copy", "view"}));
  check->add_option("--gpu-chunk-cut", args.gpu_chunk_cut,
                    "Where the chunks after the first of a system built on the host are cut, for measurements: "
                    "device (their rows uploaded as they are) or host (each copied there first)")
      ->check(CLI::IsMember({"device", "host"}));
  check->add_option("--gpu-schedule", args.gpu_schedule,
                    "How the GPU solves a chunk, for measurements: auto, levels (acyclic levels one pass each, levels "
                    "with cycles iterated on their own) or whole (the chunk iterated as one system)")
      ->check(CLI::IsMember({"auto", "levels", "whole"}));
}

// Under mpirun: every rank runs the whole check, its SCCs' parts on the CPU; the first
// rank alone prints and writes files, the others only their errors, named. What ranks
// cannot do yet is refused.
int run_as_rank(mdpvi::Ranks& ranks, CheckArguments& args) {
  using namespace mdpvi;
  if (ranks.rank() != 0) {
    if (std::freopen("/dev/null", "w", stdout) == nullptr) return kBadInput;
    spdlog::set_level(spdlog::level::err);
    spdlog::set_pattern(fmt::format("%^%l%$ (MPI rank {}): %v", ranks.rank()));
    args.json_path.clear();
    args.export_results.clear();
    args.plot_path.clear();
    args.exports = {};
  }
  const char* refused = nullptr;
  if (args.options.solver.partitions > 1) refused = "--cpu-partitions is for one process: under mpirun each rank holds one part";
  if (args.solver == "gpu" || args.options.device.gpus != 0) {
    refused = "under mpirun the solve runs on the ranks' CPUs: GPUs across ranks are not supported yet (--solver gpu, --gpus)";
  }
  if (refused != nullptr) {
    if (ranks.rank() == 0) spdlog::error("{}", refused);
    return kBadInput;
  }
  args.options.device.solver = SolverKind::cpu;
  args.options.solver.ranks = &ranks;
  // The ranks of one machine share its cores (--threads N sets each rank's).
  if (args.threads == 0) {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    args.threads = static_cast<int>(std::max(1u, cores / ranks.on_this_machine()));
  }
  args.options.solver.parts_from = args.parts_from.value_or(std::uint64_t{1} << 16);
  spdlog::debug("MPI: {} ranks, {} on this machine, {} threads each; SCCs of at least {} rows plus entries are solved "
                "in parts, one a rank", ranks.size(), ranks.on_this_machine(), args.threads, args.options.solver.parts_from);
  return 0;
}

// --gpus: a count, or a list of devices made the process's own (CUDA_VISIBLE_DEVICES,
// before any CUDA call), each of which must exist. Throws std::invalid_argument where
// the text is not such; false (said) where a device listed is not there.
bool select_gpus(CheckArguments& args) {
  const mdpvi::pipeline::GpuChoice choice = mdpvi::pipeline::gpus_named(args.gpus);
  args.options.device.gpus = choice.count;
  if (choice.devices.empty()) return true;
  const std::string visible = mdpvi::pipeline::visible_devices_for(choice.devices, std::getenv("CUDA_VISIBLE_DEVICES"));
  setenv("CUDA_VISIBLE_DEVICES", visible.c_str(), 1);
  // CUDA takes the listed devices up to the first that does not exist.
  const int usable = mdpvi::gpu::usable_device_count();
  if (usable < static_cast<int>(choice.devices.size())) {
    spdlog::error("--gpus {}: {} of the {} devices listed {} here", args.gpus, usable, choice.devices.size(),
                  usable == 1 ? "is a usable CUDA device" : "are usable CUDA devices");
    return false;
  }
  return true;
}

int run_check_command(CheckArguments& args) {
  using namespace mdpvi;
  auto& files = args.files;
  if (!args.explicit_base.empty()) {
    args.options.explicit_base = args.explicit_base;
    if (files.size() > 1) {
      spdlog::error("with --explicit, give at most one properties file");
      return kBadInput;
    }
  } else if (files.empty()) {
    spdlog::error("no model: give MODEL.nm (PRISM language) or --explicit BASE");
    return kBadInput;
  } else {
    args.options.model_file = files.front();
    files.erase(files.begin());
  }
  if (!files.empty()) args.options.properties_file = files.front();
  if (!args.format.empty()) args.options.format = args.format;
  if (!args.model_type.empty()) args.options.model_type = model_type_named(args.model_type);
  const auto given = [](const std::string& path) { return path.empty() ? std::nullopt : std::optional<std::string>(path); };
  args.exports.states = given(args.export_states);
  args.exports.transitions = given(args.export_transitions);
  args.exports.model = given(args.export_model);
  args.exports.vector = given(args.export_vector);
  args.exports.scheduler = given(args.export_scheduler);
  args.exports.pareto = given(args.export_pareto);
  try {
    if (!select_gpus(args)) return kBadInput;
    args.options.constants = pipeline::parse_constant_definitions(args.constants);
    args.options.inline_properties = pipeline::split_inline_properties(args.properties);
    if (!args.plot_path.empty()) args.plot_constant = tools::plotted_constant(args.options.constants, args.plot_path);
  } catch (const std::exception& error) {
    spdlog::error("{}", error.what());
    return kBadInput;
  }
  SolverOptions& solver = args.options.solver;
  if (args.absolute) solver.stop.criterion = ConvergenceCriterion::absolute;
  // CLI11 has checked the names: these parse them (no --method: SolverOptions's default).
  if (!args.method.empty()) solver.method = pipeline::method_named(args.method);
  if (args.sound && !requirements_of(solver.method).gives_bounds) {
    spdlog::error("--sound and --method {} exclude each other: it gives no bound", args.method);
    return kBadInput;
  }
  solver.stop.max_sweeps = args.max_iters > 0 ? args.max_iters : default_max_sweeps(solver.method);
  args.options.device.solver = pipeline::solver_named(args.solver);
  if (args.gpu_memory_limit > 0) args.options.device.memory_limit_bytes = args.gpu_memory_limit;
  if (args.gpu_schedule == "levels") args.options.device.schedule = DeviceSchedule::levels;
  args.options.device.group.over_rows = args.gpu_lanes_over == "rows";
  if (args.gpu_schedule == "whole") args.options.device.schedule = DeviceSchedule::whole;
  args.options.device.system_storage = pipeline::system_storage_named(args.gpu_system);
  args.options.device.host_system = pipeline::system_storage_named(args.host_system);
  args.options.device.chunks_cut_on_device = args.gpu_chunk_cut == "device";
  if (args.graph == "gpu") args.options.search = graph::SearchKind::gpu;
  if (args.graph == "cpu") args.options.search = graph::SearchKind::cpu_parallel;
  if (args.graph == "reference") args.options.search = graph::SearchKind::reference;
  if (Ranks* ranks = run_ranks()) {
    if (const int refused = run_as_rank(*ranks, args)) return refused;
  } else {
    args.options.solver.parts_from = args.parts_from.value_or(0);
  }

  // The builder takes its threads from the options; the graph searches and the
  // solvers' parallel sweeps are limited through oneTBB's global control. More than
  // the machine's hardware threads only oversubscribe it (and thousands fail to start).
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (args.threads > hardware) {
    spdlog::warn("--threads {}: this machine has {} hardware threads; using {}", args.threads, hardware, hardware);
    args.threads = hardware;
  }
  args.options.threads = args.threads;
  std::unique_ptr<oneapi::tbb::global_control> thread_limit;
  if (args.threads > 0) {
    thread_limit = std::make_unique<oneapi::tbb::global_control>(
        oneapi::tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(args.threads));
  }

  pipeline::CheckReport report;
  tools::StreamingOutput output(args.json_path, args.export_results, args.test);
  tools::stop_early_on_signals(args.timeout_s, kSomePropertyFailed);
  int failed = 0;
  run_with_large_stack([&] {
    try {
      tools::RunExports exports(args.exports, output);
      exports.ask_for_what_is_exported(args.options);
      report = pipeline::run_check(args.options, &exports);
    } catch (const mdpvi::BuildLimitReached& error) {  // the input is fine; the run could not finish
      spdlog::error("{}", error.what());
      failed = kSomePropertyFailed;
    } catch (const std::exception& error) {
      spdlog::error("{}", error.what());
      failed = kBadInput;
    }
  });
  if (failed) return failed;
  if (!output.finish(report)) return kBadInput;
  if (!args.plot_path.empty()) {
    std::cout.flush();  // the results out before gnuplot runs, whatever it says
    try {
      tools::plot_sweep(report, args.plot_constant, args.plot_path);
    } catch (const std::exception& error) {  // the results are out already
      spdlog::error("{}", error.what());
      return kSomePropertyFailed;
    }
  }
  if (args.test) return output.tests_passed() ? 0 : kSomePropertyFailed;
  return report.all_answered() ? 0 : kSomePropertyFailed;
}

int run_devices_command(bool bandwidth) {
  auto devices = mdpvi::gpu::list_devices();
  if (!mdpvi::gpu::built_with_cuda()) std::cout << "mdpvi was built without CUDA\n";
  if (devices.empty()) std::cout << "no CUDA device\n";
  for (const auto& d : devices) {
    std::cout << d.index << ": " << d.name << ", " << d.total_memory_bytes / (1024 * 1024) << " MiB, compute capability "
              << d.compute_capability_major << "." << d.compute_capability_minor << "\n";
  }
  if (bandwidth && !devices.empty()) {
    double bytes_per_s = mdpvi::gpu::measure_copy_bandwidth(std::size_t{1} << 30);
    std::cout << "device-to-device copy bandwidth (1 GiB, read + write): " << bytes_per_s / 1e9 << " GB/s\n";
  }
  return 0;
}


// Builds fault in gigabytes of fresh memory; with 4 KiB pages the faults can take half
// of a build (bench/NOTES.md). glibc's malloc asks for transparent huge pages when the
// tunable glibc.malloc.hugetlb=1 is set, and it reads tunables only when a process
// starts: so mdpvi sets it and executes itself again, once. Where exec fails, or the
// C library is not glibc, mdpvi simply runs on.
void restart_with_huge_pages(char** argv) {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.hugetlb") != nullptr) return;
  if (std::getenv("MDPVI_NO_HUGE_PAGES") != nullptr) return;
  std::string value = tunables != nullptr ? std::string(tunables) + ":glibc.malloc.hugetlb=1" : "glibc.malloc.hugetlb=1";
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  // The binary's own path, not /proc/self/exe: the process keeps its name ("mdpvi",
  // not "exe") for ps, pgrep and top.
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return;
  execv(self.c_str(), argv);
}

// The command line's command (check, devices), its exit status.
int run_command(int argc, char** argv);

}  // namespace

int main(int argc, char** argv) {
  restart_with_huge_pages(argv);
  const std::unique_ptr<mdpvi::RanksSession> ranks = mdpvi::start_ranks(argc, argv);
  const int status = run_command(argc, argv);
  // The run is over: under mpirun, the launcher ends the other ranks once one returns
  // an error, and they should not say "interrupted".
  for (int signal_number : {SIGINT, SIGTERM, SIGALRM}) std::signal(signal_number, SIG_DFL);
  return ranks->finish(status);
}

namespace {

int run_command(int argc, char** argv) {
  mdpvi::return_large_frees_to_the_kernel();
  // Logs go to standard error, so that standard output holds only results.
  spdlog::set_default_logger(spdlog::stderr_color_mt("mdpvi"));
  spdlog::set_pattern("%^%l%$: %v");

  CLI::App app{"mdpvi: model checking of Markov decision processes by value iteration"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "mdpvi " + version_text() + ", CUDA runtime " +
                                        mdpvi::gpu::cuda_runtime_version() + ", " +
                                        (mdpvi::built_with_mpi() ? "with" : "without") + " MPI)");
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "Log what each stage does");
  CheckArguments check_args;
  check_args.options.version = version_text() + ")";
  add_check_command(app, check_args);
  CLI::App* devices = app.add_subcommand("devices", "List the CUDA devices mdpvi can use");
  bool bandwidth = false;
  devices->add_flag("--bandwidth", bandwidth, "Also measure the device-to-device copy bandwidth");
  for (CLI::App* sub : app.get_subcommands({})) sub->add_flag("-v,--verbose", verbose, "Log what each stage does");
  // PRISM's and Storm's spellings become mdpvi's before CLI11 sees them.
  std::vector<std::string> ignored;
  std::vector<std::string> arguments =
      mdpvi::tools::resolve_option_aliases(std::vector<std::string>(argv + 1, argv + argc), &ignored);
  for (const std::string& name : ignored) {
    std::cerr << "note: PRISM's " << name << " is ignored: " << mdpvi::tools::why_ignored(name) << "\n";
  }
  arguments.insert(arguments.begin(), argv[0]);
  std::vector<char*> resolved_argv;
  for (std::string& a : arguments) resolved_argv.push_back(a.data());
  const int resolved_argc = static_cast<int>(resolved_argv.size());
  resolved_argv.push_back(nullptr);
  if (const std::optional<std::string> refused = mdpvi::tools::refused_prism_switch(arguments)) {
    spdlog::error("{}", *refused);
    return kBadInput;
  }
  if (const char* unknown = unknown_long_option(app, resolved_argc, resolved_argv.data())) {
    spdlog::error("unknown option {} (see --help)", unknown);
    return kBadInput;
  }
  if (const std::optional<std::string> said = missing_command(arguments)) {
    spdlog::error("{}", *said);
    return kBadInput;
  }
  try {
    app.parse(resolved_argc, resolved_argv.data());
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : kBadInput;
  }
  if (verbose) spdlog::set_level(spdlog::level::debug);
  check_args.options.verbose = verbose;
  if (app.got_subcommand("devices")) return run_devices_command(bandwidth);
  return run_check_command(check_args);
}

}  // namespace
