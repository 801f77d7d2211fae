#pragma once
// The set of reached states: packed states stored contiguously in discovery order
// (the index of a state is its position), found again through an open-addressing
// table of 32-bit indices with linear probing, kept at most half full.
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace mdpvi {

class StateTable {
 public:
  explicit StateTable(std::uint32_t words) : words_(words), slots_(1024, kEmpty), mask_(1023) {}

  std::uint64_t size() const { return states_.size() / words_; }
  const std::uint64_t* state(std::uint64_t index) const { return &states_[index * words_]; }
  std::uint32_t words() const { return words_; }
  std::size_t memory_bytes() const { return states_.capacity() * 8 + slots_.capacity() * 4; }

  // The index of a known state. Safe to call from many threads while nobody inserts.
  std::optional<std::uint32_t> find(const std::uint64_t* state) const {
    std::uint64_t slot = hash(state) & mask_;
    while (true) {
      std::uint32_t index = slots_[slot];
      if (index == kEmpty) return std::nullopt;
      if (equal(&states_[static_cast<std::uint64_t>(index) * words_], state)) return index;
      slot = (slot + 1) & mask_;
    }
  }

  // The index of state, and whether it was new.
  std::pair<std::uint32_t, bool> insert(const std::uint64_t* state) {
    std::uint64_t slot = hash(state) & mask_;
    while (true) {
      std::uint32_t index = slots_[slot];
      if (index == kEmpty) break;
      if (equal(&states_[static_cast<std::uint64_t>(index) * words_], state)) return {index, false};
      slot = (slot + 1) & mask_;
    }
    std::uint64_t index = size();
    if (index >= kEmpty) throw std::length_error("more than 2^32-1 states");
    slots_[slot] = static_cast<std::uint32_t>(index);
    states_.insert(states_.end(), state, state + words_);
    if (2 * (index + 1) > slots_.size()) grow();
    return {static_cast<std::uint32_t>(index), true};
  }

  // Hands the packed states over (the table is unusable afterwards).
  std::vector<std::uint64_t> release_states() {
    slots_ = {};
    return std::move(states_);
  }

 private:
  static constexpr std::uint32_t kEmpty = std::numeric_limits<std::uint32_t>::max();

  bool equal(const std::uint64_t* a, const std::uint64_t* b) const {
    if (words_ == 1) return *a == *b;  // most models pack into one word
    return std::memcmp(a, b, words_ * 8) == 0;
  }

  std::uint64_t hash(const std::uint64_t* state) const {
    std::uint64_t h = 0x9E3779B97F4A7C15ull;
    for (std::uint32_t w = 0; w < words_; ++w) {
      h ^= state[w];
      h *= 0xBF58476D1CE4E5B9ull;
      h ^= h >> 31;
    }
    h *= 0x94D049BB133111EBull;
    return h ^ (h >> 29);
  }

  void grow() {
    std::vector<std::uint32_t> slots(slots_.size() * 2, kEmpty);
    mask_ = slots.size() - 1;
    for (std::uint64_t index = 0; index < size(); ++index) {
      std::uint64_t slot = hash(state(index)) & mask_;
      while (slots[slot] != kEmpty) slot = (slot + 1) & mask_;
      slots[slot] = static_cast<std::uint32_t>(index);
    }
    slots_ = std::move(slots);
  }

  std::uint32_t words_;
  std::vector<std::uint64_t> states_;
  std::vector<std::uint32_t> slots_;
  std::uint64_t mask_;
};

}  // namespace mdpvi
