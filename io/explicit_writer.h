#pragma once
// Writes a model's transitions in PRISM's explicit .tra format, which read_transitions
// (explicit_reader.h) and PRISM's -importtrans read: for an MDP a line "states choices
// transitions", then "state choice successor probability" per entry; for a DTMC
// "states transitions", then "state successor probability". Probabilities are written
// in the shortest form that reads back as the same double.
#include "engine/model/sparse_mdp.h"

#include <ostream>

namespace mdpvi::io {

void write_transitions(const SparseMdp& mdp, std::ostream& out);

// A state's valuation as PRISM's .sta writes it: "(1,true,0)".
void write_valuation(const StateValuations& valuations, std::uint32_t state, std::ostream& out);

// A state as the per-state exports name it: "7", or "7:(1,true,0)" where the model
// has valuations.
void write_state_key(const SparseMdp& mdp, std::uint32_t state, std::ostream& out);

}  // namespace mdpvi::io
