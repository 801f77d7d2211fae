#pragma once
// Writes a model as PRISM's explicit files, as PRISM's -exportmodel does, so that
// read_explicit_model (explicit_reader.h) and PRISM read them back and a model in
// PRISM's state order diffs clean against PRISM's own export:
// - .tra: "# Transitions (MDP)", "states choices transitions", then "state choice
//   successor probability [action]" per entry (a DTMC: no choice column);
// - .lab: "# Labels", the declarations 0="init" 1="deadlock" ..., then "state: labels"
//   for each state that has one;
// - .sta: "# States", "(x,y,...)", then "state:(values)";
// - .srew/.trew: "# Reward structure "name"", then the non-zero state rewards, and the
//   non-zero choice rewards on each entry of the choice.
// Numbers are written in the shortest form that reads back as the same double
// (format_number, engine/model/property_value.h).
#include "engine/model/sparse_mdp.h"

#include <ostream>
#include <string>

namespace mdpvi::io {

void write_transitions(const SparseMdp& mdp, std::ostream& out);
// The labels, "init" first (made from the initial states where the model has none).
void write_labels(const SparseMdp& mdp, std::ostream& out);
void write_states(const StateValuations& valuations, std::uint32_t num_states, std::ostream& out);
void write_state_rewards(const SparseMdp& mdp, const RewardStructure& rewards, std::ostream& out);
void write_transition_rewards(const SparseMdp& mdp, const RewardStructure& rewards, std::ostream& out);

// BASE.tra, BASE.lab, BASE.sta (with valuations) and the reward files: BASE.srew and
// BASE.trew for one structure, BASE1.srew, BASE2.srew, ... for several. Throws
// std::runtime_error naming a file that cannot be written.
void write_explicit_files(const SparseMdp& mdp, const std::string& base);

// A state's valuation as PRISM's .sta writes it: "(1,true,0)".
void write_valuation(const StateValuations& valuations, std::uint32_t state, std::ostream& out);

// A state as the per-state exports name it: "7", or "7:(1,true,0)" where the model
// has valuations.
void write_state_key(const SparseMdp& mdp, std::uint32_t state, std::ostream& out);

}  // namespace mdpvi::io
