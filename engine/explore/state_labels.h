#pragma once
// The labels of a built model: "init", "deadlock" and the model's labels asked for.
#include "engine/explore/model_index.h"
#include "engine/explore/resolved_model.h"
#include "engine/explore/state_table.h"
#include "engine/model/sparse_mdp.h"

#include <cstdint>
#include <vector>

namespace mdpvi {

// Appends init (mdp.initial_states), deadlock (deadlocks) and the labels
// model.labels[wanted[i]] of every state of the table. Each state is decoded once for
// all labels, and each task takes whole 64-bit words so that no two share a word.
void add_labels(SparseMdp& mdp, const ResolvedModel& model, const ModelIndex& index, const StateTable& table,
                const std::vector<std::size_t>& wanted, const std::vector<std::uint32_t>& deadlocks);

}  // namespace mdpvi
