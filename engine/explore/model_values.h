#pragma once
// The model's probabilities and rewards while it is built: made wave by wave
// (engine/model/compact_values_builder.h), each wave written plain into scratch and
// then indexed, so that the build never holds them as doubles whole; into the model
// at the end.
#include "engine/explore/resolved_model.h"
#include "engine/model/compact_values_builder.h"
#include "engine/model/sparse_mdp.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace mdpvi {

class ModelValues {
 public:
  // A reward structure has state rewards where it has state items, choice rewards
  // where it has transition items (a number for every state, or every row, or none).
  explicit ModelValues(const ResolvedModel& model);

  // Where a wave's numbers are written, plain: its entries' probabilities, and per
  // structure its states' and rows' rewards (null where the structure has none).
  struct Scratch {
    double* probabilities = nullptr;
    std::vector<double*> state_rewards, choice_rewards;
  };
  Scratch start_wave(std::uint64_t states, std::uint64_t rows, std::uint64_t entries);
  // The scratch taken, on all cores: the same counts as start_wave's.
  void end_wave(std::uint64_t states, std::uint64_t rows, std::uint64_t entries);

  // Address space for the arrays to grow in place, and the pages of the next wave.
  void reserve();
  void add_room(std::vector<PageRange>& room, std::uint64_t states, std::uint64_t rows, std::uint64_t entries) const;
  std::size_t bytes() const;

  // The numbers into mdp (its reward structures made already, in the model's order):
  // indexed where compact (compact_model's form), else plain.
  void into(SparseMdp& mdp, bool compact);

 private:
  // f(builder, kind) for each builder in use (self: this, const or not); kind 0 for
  // per-state numbers, 1 per-row, 2 per-entry.
  template <typename Self, typename F>
  static void each(Self& self, F f);

  CompactValuesBuilder probabilities_;
  // One per structure; only those with items are used. A deque: the builders hold
  // a mutex and do not move.
  std::deque<CompactValuesBuilder> state_rewards_, choice_rewards_;
  std::vector<bool> has_state_rewards_, has_choice_rewards_;
};

}  // namespace mdpvi
