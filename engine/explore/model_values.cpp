#include "engine/explore/model_values.h"

namespace mdpvi {

ModelValues::ModelValues(const ResolvedModel& model) : state_rewards_(model.rewards.size()), choice_rewards_(model.rewards.size()) {
  for (const ResolvedReward& reward : model.rewards) {
    has_state_rewards_.push_back(!reward.state_items.empty());
    has_choice_rewards_.push_back(!reward.transition_items.empty());
  }
}

template <typename Self, typename F>
void ModelValues::each(Self& self, F f) {
  f(self.probabilities_, 2);
  for (std::size_t r = 0; r < self.has_state_rewards_.size(); ++r) {
    if (self.has_state_rewards_[r]) f(self.state_rewards_[r], 0);
    if (self.has_choice_rewards_[r]) f(self.choice_rewards_[r], 1);
  }
}

ModelValues::Scratch ModelValues::start_wave(std::uint64_t states, std::uint64_t rows, std::uint64_t entries) {
  Scratch scratch;
  scratch.probabilities = probabilities_.wave_scratch(entries);
  for (std::size_t r = 0; r < has_state_rewards_.size(); ++r) {
    scratch.state_rewards.push_back(has_state_rewards_[r] ? state_rewards_[r].wave_scratch(states) : nullptr);
    scratch.choice_rewards.push_back(has_choice_rewards_[r] ? choice_rewards_[r].wave_scratch(rows) : nullptr);
  }
  return scratch;
}

void ModelValues::end_wave(std::uint64_t states, std::uint64_t rows, std::uint64_t entries) {
  const std::uint64_t counts[3] = {states, rows, entries};
  each(*this, [&](CompactValuesBuilder& builder, int kind) { builder.append_wave(counts[kind]); });
}

void ModelValues::reserve() {
  each(*this, [](CompactValuesBuilder& builder, int) { builder.reserve(); });
}

void ModelValues::add_room(std::vector<PageRange>& room, std::uint64_t states, std::uint64_t rows,
                           std::uint64_t entries) const {
  const std::uint64_t counts[3] = {states, rows, entries};
  each(*this, [&](const CompactValuesBuilder& builder, int kind) { room.push_back(builder.room_ahead(counts[kind])); });
}

std::size_t ModelValues::bytes() const {
  std::size_t bytes = 0;
  each(*this, [&](const CompactValuesBuilder& builder, int) { bytes += builder.bytes(); });
  return bytes;
}

void ModelValues::into(SparseMdp& mdp, bool compact) {
  const auto made = [compact](CompactValuesBuilder& builder) {
    CompactValues values = builder.finish();
    return compact ? std::move(values) : CompactValues(values.expanded());
  };
  mdp.values = made(probabilities_);
  for (std::size_t r = 0; r < has_state_rewards_.size(); ++r) {
    if (has_state_rewards_[r]) mdp.rewards[r].state_rewards = made(state_rewards_[r]);
    if (has_choice_rewards_[r]) mdp.rewards[r].choice_rewards = made(choice_rewards_[r]);
  }
}

}  // namespace mdpvi
