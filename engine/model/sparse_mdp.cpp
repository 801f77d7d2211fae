#include "engine/model/sparse_mdp.h"

#include <stdexcept>
#include <string>

namespace mdpvi {

const char* to_string(ModelType type) {
  switch (type) {
    case ModelType::mdp: return "MDP";
    case ModelType::dtmc: return "DTMC";
    case ModelType::ctmc: return "CTMC";
  }
  return "?";
}

const Label* SparseMdp::find_label(const std::string& name) const {
  for (const Label& label : labels) {
    if (label.name == name) return &label;
  }
  return nullptr;
}

namespace {

// The message is made only on failure: the checks run over every state, choice and
// entry of models of 10^9 entries (a string per entry was most of an import's time).
template <typename Message>
void require(bool condition, Message what) {
  if (!condition) throw std::invalid_argument("invalid sparse MDP: " + std::string(what()));
}

void check_offsets(const PackedOffsets& offsets, std::uint64_t end, const char* name) {
  require(!offsets.empty() && offsets[0] == 0, [&] { return std::string(name) + " must start at 0"; });
  require(offsets.spans_fit(end), [&] { return std::string(name) + ": 256 consecutive offsets span 2^32 or more"; });
  require(offsets.back() == end, [&] { return std::string(name) + " must end at " + std::to_string(end); });
  for (std::size_t i = 1; i < offsets.size(); ++i) {
    require(offsets[i - 1] <= offsets[i], [&] { return std::string(name) + " decreases at " + std::to_string(i); });
  }
}

}  // namespace

void compact_model(SparseMdp& mdp) {
  // Offsets are packed as they are written; a block that spans 2^32 entries or more
  // (256 choices of 16 million entries each) would have lost them.
  if (!mdp.row_starts.spans_fit(mdp.num_transitions()) || !mdp.row_group_starts.spans_fit(mdp.num_choices())) {
    throw std::invalid_argument("model too large: 256 consecutive choices or states hold 2^32 entries or choices or more");
  }
  mdp.values.compress();
  for (RewardStructure& structure : mdp.rewards) {
    structure.state_rewards.compress();
    structure.choice_rewards.compress();
  }
}

void check_invariants(const SparseMdp& mdp) {
  const std::uint32_t states = mdp.num_states();
  require(states > 0, [] { return "no states"; });
  check_offsets(mdp.row_group_starts, mdp.num_choices(), "row_group_starts");
  check_offsets(mdp.row_starts, mdp.num_transitions(), "row_starts");
  require(mdp.values.size() == mdp.columns.size(), [] { return "values and columns differ in size"; });
  for (std::uint32_t s = 0; s < states; ++s) {
    require(mdp.row_group_starts[s] < mdp.row_group_starts[s + 1], [&] { return "state " + std::to_string(s) + " has no choice"; });
  }
  for (std::uint32_t column : mdp.columns) {
    require(column < states, [&] { return "column " + std::to_string(column) + " out of range"; });
  }
  require(!mdp.initial_states.empty(), [] { return "no initial state"; });
  for (std::uint32_t s : mdp.initial_states) require(s < states, [] { return "initial state out of range"; });
  for (const Label& label : mdp.labels) {
    require(label.states.size() == states, [&] { return "label \"" + label.name + "\" has the wrong size"; });
  }
  if (mdp.actions) {
    require(mdp.actions->of_choice.size() == mdp.num_choices(), [] { return "actions: one per choice"; });
    for (std::uint32_t a : mdp.actions->of_choice) require(a < mdp.actions->names.size(), [] { return "action out of range"; });
  }
  for (const RewardStructure& r : mdp.rewards) {
    require(r.state_rewards.empty() || r.state_rewards.size() == states, [] { return "state rewards size"; });
    require(r.choice_rewards.empty() || r.choice_rewards.size() == mdp.num_choices(), [] { return "choice rewards size"; });
  }
}

}  // namespace mdpvi
