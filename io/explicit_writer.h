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

}  // namespace mdpvi::io
