#pragma once
// A hash of a packed state (or of some of its bits): the state table and the
// builder's caches probe with it, so every bit must reach the low bits.
#include <cstdint>

namespace mdpvi {

inline std::uint64_t hash_words(const std::uint64_t* words, std::uint32_t count) {
  std::uint64_t h = 0x9E3779B97F4A7C15ull;
  for (std::uint32_t w = 0; w < count; ++w) {
    h ^= words[w];
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  }
  h *= 0x94D049BB133111EBull;
  return h ^ (h >> 29);
}

// Whether two packed states are equal: states are a word or two, and a call to
// memcmp per comparison costs more than the comparison.
inline bool same_words(const std::uint64_t* a, const std::uint64_t* b, std::uint32_t count) {
  for (std::uint32_t w = 0; w < count; ++w) {
    if (a[w] != b[w]) return false;
  }
  return true;
}

}  // namespace mdpvi
