#pragma once
// The model every stage after io/ works on: a row-grouped sparse matrix stored as
// structure of arrays. Row group s holds the choice rows of state s; a DTMC is an
// MDP whose row groups all have exactly one row.
#include "engine/model/compact_values.h"
#include "engine/model/packed_offsets.h"
#include "engine/model/pod_vector.h"
#include "engine/model/state_layout.h"
#include "engine/model/state_set.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mdpvi {

// PRISM's tolerance for a distribution that does not sum to one: the builder and the
// explicit readers check every distribution with it.
constexpr double kSumTolerance = 1e-6;

// A CTMC is built and read with rates in place of probabilities; the pipeline then
// keeps it as its uniformised DTMC (engine/model/uniformisation.h).
enum class ModelType { mdp, dtmc, ctmc };

const char* to_string(ModelType type);

// DTMCs and CTMCs: no nondeterminism, one choice per state, min = max.
constexpr bool has_one_choice_per_state(ModelType type) { return type != ModelType::mdp; }

struct Label {
  std::string name;
  StateSet states;
};

// One reward structure. Transition rewards are kept per choice, as the expected
// reward of taking the choice (sum over its entries of probability * reward):
// for expected total reward this is exact, and it is all the solver needs.
struct RewardStructure {
  std::string name;                  // empty for an unnamed structure
  // Compact as the model's probabilities are (compact_model): few distinct values.
  CompactValues state_rewards;   // empty, or one per state
  CompactValues choice_rewards;  // empty, or one per choice row
  // Where the first negative reward came from ("file:line:col: ... in state (...)"),
  // where the builder knows; empty if none or unknown (explicit models).
  std::string first_negative{};

  // The reward of taking choice row in state: its state reward plus the row's own.
  double row_reward(std::uint32_t state, std::uint64_t row) const {
    return (state_rewards.empty() ? 0.0 : state_rewards[state]) + (choice_rewards.empty() ? 0.0 : choice_rewards[row]);
  }
};

// The action of each choice, where the builder or reader was asked to keep them
// (--export-scheduler names the choices it exports by them).
struct ChoiceActions {
  std::vector<std::string> names;      // names[0] is "": a choice of no action
  PodVector<std::uint32_t> of_choice;  // per choice row: an index into names
};

struct SparseMdp {
  ModelType type = ModelType::mdp;
  // Offsets read as 64-bit and are stored in 4 bytes each (packed_offsets.h);
  // columns are 32-bit: up to 2^32-1 states, 10^10 choices and entries.
  PackedOffsets row_group_starts;  // num_states + 1
  PackedOffsets row_starts;        // num_choices + 1
  PodVector<std::uint32_t> columns;           // num_transitions
  // num_transitions probabilities: indexed once the model is whole (compact_model).
  CompactValues values;
  std::vector<std::uint32_t> initial_states;
  std::vector<Label> labels;
  std::vector<RewardStructure> rewards;
  std::optional<StateValuations> valuations;
  std::optional<ChoiceActions> actions;
  // A CTMC once uniformised (engine/model/uniformisation.h): the rate q of its
  // uniformised DTMC, whose probabilities values then holds; 0 for every other model.
  double uniformisation_rate = 0.0;

  std::uint32_t num_states() const {
    return row_group_starts.empty() ? 0 : static_cast<std::uint32_t>(row_group_starts.size() - 1);
  }
  std::uint64_t num_choices() const { return row_starts.empty() ? 0 : row_starts.size() - 1; }
  std::uint64_t num_transitions() const { return columns.size(); }

  // nullptr when the model has no label of that name.
  const Label* find_label(const std::string& name) const;
};

// The model's per-entry arrays in their compact form (engine/model/compact_values.h),
// once it is built or read: what every later stage then reads.
void compact_model(SparseMdp& mdp);

// Checks the structural invariants every stage relies on (monotone offsets, columns
// in range, at least one choice per state, at least one initial state). Throws
// std::invalid_argument naming the first violation.
void check_invariants(const SparseMdp& mdp);

}  // namespace mdpvi
