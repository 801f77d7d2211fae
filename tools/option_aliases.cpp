#include "tools/option_aliases.h"

#include <algorithm>
#include <string_view>

namespace mdpvi::tools {

namespace {

struct Alias {
  std::string_view spelling;
  std::string_view option;    // mdpvi's; empty: the alias is dropped, its value kept as a file
  std::string_view value{};   // set: the alias takes no value and stands for option=value
  bool export_file = false;   // PRISM's "FILE:options" value: the options are dropped
};

constexpr Alias kAliases[] = {
    // PRISM
    {"-const", "--const"},
    {"-prop", "--prop"},
    {"-property", "--prop"},
    {"-pf", "--prop"},    // a property given as text
    {"-pctl", "--prop"},
    {"-csl", "--prop"},
    {"-epsilon", "--epsilon"},
    {"-e", "--epsilon"},
    {"-maxiters", "--max-iters"},
    {"-timeout", "--timeout"},
    {"-relative", "--relative", ""},
    {"-rel", "--relative", ""},
    {"-absolute", "--absolute", ""},
    {"-abs", "--absolute", ""},
    {"-ii", "--method", "ii"},
    {"-fair", "--fair", ""},
    {"-intervaliter", "--method", "ii"},
    {"-exportvector", "--export-vector", {}, true},
    {"-exportstrat", "--export-scheduler", {}, true},
    {"-exportresults", "--export-results", {}, true},
    {"-exportstates", "--export-states", {}, true},
    {"-exporttrans", "--export-transitions", {}, true},
    {"-exportmodel", "--export-model", {}, true},
    {"-test", "--test", ""},
    {"-testall", "--test", ""},
    {"-politer", "--method", "pi"},
    {"-modpoliter", "--method", "pi"},
    {"-exportadv", "--export-scheduler", {}, true},  // PRISM's older name of -exportstrat
    {"-dtmc", "--model-type", "dtmc"},
    {"-mdp", "--model-type", "mdp"},
    {"-ctmc", "--model-type", "ctmc"},
    // Storm
    {"--constants", "--const"},
    {"--property", "--prop"},
    {"--precision", "--epsilon"},
    {"--maxiter", "--max-iters"},
    {"--exportscheduler", "--export-scheduler"},
    {"--exportbuild", "--export-model"},
    {"--explicit-drn", "--format", "drn"},
    {"--prism", ""},
};

// Why a PRISM switch is dropped: mdpvi picks its own engine and method (sound by
// default), computes in floating point, or computes rather than simulates.
enum class Dropped { engine, exactness, simulation };

struct IgnoredSwitch {
  std::string_view name;
  bool takes_value = false;  // its value is dropped with it
  Dropped why = Dropped::engine;
};

// PRISM's choices of engine (-s, -m and -h are their short names; -h is the help only
// on a command line with nothing else: is_help), linear equation or MDP method,
// precomputation and LTL translator, the BDD library's and Java's settings, and the
// Pareto curve's approximation (mdpvi's multi(...) finds the front's vertices by
// weighted sums, to its own tolerance): dropped, so that a PRISM command line keeps
// working. So are exact arithmetic and simulation, with their own reasons.
constexpr IgnoredSwitch kIgnored[] = {
    {"-ex"}, {"-explicit"}, {"-sparse"}, {"-mtbdd"}, {"-hybrid"}, {"-s"}, {"-m"}, {"-h"},
    {"-gs"}, {"-gaussseidel"}, {"-bgs"}, {"-bgaussseidel"}, {"-pgs"}, {"-pgaussseidel"}, {"-bpgs"}, {"-bpgaussseidel"},
    {"-jacobi"}, {"-jor"}, {"-sor"}, {"-bsor"}, {"-psor"}, {"-bpsor"}, {"-power"}, {"-pow"}, {"-pwr"}, {"-valiter"},
    {"-lp"}, {"-linprog"}, {"-topological"}, {"-pathviaautomata"}, {"-nofair"}, {"-pre"}, {"-nopre"}, {"-prob0"},
    {"-noprob0"}, {"-prob1"}, {"-noprob1"}, {"-fixdl"}, {"-dasimplify"}, {"-nodasimplify"}, {"-noprobchecks"},
    {"-nossdetect"}, {"-sumroundoff"},
    {"-ltl2datool", true}, {"-ltl2dasyntax", true}, {"-cuddepsilon", true}, {"-cuddmaxmem", true},
    {"-javamaxmem", true}, {"-javastack", true}, {"-omega", true}, {"-paretoepsilon", true}, {"-multimaxpoints", true},
    {"-exact", false, Dropped::exactness}, {"-exact-lp", false, Dropped::exactness},
    {"-precision", true, Dropped::exactness},
    {"-sim", false, Dropped::simulation}, {"-simapprox", false, Dropped::simulation},
    {"-simmethod", true, Dropped::simulation}, {"-simsamples", true, Dropped::simulation},
    {"-simconf", true, Dropped::simulation}, {"-simwidth", true, Dropped::simulation},
    {"-simpathlen", true, Dropped::simulation}};

const IgnoredSwitch* ignored_switch(std::string_view name) {
  const auto it = std::find_if(std::begin(kIgnored), std::end(kIgnored), [&](const IgnoredSwitch& i) { return i.name == name; });
  return it == std::end(kIgnored) ? nullptr : it;
}

// "out.csv:csv" -> "out.csv", "s.txt:type=actions" -> "s.txt": PRISM's export options;
// and PRISM's "stdout" (also "stdout:csv") is mdpvi's "-", standard output.
std::string without_export_options(const std::string& value) {
  const std::size_t colon = value.rfind(':');
  const std::string_view options =
      colon == std::string::npos || colon == 0 ? std::string_view() : std::string_view(value).substr(colon + 1);
  const bool words = !options.empty() && std::all_of(options.begin(), options.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || c == '=' || c == ',';
  });
  const std::string file = words ? value.substr(0, colon) : value;
  return file == "stdout" ? "-" : file;
}

// "-h" asks for help only where the command line holds nothing else but a command
// (`mdpvi -h`, `mdpvi check -h`); beside a model or options it is PRISM's hybrid engine.
bool is_help(const std::vector<std::string>& arguments) {
  return std::all_of(arguments.begin(), arguments.end(),
                     [](const std::string& a) { return a == "-h" || a == "check" || a == "devices"; });
}

}  // namespace

