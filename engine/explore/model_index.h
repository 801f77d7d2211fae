#pragma once
// A resolved model's commands arranged for expansion: by module and the value of its
// program counter, by action, and what each module reads and writes. Built once,
// shared read-only by all of the builder's workers.
#include "engine/explore/resolved_model.h"
#include "engine/model/sparse_mdp.h"  // kSumTolerance
#include "engine/model/state_layout.h"

#include <cstdint>
#include <vector>

namespace mdpvi {

// The commands of a module, bucketed by the value of the one module variable that
// most of its guards test with "v = c" (PRISM's program counters: s1=0, s1=1, ...).
// A state then evaluates only the guards that can hold in it.
struct ModuleIndex {
  int key = -1;  // variable index, or -1: evaluate every command
  std::int32_t low = 0;
  std::vector<std::vector<std::uint32_t>> buckets;  // by key value - low, command order
  std::vector<std::uint32_t> all;
  // The bits of a packed state (per word) that the module's guards, probabilities
  // and update values read: its commands behave alike in states equal on them.
  std::vector<std::uint64_t> read_mask;

  const std::vector<std::uint32_t>& candidates(const double* values) const {
    // value - low first: a negative value cast to size_t is undefined (UBSan found it).
    return key < 0 ? all : buckets[static_cast<std::size_t>(static_cast<std::int64_t>(values[key]) - low)];
  }
};

struct ModelIndex {
  const ResolvedModel& model;
  StateLayout layout;
  std::vector<ModuleIndex> modules;
  std::vector<std::vector<std::vector<std::uint32_t>>> commands_by_action;  // [action][module]
  std::vector<std::vector<std::uint32_t>> alphabet_modules;  // per action: the modules with commands for it
  // Actions as bit sets of action_words() words, action a at bit a % 64 of word a / 64;
  // per module, its alphabet. A state's synchronised choices are then found with a
  // few word operations over the modules' enabled actions (LocalTransitionCache).
  std::vector<std::vector<std::uint64_t>> alphabet_masks;
  std::uint32_t action_words() const { return static_cast<std::uint32_t>((model.actions.size() + 63) / 64); }
  // Adds action to the bit set at words.
  static void add_action(std::uint64_t* words, std::uint32_t action) { words[action / 64] |= std::uint64_t{1} << (action % 64); }
  // Whether some reward depends on the state; if not ("[time] true : 1"), rewards
  // are evaluated without decoding it.
  bool rewards_read_state = false;

  explicit ModelIndex(const ResolvedModel& m);
};

}  // namespace mdpvi
