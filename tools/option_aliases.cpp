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

// PRISM's choices of engine, linear equation or MDP method, precomputation and LTL
// translator: mdpvi picks its own (sound by default), so a PRISM command line keeps
// working. The second list's take a value.
// -s, -m and -h are the engines' short names (-h is help only on a command line with
// nothing else: is_help).
constexpr std::string_view kIgnoredFlags[] = {
    "-ex", "-explicit", "-sparse", "-mtbdd", "-hybrid", "-s", "-m", "-h",
    "-gs", "-gaussseidel", "-bgs", "-bgaussseidel", "-pgs", "-pgaussseidel", "-bpgs", "-bpgaussseidel",
    "-jacobi", "-jor", "-sor", "-bsor", "-psor", "-bpsor", "-power", "-pow", "-pwr", "-valiter", "-lp", "-linprog",
    "-topological", "-pathviaautomata", "-nofair", "-pre", "-nopre", "-prob0", "-noprob0", "-prob1", "-noprob1",
    "-fixdl", "-dasimplify", "-nodasimplify", "-noprobchecks", "-nossdetect", "-sumroundoff", "-exact", "-exact-lp",
    "-sim", "-simapprox"};
// The same with a value: the LTL translator, the BDD library's and Java's settings,
// over-relaxation, the exact engine's precision, simulation's settings and the
// Pareto curve's approximation (mdpvi's multi(...) finds the front's vertices by
// weighted sums, to its own tolerance).
constexpr std::string_view kIgnoredWithValue[] = {"-ltl2datool", "-ltl2dasyntax", "-cuddepsilon", "-cuddmaxmem",
                                                  "-javamaxmem",  "-javastack",    "-omega",       "-precision",
                                                  "-simmethod",   "-simsamples",   "-simconf",     "-simwidth",
                                                  "-simpathlen",  "-paretoepsilon", "-multimaxpoints"};
// PRISM's exact arithmetic (and its precision): mdpvi's numbers are floating point.
constexpr std::string_view kExactness[] = {"-exact", "-exact-lp", "-precision"};
// PRISM's statistical model checking: mdpvi computes the values themselves.
constexpr std::string_view kSimulation[] = {"-sim", "-simapprox", "-simmethod", "-simsamples", "-simconf", "-simwidth",
                                            "-simpathlen"};

template <std::size_t N>
bool listed(const std::string_view (&list)[N], std::string_view name) {
  return std::find(std::begin(list), std::end(list), name) != std::end(list);
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
  if (listed(kExactness, name)) {
    return "mdpvi computes in floating point: its results are numbers with the bounds printed, not exact fractions";
  }
  if (listed(kSimulation, name)) return "mdpvi computes the values themselves (with their bounds), not estimates by simulation";
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
    const bool with_value = listed(kIgnoredWithValue, name);
    if (name == "-h" && is_help(arguments)) {
      resolved.push_back(argument);
      continue;
    }
    if (with_value || listed(kIgnoredFlags, name)) {
      if (ignored) ignored->emplace_back(name);
      if (with_value && equals == std::string::npos) ++i;  // its value too
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
