#pragma once
// A StateSet's 64-bit blocks as a plain array: bit i is bit i%64 of word i/64, the
// layout of boost::dynamic_bitset's blocks and of the device's bit sets. Threads
// claim bits with an atomic fetch_or on the word.
#include "engine/model/state_set.h"

#include <atomic>
#include <cstdint>
#include <vector>

namespace mdpvi {

class BitWords {
 public:
  BitWords() = default;
  explicit BitWords(std::uint64_t bits) : words_((bits + 63) / 64, 0) {}

  static BitWords of(const StateSet& set) {
    BitWords w;
    w.words_.reserve(set.num_blocks());
    boost::to_block_range(set, std::back_inserter(w.words_));
    return w;
  }
  StateSet to_set(std::uint64_t bits) const {
    StateSet set(bits);
    boost::from_block_range(words_.begin(), words_.end(), set);
    return set;
  }

  bool test(std::uint64_t i) const { return (words_[i / 64] >> (i % 64)) & 1u; }
  // The same while other threads clear or claim bits of the word.
  bool test_now(std::uint64_t i) const {
    std::atomic_ref<const std::uint64_t> word(words_[i / 64]);
    return (word.load(std::memory_order_relaxed) >> (i % 64)) & 1u;
  }
  // Sets bit i; true for the one caller that found it clear.
  bool claim(std::uint64_t i) {
    const std::uint64_t mask = std::uint64_t{1} << (i % 64);
    std::atomic_ref<std::uint64_t> word(words_[i / 64]);
    if (word.load(std::memory_order_relaxed) & mask) return false;
    return !(word.fetch_or(mask, std::memory_order_relaxed) & mask);
  }
  // Clears bit i (other threads may change the same word); true for the one caller
  // that found it set.
  bool clear(std::uint64_t i) {
    const std::uint64_t mask = std::uint64_t{1} << (i % 64);
    return std::atomic_ref<std::uint64_t>(words_[i / 64]).fetch_and(~mask, std::memory_order_relaxed) & mask;
  }
  std::uint64_t& word(std::size_t w) { return words_[w]; }
  std::uint64_t* data() { return words_.data(); }
  const std::uint64_t* data() const { return words_.data(); }
  std::size_t size() const { return words_.size(); }

 private:
  std::vector<std::uint64_t> words_;
};

}  // namespace mdpvi
