#include "tools/check_run.h"

#include "engine/state_formula.h"
#include "io/explicit_reader.h"
#include "io/property_parser.h"

#include <spdlog/spdlog.h>

#include <chrono>

namespace mdpvi::tools {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<io::PropertyEntry> collect_properties(const CheckOptions& options) {
  std::vector<io::PropertyEntry> entries;
  if (options.properties_file) entries = io::parse_properties(io::TextFile::load(*options.properties_file));
  for (std::size_t i = 0; i < options.inline_properties.size(); ++i) {
    entries.push_back(io::parse_property(options.inline_properties[i], "--prop " + std::to_string(i + 1)));
  }
  return entries;
}

PropertyOutcome answer(const SparseMdp& mdp, const graph::ChoicePredecessorGraph& graph, const io::PropertyEntry& entry,
                       const SolverOptions& solver) {
  PropertyOutcome outcome;
  outcome.property = entry.text;
  if (!entry.query) {
    outcome.error = entry.error;
    return outcome;
  }
  auto start = std::chrono::steady_clock::now();
  try {
    StateSet phi = evaluate(entry.query->left, mdp);
    StateSet psi = evaluate(entry.query->right, mdp);
    outcome.detail = compute_until_probabilities(mdp, graph, entry.query->direction, phi, psi, solver);
    outcome.value = outcome.detail->state_values[mdp.initial_states.front()];
  } catch (const std::exception& error) {
    outcome.error = error.what();
  }
  outcome.time_s = seconds_since(start);
  return outcome;
}

}  // namespace

bool CheckReport::all_answered() const {
  for (const PropertyOutcome& p : properties) {
    if (!p.error.empty()) return false;
  }
  return true;
}

CheckReport run_check(const CheckOptions& options) {
  CheckReport report;
  auto start = std::chrono::steady_clock::now();
  SparseMdp mdp = io::read_explicit_model(options.explicit_base);
  report.model = {options.explicit_base, mdp.type, mdp.num_states(), mdp.num_choices(), mdp.num_transitions(),
                  mdp.initial_states.size(), seconds_since(start), 0.0};
  spdlog::debug("read {} states, {} choices, {} transitions in {:.3f} s", mdp.num_states(), mdp.num_choices(),
                mdp.num_transitions(), report.model.read_s);

  std::vector<io::PropertyEntry> entries = collect_properties(options);
  if (entries.empty()) return report;

  start = std::chrono::steady_clock::now();
  graph::ChoicePredecessorGraph graph = graph::build_choice_predecessor_graph(mdp);
  report.model.graph_s = seconds_since(start);
  for (const io::PropertyEntry& entry : entries) report.properties.push_back(answer(mdp, graph, entry, options.solver));
  return report;
}

}  // namespace mdpvi::tools
