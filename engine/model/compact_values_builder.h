#pragma once
// A CompactValues made wave by wave, as the model builder makes its arrays: each
// wave's values are written plain into a scratch array the size of the wave, then
// indexed into the growing array, so that a build never holds the whole model's
// probabilities as doubles (with the choice rewards, the largest part of a large
// build's peak: bench/NOTES.md, issue 39). The indices take 1 bit while at most 2
// values are distinct (a coin's halves and 1; a reward of 0 or 1 per choice), 1 byte
// while at most 256 are, and 2 from the wave that makes more; from the wave that
// would make them more than kMostDistinct distinct, the values are kept plain. Bits
// are the build's form only: finish() makes them the 1-byte form the model keeps,
// after the builder's state table is gone (model_builder.cpp), so that the build's
// peak holds 1 bit an entry where the model has two values.
#include "engine/model/compact_values.h"

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

namespace mdpvi {

class CompactValuesBuilder {
 public:
  // Where the next wave's n values are written (plain); valid until append_wave.
  double* wave_scratch(std::size_t n);
  // Takes the scratch's n values (as wave_scratch(n) asked), indexing them on all cores.
  void append_wave(std::size_t n);
  std::size_t size() const;
  // What the arrays hold now (for the builder's memory accounting).
  std::size_t bytes() const;
  // Address space for the growing array to grow into without moving, and the pages
  // of its next count values (pod_vector.h): the builder populates them ahead.
  void reserve();
  PageRange room_ahead(std::size_t count) const;
  bool plain_mode() const { return form_ == Form::plain; }

  // The values made: indexed by one byte where at most 256 are distinct (bits made
  // bytes here), else two,
  // with the table sorted (so equal arrays come out alike); plain where more than
  // kMostDistinct were. The builder is left empty.
  CompactValues finish();

  // n values indexed in one go (CompactValues::compress), as finish() leaves them;
  // nullopt where more than kMostDistinct are distinct.
  static std::optional<CompactValues> indexed(const double* values, std::size_t n);

 private:
  // The index of value (by its bits), added to the table where new; kFull where the
  // table holds kMostDistinct values and this one is not among them.
  std::uint32_t intern(std::uint64_t bits);
  // The forms, narrowest first: indices of 1 bit, 1 byte, 2 bytes, then plain doubles.
  enum class Form { bits, narrow, wide, plain };
  // values[0, n) indexed after the indices so far, on all cores: all of them, or none
  // kept because an index needs a wider form than the one held (needs_wider), or
  // because the table would pass kMostDistinct (full).
  enum class Indexed { all, needs_wider, full };
  Indexed index_into(const double* values, std::size_t n);
  // index_into, the indices widened and the wave indexed again where needed; false
  // where the table is full.
  bool index_wave(const double* values, std::size_t n);
  template <typename Index>
  Indexed index_into(PodVector<Index>& indices, const double* values, std::size_t n);
  Indexed index_into_bits(const double* values, std::size_t n);
  // The indices so far in the next wider form of indices (bits to bytes, bytes to 2 bytes).
  void widen(std::size_t indexed);
  void switch_to_plain(std::size_t indexed);
  std::uint32_t index_at(std::size_t i) const;
  double value_at(std::size_t i) const { return table_[index_at(i)]; }
  void clear();

  static constexpr std::uint32_t kFull = ~std::uint32_t{0};
  PodVector<double> scratch_;
  PodVector<std::uint64_t> bits_;   // the indices while at most 2 values are distinct, 64 a word
  std::size_t bit_count_ = 0;
  PodVector<std::uint8_t> narrow_;  // the indices while at most 256 values are distinct
  PodVector<std::uint16_t> wide_;   // the indices after
  PodVector<double> plain_;
  Form form_ = Form::bits;
  std::vector<double> table_;
  std::unordered_map<std::uint64_t, std::uint32_t> index_of_;
  std::mutex table_mutex_;
};

}  // namespace mdpvi
