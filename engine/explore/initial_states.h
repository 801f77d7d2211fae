#pragma once
// A model's initial states, inserted into the state table first: the variables' init
// values, or every valuation that satisfies an init ... endinit block.
#include "engine/explore/resolved_model.h"
#include "engine/explore/state_table.h"
#include "engine/model/state_layout.h"

#include <cstdint>
#include <vector>

namespace mdpvi {

// Their indices, in the order of the valuations (the first variable fastest). Throws
// LocatedError where no valuation satisfies the block, or it spans over 10^8.
std::vector<std::uint32_t> insert_initial_states(const ResolvedModel& model, const StateLayout& layout, StateTable& table);

}  // namespace mdpvi
