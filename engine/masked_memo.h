#pragma once
// A memo of some function of a packed state that reads only the bits of a mask (a
// module's commands, a label): states equal on those bits share one value, and
// models have millions of states but a few hundred such local valuations. Per
// thread; bounded: past kMostEntries values it starts afresh.
#include "engine/hash_words.h"

#include <cstdint>
#include <vector>

namespace mdpvi {

template <typename Value>
class MaskedMemo {
 public:
  static constexpr std::uint32_t kMostEntries = 1u << 16;

  explicit MaskedMemo(std::vector<std::uint64_t> mask) : mask_(std::move(mask)), key_(mask_.size()) { rehash(256); }

  // Whether the next miss starts afresh: a caller whose values index storage of its
  // own clears that storage in compute() when this holds.
  bool full() const { return values_.size() == kMostEntries; }

  // The value for state; on a miss compute() gives it.
  template <typename Compute>
  Value find(const std::uint64_t* state, const Compute& compute);

  std::uint64_t lookups() const { return lookups_; }
  std::uint64_t misses() const { return misses_; }

 private:
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;

  bool key_is(std::uint32_t e) const {
    for (std::size_t w = 0; w < key_.size(); ++w) {
      if (keys_[e * key_.size() + w] != key_[w]) return false;
    }
    return true;
  }
  std::size_t home(const std::uint64_t* key) const {
    return hash_words(key, static_cast<std::uint32_t>(key_.size())) & (slots_.size() - 1);
  }
  void rehash(std::size_t slot_count) {
    slots_.assign(slot_count, kEmpty);
    for (std::uint32_t e = 0; e < values_.size(); ++e) place(e, home(&keys_[e * key_.size()]));
  }
  void place(std::uint32_t e, std::size_t slot) {
    while (slots_[slot] != kEmpty) slot = (slot + 1) & (slots_.size() - 1);
    slots_[slot] = e;
  }

  std::vector<std::uint64_t> mask_;
  std::vector<std::uint64_t> key_;  // the state last looked up, masked
  std::uint32_t last_ = kEmpty;     // its entry
  std::vector<Value> values_;
  std::vector<std::uint64_t> keys_;  // per value, its masked state
  std::vector<std::uint32_t> slots_;  // value index or kEmpty; linear probing, at most half full
  std::uint64_t lookups_ = 0, misses_ = 0;
};

template <typename Value>
template <typename Compute>
Value MaskedMemo<Value>::find(const std::uint64_t* state, const Compute& compute) {
  ++lookups_;
  bool same_as_last = last_ != kEmpty;
  for (std::size_t w = 0; w < key_.size(); ++w) {
    const std::uint64_t masked = state[w] & mask_[w];
    same_as_last &= key_[w] == masked;
    key_[w] = masked;
  }
  if (same_as_last) return values_[last_];  // states in a row often agree on the mask
  std::size_t slot = home(key_.data());
  for (; slots_[slot] != kEmpty; slot = (slot + 1) & (slots_.size() - 1)) {
    if (key_is(slots_[slot])) return values_[last_ = slots_[slot]];
  }
  ++misses_;
  Value value = compute();
  if (full()) {
    values_.clear();
    keys_.clear();
    std::fill(slots_.begin(), slots_.end(), kEmpty);
  }
  if (2 * (values_.size() + 1) > slots_.size()) rehash(2 * slots_.size());
  last_ = static_cast<std::uint32_t>(values_.size());
  values_.push_back(value);
  keys_.insert(keys_.end(), key_.begin(), key_.end());
  place(last_, home(key_.data()));
  return value;
}

}  // namespace mdpvi
