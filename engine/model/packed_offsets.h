#pragma once
// Non-decreasing 64-bit offsets (a CSR's row starts, a row-grouped matrix's group
// starts) in 4 bytes each, plus the full value at the start of every block of 256.
// Offset i is its block's first value plus the 32-bit difference to it, which the
// low 32 bits of both give exactly as long as a block spans fewer than 2^32 (checked
// by spans_fit, once the array is written): on leader10, 6.8e9 row starts into 7.8e9
// entries, that is 27 GB in place of 54.
//
// Writes need no order: set(i, v) stores v's low 32 bits, and v whole where i starts
// a block, so the builder's blocks may write their rows on all cores at once.
#include "engine/model/pod_vector.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace mdpvi {

class PackedOffsets {
 public:
  static constexpr unsigned kBlockBits = 8;
  static constexpr std::size_t kBlock = std::size_t{1} << kBlockBits;

  PackedOffsets() = default;
  PackedOffsets(std::initializer_list<std::uint64_t> values);
  explicit PackedOffsets(const PodVector<std::uint64_t>& values);
  // n offsets, unwritten: every one must be set before it is read.
  explicit PackedOffsets(std::size_t n) { resize(n); }

  std::uint64_t operator[](std::size_t i) const {
    const std::uint64_t first = firsts_[i >> kBlockBits];
    return first + static_cast<std::uint32_t>(lows_[i] - static_cast<std::uint32_t>(first));
  }
  void set(std::size_t i, std::uint64_t value) {
    lows_[i] = static_cast<std::uint32_t>(value);
    if ((i & (kBlock - 1)) == 0) firsts_[i >> kBlockBits] = value;
  }
  void push_back(std::uint64_t value) {
    const std::size_t i = lows_.size();
    lows_.push_back(static_cast<std::uint32_t>(value));
    if ((i & (kBlock - 1)) == 0) firsts_.push_back(value);
  }

  std::size_t size() const { return lows_.size(); }
  bool empty() const { return lows_.empty(); }
  std::uint64_t back() const { return (*this)[size() - 1]; }
  // New offsets are unwritten (as PodVector's resize leaves them).
  void resize(std::size_t n) {
    lows_.resize(n);
    firsts_.resize((n + kBlock - 1) >> kBlockBits);
  }
  void clear() {
    lows_.clear();
    firsts_.clear();
  }

  // Whether every offset is below 2^32: then the low words are the offsets.
  bool fit_32_bits() const { return empty() || back() <= 0xffffffffu; }
  const std::uint32_t* lows() const { return lows_.data(); }
  // Offsets [begin, begin + count) written out whole.
  void copy_to(std::uint64_t* out, std::size_t begin, std::size_t count) const;
  PodVector<std::uint64_t> expanded() const;

  // Whether the offsets read back as written: every block spans fewer than 2^32,
  // given the value that follows the last offset's block (its upper bound: the
  // entries' count for row starts). False means values were lost when written.
  bool spans_fit(std::uint64_t bound) const;

  std::size_t bytes() const { return lows_.size() * sizeof(std::uint32_t) + firsts_.size() * sizeof(std::uint64_t); }

  // Room to grow without moving (pod_vector.h), and the pages of the next count.
  friend void reserve_address_space(PackedOffsets& offsets) {
    reserve_address_space(offsets.lows_);
    reserve_address_space(offsets.firsts_);
  }
  friend PageRange room_ahead(const PackedOffsets& offsets, std::size_t count) { return room_ahead(offsets.lows_, count); }

  friend bool operator==(const PackedOffsets& a, const PackedOffsets& b);

 private:
  PodVector<std::uint32_t> lows_;
  PodVector<std::uint64_t> firsts_;  // one per block
};

// Visible to qualified calls (mdpvi::room_ahead) too.
void reserve_address_space(PackedOffsets& offsets);
PageRange room_ahead(const PackedOffsets& offsets, std::size_t count);

}  // namespace mdpvi
