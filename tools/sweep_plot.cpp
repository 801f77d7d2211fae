#include "tools/sweep_plot.h"

#include "engine/pipeline/constant_sweep.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <vector>

namespace mdpvi::tools {

namespace {

// A gnuplot string literal: single quotes, each inner one doubled.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// One line of the plot: a property, with the other constants' setting where any.
struct Series {
  std::string title;
  std::vector<std::pair<double, double>> points;  // (constant, result)
};

std::vector<Series> series_of(const pipeline::CheckReport& report, const std::string& constant) {
  std::map<std::string, Series> by_title;
  std::vector<std::string> order;  // the titles as they first appear in the report
  for (const pipeline::PropertyOutcome& outcome : report.properties) {
    // Numbers only, and finite ones: an infinite expected reward has no point to draw.
    if (!outcome.value || outcome.value->kind != PropertyValue::Kind::number || !std::isfinite(outcome.value->number)) {
      continue;
    }
    const auto x = outcome.constants.find(constant);
    if (x == outcome.constants.end()) continue;
    pipeline::ConstantSetting others = outcome.constants;
    others.erase(constant);
    const std::string title = others.empty() ? outcome.property : outcome.property + " (" + pipeline::describe(others) + ")";
    if (!by_title.count(title)) order.push_back(title);
    Series& series = by_title[title];
    series.title = title;
    series.points.emplace_back(std::stod(x->second), outcome.value->number);
  }
  std::vector<Series> all;
  for (const std::string& title : order) all.push_back(std::move(by_title[title]));
  return all;
}

// The data file: one gnuplot block (two blank lines apart) per series.
void write_data(const std::vector<Series>& all, const std::filesystem::path& path) {
  std::ofstream out(path);
  out.precision(17);
  for (const Series& series : all) {
    for (const auto& [x, y] : series.points) out << x << ' ' << y << '\n';
    out << "\n\n";
  }
  if (!out) throw std::runtime_error("cannot write the plot's data to " + path.string());
}

void write_script(const std::vector<Series>& all, const std::string& constant, const std::string& plot_path,
                  const std::filesystem::path& data_path, const std::filesystem::path& script_path) {
  std::ofstream out(script_path);
  out << "set terminal " << (plot_path.ends_with(".svg") ? "svg" : "pngcairo") << " size 800,500\n"
      << "set termoption noenhanced\n"  // titles as written: no subscripts for '_'
      << "set output " << quoted(plot_path) << "\n"
      << "set xlabel " << quoted(constant) << "\nset ylabel 'result'\nset key outside bottom center\nset grid\n"
      << "plot ";
  for (std::size_t i = 0; i < all.size(); ++i) {
    out << (i ? ", \\\n     " : "") << quoted(data_path.string()) << " index " << i << " using 1:2 with linespoints title "
        << quoted(all[i].title);
  }
  out << "\n";
  if (!out) throw std::runtime_error("cannot write the plot's script to " + script_path.string());
}

constexpr int kNotFound = -2;

// gnuplot SCRIPT as a child process (no shell: the file names are the user's), its
// output to standard error, which holds the log: standard output holds results.
// Returns its exit status, kNotFound where there is no gnuplot, -1 where it did not exit.
int run_gnuplot(const std::string& script) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  std::string program = "gnuplot", argument = script;
  char* argv[] = {program.data(), argument.data(), nullptr};
  pid_t child = 0;
  const int spawned = posix_spawnp(&child, "gnuplot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned == ENOENT) return kNotFound;
  if (spawned != 0) return -1;
  int status = 0;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

}  // namespace

std::string plotted_constant(const std::map<std::string, std::string>& given, const std::string& path) {
  if (!path.ends_with(".svg") && !path.ends_with(".png")) {
    throw std::invalid_argument("--plot " + path + ": expected a file name ending in .svg or .png");
  }
  std::vector<std::string> swept;
  for (const auto& [name, text] : given) {
    if (pipeline::has_range({{name, text}})) swept.push_back(name);
  }
  if (swept.size() != 1) {
    throw std::invalid_argument("--plot draws a sweep of one constant (as --const N=1:10), and " +
                                std::to_string(swept.size()) + " constants are swept here");
  }
  return swept.front();
}

void plot_sweep(const pipeline::CheckReport& report, const std::string& constant, const std::string& path) {
  const std::vector<Series> all = series_of(report, constant);
  if (all.empty()) throw std::runtime_error("--plot " + path + ": no property has a numeric result to draw");
  const std::filesystem::path base = path + ".mdpvi-plot";
  const std::filesystem::path data = base.string() + ".dat", script = base.string() + ".gp";
  write_data(all, data);
  write_script(all, constant, path, data, script);
  const int status = run_gnuplot(script.string());
  std::filesystem::remove(data);
  std::filesystem::remove(script);
  if (status == kNotFound) {
    throw std::runtime_error("--plot " + path + ": gnuplot was not found (tools/setup.sh installs gnuplot-nox)");
  }
  if (status != 0) throw std::runtime_error("--plot " + path + ": gnuplot failed");
}

}  // namespace mdpvi::tools
