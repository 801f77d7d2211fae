#include "io/drn_writer.h"

#include "engine/model/property_value.h"
#include "io/explicit_writer.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mdpvi::io {

namespace {

void check_name(const std::string& name, const char* what) {
  if (name.find_first_of(" \t\"") != std::string::npos) {
    throw std::invalid_argument(std::string("DRN cannot name the ") + what + " \"" + name + "\" (blanks or quotes)");
  }
}

void write_header(const SparseMdp& mdp, std::ostream& out) {
  const char* type = to_string(mdp.type);
  out << "// Exported by mdpvi\n// Original model type: " << type << '\n';
  if (mdp.valuations) {
    out << "// Variables: (";
    for (std::size_t v = 0; v < mdp.valuations->variables.size(); ++v) out << (v ? "," : "") << mdp.valuations->variables[v];
    out << ")\n";
  }
  out << "@type: " << type << "\n@parameters\n\n@reward_models\n";
  const bool unnamed = std::any_of(mdp.rewards.begin(), mdp.rewards.end(), [](const RewardStructure& r) { return r.name.empty(); });
  if (unnamed && mdp.rewards.size() > 1) throw std::invalid_argument("DRN cannot name an unnamed reward structure beside others");
  for (std::size_t r = 0; r < mdp.rewards.size(); ++r) {
    check_name(mdp.rewards[r].name, "reward structure");
    out << (r ? " " : "") << mdp.rewards[r].name;
  }
  out << "\n@nr_states\n" << mdp.num_states() << "\n@nr_choices\n" << mdp.num_choices() << "\n@model\n";
}

// " [r1, r2]" of each structure's part (0 where it has none); nothing without rewards.
template <typename Part>
void write_rewards(const SparseMdp& mdp, Part part, std::ostream& out) {
  if (mdp.rewards.empty()) return;
  out << " [";
  for (std::size_t r = 0; r < mdp.rewards.size(); ++r) out << (r ? ", " : "") << format_number(part(mdp.rewards[r]));
  out << ']';
}

}  // namespace

void write_drn(const SparseMdp& mdp, std::ostream& out) {
  for (const Label& label : mdp.labels) check_name(label.name, "label");
  write_header(mdp, out);
  StateSet initial(mdp.num_states());
  for (std::uint32_t s : mdp.initial_states) initial.set(s);
  const bool init_label = mdp.find_label("init") != nullptr;
  std::string line;
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    out << "state " << s;
    write_rewards(mdp, [&](const RewardStructure& r) { return r.state_rewards.empty() ? 0.0 : r.state_rewards[s]; }, out);
    if (!init_label && initial.test(s)) out << " init";
    for (const Label& label : mdp.labels) {
      if (label.states.test(s)) out << ' ' << label.name;
    }
    out << '\n';
    if (mdp.valuations) {
      out << "//";
      write_valuation(*mdp.valuations, s, out);
      out << '\n';
    }
    for (std::uint64_t row = mdp.row_group_starts[s]; row < mdp.row_group_starts[s + 1]; ++row) {
      const std::uint32_t action = mdp.actions ? mdp.actions->of_choice[row] : 0;
      // No action: PRISM's __NOLABEL__, or for a DTMC the choice's number, as PRISM writes.
      const std::string no_action = has_one_choice_per_state(mdp.type) ? "0" : "__NOLABEL__";
      out << "\taction " << (action == 0 ? no_action : mdp.actions->names[action]);
      write_rewards(mdp, [&](const RewardStructure& r) { return r.choice_rewards.empty() ? 0.0 : r.choice_rewards[row]; }, out);
      out << '\n';
      for (std::uint64_t k = mdp.row_starts[row]; k < mdp.row_starts[row + 1]; ++k) {
        line.assign("\t\t").append(std::to_string(mdp.columns[k])).append(" : ").append(format_number(mdp.values[k])).append(1, '\n');
        out << line;
      }
    }
  }
}

}  // namespace mdpvi::io
