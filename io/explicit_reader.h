#pragma once
// PRISM's explicit model files: BASE.tra (transitions), BASE.lab (labels; "init"
// gives the initial states) and, when present, BASE.sta (state valuations) and the
// reward files BASE.srew/BASE.trew (or BASE1.srew, BASE2.srew, ... for several
// structures, as PRISM exports them). Validation is strict: any inconsistency is a
// ParseError with file:line:column, never a silently different model.
#include "engine/model/sparse_mdp.h"
#include "io/text_cursor.h"

#include <optional>
#include <string>
#include <vector>

namespace mdpvi::io {

// Reads BASE.tra, BASE.lab and the optional files beside them. ctmc: BASE.tra holds a
// CTMC's rates (PRISM's -ctmc; the file does not say), in a DTMC's layout.
SparseMdp read_explicit_model(const std::string& base, bool ctmc = false);

// The steps of read_explicit_model, public for tests and other front ends.
// read_transitions fills type, row_group_starts, row_starts, columns, values.
void read_transitions(const TextFile& tra, SparseMdp& mdp, bool ctmc = false);
// read_labels fills labels and initial_states (the states labelled "init").
void read_labels(const TextFile& lab, SparseMdp& mdp);
StateValuations read_state_valuations(const TextFile& sta, std::uint32_t num_states);
// The parts of a .sta line, shared with the DRN reader's valuation comments:
// "(x,y,...)", and "(1,true,0)" appended to values (row-major); the first state's
// true/false make a variable boolean in types.
std::vector<std::string> read_variable_list(LineCursor& cursor);
void read_valuation_tuple(LineCursor& cursor, std::size_t width, bool first_state, std::vector<std::int32_t>& values,
                          std::vector<ValueType>& types);
// Either file may be absent; the name comes from the files' "# Reward structure" line.
RewardStructure read_reward_structure(const std::optional<TextFile>& srew,
                                      const std::optional<TextFile>& trew, const SparseMdp& mdp);

}  // namespace mdpvi::io
