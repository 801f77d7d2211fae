#pragma once
// Writes a model in Storm's DRN format as PRISM and Storm write it (drn_reader.h reads
// it back): the header, then per state "state S [rewards] labels", its choices as
// "action NAME [rewards]" (__NOLABEL__ for none) and their "TARGET : PROBABILITY".
// Where the model has state valuations, a comment line "//(1,true,0)" follows each
// state line and a "// Variables: (x,b,y)" comment precedes the header, as Storm writes
// valuations in comments: Storm ignores them, mdpvi reads them back.
#include "engine/model/sparse_mdp.h"

#include <ostream>

namespace mdpvi::io {

// Throws std::invalid_argument for what DRN cannot say: an unnamed reward structure
// beside others, a label or reward name with a blank.
void write_drn(const SparseMdp& mdp, std::ostream& out);

}  // namespace mdpvi::io
