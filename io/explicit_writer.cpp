#include "io/explicit_writer.h"

#include "engine/model/property_value.h"

#include <fstream>
#include <stdexcept>
#include <string>

namespace mdpvi::io {

namespace {

// The action written after a choice's entries ("" for none).
const std::string& action_of(const SparseMdp& mdp, std::uint64_t row) {
  static const std::string none;
  return mdp.actions ? mdp.actions->names[mdp.actions->of_choice[row]] : none;
}

const char* type_name(const SparseMdp& mdp) { return to_string(mdp.type); }

void write_reward_header(const RewardStructure& rewards, const char* kind, std::ostream& out) {
  out << "# Reward structure" << (rewards.name.empty() ? "" : " \"" + rewards.name + "\"") << "\n# " << kind << " rewards\n";
}

template <typename Write>
void write_file(const std::string& path, Write write) {
  std::ofstream out(path);
  write(out);
  out.flush();
  if (!out) throw std::runtime_error(path + ": cannot write the model");
}

}  // namespace

void write_transitions(const SparseMdp& mdp, std::ostream& out) {
  const bool dtmc = has_one_choice_per_state(mdp.type);  // a CTMC: its rates
  out << "# Transitions (" << type_name(mdp) << ")\n";
  out << mdp.num_states() << ' ';
  if (!dtmc) out << mdp.num_choices() << ' ';
  out << mdp.num_transitions() << '\n';
  std::string line;
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    for (std::uint64_t row = mdp.row_group_starts[s]; row < mdp.row_group_starts[s + 1]; ++row) {
      const std::string source = std::to_string(s) + ' ' + (dtmc ? "" : std::to_string(row - mdp.row_group_starts[s]) + ' ');
      const std::string& action = action_of(mdp, row);
      for (std::uint64_t k = mdp.row_starts[row]; k < mdp.row_starts[row + 1]; ++k) {
        line.assign(source).append(std::to_string(mdp.columns[k])).append(1, ' ').append(format_number(mdp.values[k]));
        if (!action.empty()) line.append(1, ' ').append(action);
        out << line << '\n';
      }
    }
  }
}

void write_labels(const SparseMdp& mdp, std::ostream& out) {
  std::vector<const Label*> labels;
  Label from_initial_states{"init", StateSet(mdp.num_states())};
  if (!mdp.find_label("init")) {
    for (std::uint32_t s : mdp.initial_states) from_initial_states.states.set(s);
    labels.push_back(&from_initial_states);
  }
  for (const Label& label : mdp.labels) labels.push_back(&label);
  out << "# Labels\n";
  for (std::size_t l = 0; l < labels.size(); ++l) out << (l ? " " : "") << l << "=\"" << labels[l]->name << '"';
  out << '\n';
  std::string line;
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    line.clear();
    for (std::size_t l = 0; l < labels.size(); ++l) {
      if (labels[l]->states.test(s)) line.append(1, ' ').append(std::to_string(l));
    }
    if (!line.empty()) out << s << ':' << line << '\n';
  }
}

void write_states(const StateValuations& valuations, std::uint32_t num_states, std::ostream& out) {
  out << "# States\n(";
  for (std::size_t i = 0; i < valuations.variables.size(); ++i) out << (i ? "," : "") << valuations.variables[i];
  out << ")\n";
  for (std::uint32_t s = 0; s < num_states; ++s) {
    out << s << ':';
    write_valuation(valuations, s, out);
    out << '\n';
  }
}

void write_state_rewards(const SparseMdp& mdp, const RewardStructure& rewards, std::ostream& out) {
  write_reward_header(rewards, "State", out);
  std::uint64_t nonzero = 0;
  for (std::size_t s = 0; s < rewards.state_rewards.size(); ++s) nonzero += rewards.state_rewards[s] != 0.0;
  out << mdp.num_states() << ' ' << nonzero << '\n';
  for (std::uint32_t s = 0; s < rewards.state_rewards.size(); ++s) {
    if (rewards.state_rewards[s] != 0.0) out << s << ' ' << format_number(rewards.state_rewards[s]) << '\n';
  }
}

void write_transition_rewards(const SparseMdp& mdp, const RewardStructure& rewards, std::ostream& out) {
  const bool dtmc = has_one_choice_per_state(mdp.type);  // a CTMC: its rates
  write_reward_header(rewards, "Transition", out);
  std::uint64_t nonzero = 0;
  for (std::uint64_t row = 0; row < rewards.choice_rewards.size(); ++row) {
    if (rewards.choice_rewards[row] != 0.0) nonzero += mdp.row_starts[row + 1] - mdp.row_starts[row];
  }
  out << mdp.num_states() << ' ';
  if (!dtmc) out << mdp.num_choices() << ' ';
  out << nonzero << '\n';
  if (rewards.choice_rewards.empty()) return;
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    for (std::uint64_t row = mdp.row_group_starts[s]; row < mdp.row_group_starts[s + 1]; ++row) {
      const double r = rewards.choice_rewards[row];
      if (r == 0.0) continue;
      for (std::uint64_t k = mdp.row_starts[row]; k < mdp.row_starts[row + 1]; ++k) {
        out << s << ' ';
        if (!dtmc) out << row - mdp.row_group_starts[s] << ' ';
        out << mdp.columns[k] << ' ' << format_number(r) << '\n';
      }
    }
  }
}

void write_explicit_files(const SparseMdp& mdp, const std::string& base) {
  write_file(base + ".tra", [&](std::ostream& out) { write_transitions(mdp, out); });
  write_file(base + ".lab", [&](std::ostream& out) { write_labels(mdp, out); });
  if (mdp.valuations) write_file(base + ".sta", [&](std::ostream& out) { write_states(*mdp.valuations, mdp.num_states(), out); });
  for (std::size_t r = 0; r < mdp.rewards.size(); ++r) {
    const std::string stem = mdp.rewards.size() == 1 ? base : base + std::to_string(r + 1);
    write_file(stem + ".srew", [&](std::ostream& out) { write_state_rewards(mdp, mdp.rewards[r], out); });
    write_file(stem + ".trew", [&](std::ostream& out) { write_transition_rewards(mdp, mdp.rewards[r], out); });
  }
}

void write_valuation(const StateValuations& valuations, std::uint32_t state, std::ostream& out) {
  out << "(";
  for (std::size_t i = 0; i < valuations.variables.size(); ++i) {
    const std::int32_t x = valuations.value(state, i);
    out << (i ? "," : "");
    if (valuations.types[i] == ValueType::boolean) {
      out << (x ? "true" : "false");
    } else {
      out << x;
    }
  }
  out << ")";
}

void write_state_key(const SparseMdp& mdp, std::uint32_t state, std::ostream& out) {
  out << state;
  if (!mdp.valuations) return;
  out << ":";
  write_valuation(*mdp.valuations, state, out);
}

}  // namespace mdpvi::io
