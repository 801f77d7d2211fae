#pragma once
// What a module can do in a state depends only on the variables its commands read
// (ModuleIndex::read_mask): which commands are enabled, their probabilities and the
// bits their updates write. Models are built from small modules (a station's timer
// and counters, a process's program counter and coin), so millions of states share a
// few hundred such local valuations per module. Each builder worker keeps, per module,
// what it computed for each local valuation it met, and expands a state by combining
// these entries with word operations instead of evaluating guards and updates.
//
// An entry that would raise an error when used (an update leaving its variable's
// range, probabilities not summing to 1) is only marked faulty: the builder then
// expands the state the plain way, which reports the error with its position.
#include "engine/explore/masked_memo.h"
#include "engine/explore/model_index.h"

#include <cstdint>
#include <span>
#include <vector>

namespace mdpvi {

struct LocalUpdate {
  double probability;
  std::uint32_t writes;  // into write_words(): the bits to clear, then the bits to set, a word each
};

struct LocalCommand {
  int action;  // kNoAction sorts first
  std::uint32_t first_update, end_update;
};

struct LocalEntry {
  std::uint32_t first_command, end_command;  // enabled commands by action, then command order
  std::uint32_t actions;  // into action_words(): the actions of those commands, as a bit set
  bool faulty;
};

class LocalTransitionCache {
 public:
  LocalTransitionCache(const ModelIndex& index, std::uint32_t module);

  // The entry for state's local valuation. On a miss, values() gives the state's
  // decoded variables. The entry stays valid until the next find().
  template <typename Values>
  const LocalEntry& find(const std::uint64_t* state, const Values& values);

  std::span<const LocalCommand> commands(const LocalEntry& entry) const {
    return {commands_.data() + entry.first_command, commands_.data() + entry.end_command};
  }
  const std::uint64_t* actions(const LocalEntry& entry) const { return &action_words_[entry.actions]; }
  const LocalUpdate& update(std::uint32_t u) const { return updates_[u]; }
  const std::uint64_t* clear_bits(const LocalUpdate& u) const { return &write_words_[u.writes]; }
  const std::uint64_t* set_bits(const LocalUpdate& u) const { return &write_words_[u.writes + words_]; }

  std::uint64_t lookups() const { return memo_.lookups(); }
  std::uint64_t misses() const { return memo_.misses(); }

 private:
  std::uint32_t add(const double* values);
  void add_command(std::uint32_t c, const double* values, bool& faulty);
  bool add_update(const ResolvedUpdate& update, const double* values);

  const ModelIndex& index_;
  const ModuleIndex& module_;
  const std::uint32_t words_;
  MaskedMemo<std::uint32_t> memo_;  // local valuation -> entry
  std::vector<LocalEntry> entries_;
  std::vector<LocalCommand> commands_;
  std::vector<LocalUpdate> updates_;
  std::vector<std::uint64_t> write_words_;
  std::vector<std::uint64_t> action_words_;  // ModelIndex::action_words() per entry
};

template <typename Values>
const LocalEntry& LocalTransitionCache::find(const std::uint64_t* state, const Values& values) {
  return entries_[memo_.find(state, [&] { return add(values()); })];
}

}  // namespace mdpvi