std::string why_ignored(std::string_view name) {
  const IgnoredSwitch* ignored = ignored_switch(name);
  switch (ignored ? ignored->why : Dropped::engine) {
    case Dropped::exactness:
      return "mdpvi computes in floating point: its results are numbers with the bounds printed, not exact fractions";
    case Dropped::simulation: return "mdpvi computes the values themselves (with their bounds), not estimates by simulation";
    case Dropped::engine: break;
  }
  return "mdpvi picks its own engine and method";
}

std::optional<std::string> refused_prism_switch(const std::vector<std::string>& arguments) {
  for (const std::string& argument : arguments) {
    if (argument == "--") break;
    if (argument == "-param" || argument.starts_with("-param=")) {
      return "PRISM's -param (parametric model checking) is not supported: give each parameter a value with --const, "
             "or a range such as --const p=0:0.1:1, whose every value is checked";
    }
  }
  return std::nullopt;
}

std::vector<std::string> resolve_option_aliases(const std::vector<std::string>& arguments,
                                                std::vector<std::string>* ignored) {
  std::vector<std::string> resolved;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& argument = arguments[i];
    if (argument == "--") {  // the rest are files
      resolved.insert(resolved.end(), arguments.begin() + static_cast<std::ptrdiff_t>(i), arguments.end());
      break;
    }
    const std::size_t equals = argument.find('=');
    const std::string_view name = std::string_view(argument).substr(0, equals);
    if (name == "-h" && is_help(arguments)) {
      resolved.push_back(argument);
      continue;
    }
    if (const IgnoredSwitch* dropped = ignored_switch(name)) {
      if (ignored) ignored->emplace_back(name);
      if (dropped->takes_value && equals == std::string::npos) ++i;  // its value too
      continue;
    }
    const auto alias = std::find_if(std::begin(kAliases), std::end(kAliases), [&](const Alias& a) { return a.spelling == name; });
    if (alias == std::end(kAliases)) {
      resolved.push_back(argument);
      continue;
    }
    if (alias->option.empty()) {  // "--prism FILE": FILE is the model
      if (equals != std::string::npos) resolved.push_back(argument.substr(equals + 1));
      continue;
    }
    if (alias->value.data() != nullptr) {  // a flag standing for an option and value
      resolved.push_back(alias->value.empty() ? std::string(alias->option)
                                              : std::string(alias->option) + "=" + std::string(alias->value));
      if (equals != std::string::npos) resolved.push_back(argument.substr(equals + 1));
      continue;
    }
    std::string option(alias->option);
    if (equals != std::string::npos) {
      const std::string value = argument.substr(equals + 1);
      resolved.push_back(option + "=" + (alias->export_file ? without_export_options(value) : value));
    } else {
      resolved.push_back(option);
      if (i + 1 < arguments.size()) {
        ++i;
        resolved.push_back(alias->export_file ? without_export_options(arguments[i]) : arguments[i]);
      }
    }
  }
  return resolved;
}

}  // namespace mdpvi::tools
