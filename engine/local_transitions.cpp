#include "engine/local_transitions.h"

#include <algorithm>
#include <cmath>

namespace mdpvi {

LocalTransitionCache::LocalTransitionCache(const ModelIndex& index, std::uint32_t module)
    : index_(index), module_(index.modules[module]), words_(index.layout.words()), key_(words_) {
  rehash(256);
}

void LocalTransitionCache::clear() {
  last_ = kEmpty;
  entries_.clear();
  entry_keys_.clear();
  commands_.clear();
  updates_.clear();
  write_words_.clear();
  std::fill(slots_.begin(), slots_.end(), kEmpty);
}

void LocalTransitionCache::rehash(std::size_t slot_count) {
  slots_.assign(slot_count, kEmpty);
  for (std::uint32_t e = 0; e < entries_.size(); ++e) {
    std::size_t slot = hash_words(&entry_keys_[std::size_t{e} * words_], words_) & (slot_count - 1);
    while (slots_[slot] != kEmpty) slot = (slot + 1) & (slot_count - 1);
    slots_[slot] = e;
  }
}

// The entry for key_, computed from the state's values.
const LocalEntry& LocalTransitionCache::add(const double* values) {
  if (entries_.size() == kMostEntries) clear();
  if (2 * (entries_.size() + 1) > slots_.size()) rehash(2 * slots_.size());
  const std::uint32_t e = static_cast<std::uint32_t>(entries_.size());
  std::size_t slot = hash_words(key_.data(), words_) & (slots_.size() - 1);
  while (slots_[slot] != kEmpty) slot = (slot + 1) & (slots_.size() - 1);
  slots_[slot] = e;
  entry_keys_.insert(entry_keys_.end(), key_.begin(), key_.end());

  LocalEntry entry{static_cast<std::uint32_t>(commands_.size()), 0, false};
  for (std::uint32_t c : module_.candidates(values)) {
    if (index_.model.commands[c].guard.holds(values)) add_command(c, values, entry.faulty);
  }
  entry.end_command = static_cast<std::uint32_t>(commands_.size());
  // Grouped by action for synchronisation; within an action (and among the
  // unlabelled commands, which come first) in command order, as the plain way.
  std::stable_sort(commands_.begin() + entry.first_command, commands_.end(),
                   [](const LocalCommand& a, const LocalCommand& b) { return a.action < b.action; });
  entries_.push_back(entry);
  return entries_.back();
}

void LocalTransitionCache::add_command(std::uint32_t c, const double* values, bool& faulty) {
  const ResolvedCommand& command = index_.model.commands[c];
  LocalCommand local{command.action, static_cast<std::uint32_t>(updates_.size()), 0};
  double sum = 0.0;
  for (const ResolvedUpdate& update : command.updates) {
    faulty |= !add_update(update, values);
    const double p = updates_.back().probability;
    faulty |= !(p >= 0.0) || !std::isfinite(p);
    sum += p;
  }
  faulty |= std::abs(sum - 1.0) > kSumTolerance;
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
    if (value < v.low || value > v.high) {
      valid = false;
      continue;
    }
    const StateLayout::Field& field = index_.layout.field(a.variable);
    const std::uint64_t bits = field.mask << field.shift;
    clear[field.word] |= bits;
    set[field.word] = (set[field.word] & ~bits) |
                      static_cast<std::uint64_t>(static_cast<std::int32_t>(value) - field.low) << field.shift;
  }
  return valid;
}

}  // namespace mdpvi
