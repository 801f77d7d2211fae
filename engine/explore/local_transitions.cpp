#include "engine/explore/local_transitions.h"

#include "engine/model/located_error.h"

#include <algorithm>
#include <cmath>

namespace mdpvi {

LocalTransitionCache::LocalTransitionCache(const ModelIndex& index, std::uint32_t module)
    : index_(index), module_(index.modules[module]), words_(index.layout.words()), memo_(module_.read_mask) {}

// A new entry, from the state's values; where the memo starts afresh, so do the entries.
std::uint32_t LocalTransitionCache::add(const double* values) {
  if (memo_.full()) {
    entries_.clear();
    commands_.clear();
    updates_.clear();
    write_words_.clear();
    action_words_.clear();
  }
  LocalEntry entry{static_cast<std::uint32_t>(commands_.size()), 0, static_cast<std::uint32_t>(action_words_.size()), false};
  for (std::uint32_t c : module_.candidates(values)) {
    if (index_.model.commands[c].guard.holds(values)) add_command(c, values, entry.faulty);
  }
  entry.end_command = static_cast<std::uint32_t>(commands_.size());
  // Grouped by action for synchronisation; within an action (and among the
  // unlabelled commands, which come first) in command order, as the plain way.
  std::stable_sort(commands_.begin() + entry.first_command, commands_.end(),
                   [](const LocalCommand& a, const LocalCommand& b) { return a.action < b.action; });
  action_words_.resize(action_words_.size() + index_.action_words(), 0);
  for (const LocalCommand& command : commands(entry)) {
    if (command.action != kNoAction) ModelIndex::add_action(&action_words_[entry.actions], command.action);
  }
  entries_.push_back(entry);
  return static_cast<std::uint32_t>(entries_.size() - 1);
}

void LocalTransitionCache::add_command(std::uint32_t c, const double* values, bool& faulty) {
  const ResolvedCommand& command = index_.model.commands[c];
  LocalCommand local{command.action, static_cast<std::uint32_t>(updates_.size()), 0};
  double sum = 0.0;
  try {
    for (const ResolvedUpdate& update : command.updates) {
      faulty |= !add_update(update, values);
      const double p = updates_.back().probability;
      faulty |= !(p >= 0.0) || !std::isfinite(p);
      sum += p;
    }
    // A CTMC's updates carry rates, which need not sum to 1.
    faulty |= index_.model.type != ModelType::ctmc && std::abs(sum - 1.0) > kSumTolerance;
  } catch (const LocatedError&) {
    // An evaluation error (pow of integers with a negative exponent): the plain way
    // reports it, if the command runs at all (it may wait for a synchronisation
    // that never comes).
    faulty = true;
  }
  local.end_update = static_cast<std::uint32_t>(updates_.size());
  commands_.push_back(local);
}

// False if the update would set a variable out of its range. (An update assigning
// one variable twice never gets here: resolve_model rejects it.)
bool LocalTransitionCache::add_update(const ResolvedUpdate& update, const double* values) {
  const std::size_t at = write_words_.size();
  updates_.push_back({update.probability.evaluate(values), static_cast<std::uint32_t>(at)});
  write_words_.resize(at + 2 * words_, 0);
  std::uint64_t* clear = &write_words_[at];
  std::uint64_t* set = clear + words_;
  bool valid = true;
  for (const ResolvedAssignment& a : update.assignments) {
    const ResolvedVariable& v = index_.model.variables[a.variable];
    const double value = a.value.evaluate(values);
    if (!(value >= v.low && value <= v.high)) {  // NaN too: the uncached path then says which
      valid = false;
      continue;
    }
    const StateLayout::Field& field = index_.layout.field(a.variable);
    const std::uint64_t bits = field.mask << field.shift;
    clear[field.word] |= bits;
    set[field.word] = (set[field.word] & ~bits) |
                      static_cast<std::uint64_t>(static_cast<std::int64_t>(value) - field.low) << field.shift;
  }
  return valid;
}

}  // namespace mdpvi
