#pragma once
// Storm's explicit DRN format, as Storm and PRISM 4.10 write it: a header (@type,
// @parameters, @reward_models, @nr_states, @nr_choices) and after @model one
// "state ID [REWARDS] LABELS" line per state, each followed by its
// "action NAME [REWARDS]" lines and their "TARGET : PROBABILITY" lines. MDPs and
// DTMCs; parametric models are refused. Validation is as strict as the .tra
// reader's: any inconsistency is a ParseError with file:line:column.
#include "engine/model/sparse_mdp.h"
#include "io/text_cursor.h"

#include <string>

namespace mdpvi::io {

// Reads a .drn file. The states labelled "init" are the initial states.
SparseMdp read_drn_model(const std::string& path);
SparseMdp read_drn(const TextFile& file);

}  // namespace mdpvi::io
