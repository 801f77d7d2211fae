#include "engine/model/compact_values_builder.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <limits>
#include <type_traits>
#include <numeric>

namespace mdpvi {

namespace {

// A task's cache of value bits -> index, direct-mapped: the distinct values are few,
// so nearly every look-up hits, and a miss costs one trip to the shared table.
class LocalIndexCache {
 public:
  LocalIndexCache() { keys_.fill(kNone); }
  template <typename Intern>
  std::uint32_t index_of(std::uint64_t bits, Intern& intern) {
    const std::size_t slot = (bits * 0x9E3779B97F4A7C15ull) >> (64 - kSlotBits);
    if (keys_[slot] == bits) return indices_[slot];
    const std::uint32_t index = intern(bits);
    keys_[slot] = bits;
    indices_[slot] = index;
    return index;
  }

 private:
  static constexpr unsigned kSlotBits = 8;
  // No value has these bits (a NaN no arithmetic makes); a miss on it is still
  // interned correctly, only never cached.
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};
  std::array<std::uint64_t, 1u << kSlotBits> keys_;
  std::array<std::uint32_t, 1u << kSlotBits> indices_{};
};

}  // namespace

double* CompactValuesBuilder::wave_scratch(std::size_t n) {
  if (scratch_.capacity() == 0) reserve_address_space(scratch_);
  scratch_.resize(n);
  return scratch_.data();
}

std::uint32_t CompactValuesBuilder::intern(std::uint64_t bits) {
  std::lock_guard<std::mutex> lock(table_mutex_);
  const auto found = index_of_.find(bits);
  if (found != index_of_.end()) return found->second;
  if (table_.size() == CompactValues::kMostDistinct) return kFull;
  const auto index = static_cast<std::uint32_t>(table_.size());
  table_.push_back(std::bit_cast<double>(bits));
  index_of_.emplace(bits, index);
  return index;
}

void CompactValuesBuilder::append_wave(std::size_t n) {
  const std::size_t before = size();
  if (form_ == Form::plain || !index_wave(scratch_.data(), n)) {
    if (form_ != Form::plain) switch_to_plain(before);
    plain_.insert(plain_.end(), scratch_.begin(), scratch_.begin() + static_cast<std::ptrdiff_t>(n));
  }
}

std::optional<CompactValues> CompactValuesBuilder::indexed(const double* values, std::size_t n) {
  CompactValuesBuilder builder;
  if (!builder.index_wave(values, n)) return std::nullopt;
  return builder.finish();
}

bool CompactValuesBuilder::index_wave(const double* values, std::size_t n) {
  const std::size_t before = size();
  Indexed done = index_into(values, n);
  while (done == Indexed::needs_wider) {
    widen(before);
    done = index_into(values, n);
  }
  return done == Indexed::all;
}

std::size_t CompactValuesBuilder::size() const {
  switch (form_) {
    case Form::bits: return bit_count_;
    case Form::narrow: return narrow_.size();
    case Form::wide: return wide_.size();
    default: return plain_.size();
  }
}

std::uint32_t CompactValuesBuilder::index_at(std::size_t i) const {
  switch (form_) {
    case Form::bits: return static_cast<std::uint32_t>((bits_[i / 64] >> (i % 64)) & 1u);
    case Form::narrow: return narrow_[i];
    default: return wide_[i];
  }
}

CompactValuesBuilder::Indexed CompactValuesBuilder::index_into(const double* values, std::size_t n) {
  switch (form_) {
    case Form::bits: return index_into_bits(values, n);
    case Form::narrow: return index_into(narrow_, values, n);
    default: return index_into(wide_, values, n);
  }
}

template <typename Index>
CompactValuesBuilder::Indexed CompactValuesBuilder::index_into(PodVector<Index>& indices, const double* values,
                                                                std::size_t n) {
  constexpr std::uint32_t kMostIndex = std::numeric_limits<Index>::max();
  const std::size_t before = indices.size();
  indices.resize(before + n);
  std::atomic<bool> full{false}, needs_wider{false};
  auto intern = [this](std::uint64_t bits) { return this->intern(bits); };
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, n, std::size_t{1} << 14), [&](const auto& part) {
    LocalIndexCache cache;
    for (std::size_t i = part.begin(); i < part.end(); ++i) {
      const std::uint32_t index = cache.index_of(std::bit_cast<std::uint64_t>(values[i]), intern);
      if (index == kFull) {
        full.store(true, std::memory_order_relaxed);
        return;
      }
      if (index > kMostIndex) {
        needs_wider.store(true, std::memory_order_relaxed);
        return;
      }
      indices[before + i] = static_cast<Index>(index);
    }
  });
  if (full.load() || needs_wider.load()) indices.resize(before);
  return full.load() ? Indexed::full : needs_wider.load() ? Indexed::needs_wider : Indexed::all;
}

// Each task makes whole words, so that no two write one: the wave's first word keeps
// the bits of the waves before it.
CompactValuesBuilder::Indexed CompactValuesBuilder::index_into_bits(const double* values, std::size_t n) {
  const std::size_t before = bit_count_, end = before + n;
  const std::size_t first_word = before / 64, end_word = (end + 63) / 64;
  bits_.resize(std::max(bits_.size(), end_word));
  std::atomic<bool> needs_wider{false};
  auto intern = [this](std::uint64_t bits) { return this->intern(bits); };
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(first_word, end_word, 256), [&](const auto& part) {
    LocalIndexCache cache;
    for (std::size_t w = part.begin(); w < part.end(); ++w) {
      const std::size_t from = std::max(w * 64, before), to = std::min(w * 64 + 64, end);
      std::uint64_t word = from % 64 == 0 ? 0 : bits_[w] & ((std::uint64_t{1} << (from % 64)) - 1);
      for (std::size_t i = from; i < to; ++i) {
        const std::uint32_t index = cache.index_of(std::bit_cast<std::uint64_t>(values[i - before]), intern);
        if (index > 1) {  // kFull too: the table of two values is never full
          needs_wider.store(true, std::memory_order_relaxed);
          return;
        }
        word |= std::uint64_t{index} << (i % 64);
      }
      bits_[w] = word;
    }
  });
  if (needs_wider.load()) {
    bits_.resize((before + 63) / 64);  // the first word's own bits are as they were
    return Indexed::needs_wider;
  }
  bit_count_ = end;
  return Indexed::all;
}

void CompactValuesBuilder::widen(std::size_t indexed) {
  using Range = oneapi::tbb::blocked_range<std::size_t>;
  if (form_ == Form::bits) {
    reserve_address_space(narrow_);
    narrow_.resize(indexed);
    oneapi::tbb::parallel_for(Range(0, indexed, std::size_t{1} << 16), [&](const auto& part) {
      for (std::size_t i = part.begin(); i < part.end(); ++i) narrow_[i] = static_cast<std::uint8_t>(index_at(i));
    });
    bits_ = PodVector<std::uint64_t>();
    bit_count_ = 0;
    form_ = Form::narrow;
    return;
  }
  reserve_address_space(wide_);
  wide_.resize(indexed);
  oneapi::tbb::parallel_for(Range(0, indexed, std::size_t{1} << 16), [&](const auto& part) {
    for (std::size_t i = part.begin(); i < part.end(); ++i) wide_[i] = narrow_[i];
  });
  narrow_ = PodVector<std::uint8_t>();
  form_ = Form::wide;
}

// The waves before, indexed, as doubles; from now on every wave is kept plain.
void CompactValuesBuilder::switch_to_plain(std::size_t indexed) {
  reserve_address_space(plain_);
  plain_.resize(indexed);
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, indexed, std::size_t{1} << 16), [&](const auto& part) {
    for (std::size_t i = part.begin(); i < part.end(); ++i) plain_[i] = value_at(i);
  });
  bits_ = PodVector<std::uint64_t>();
  bit_count_ = 0;
  narrow_ = PodVector<std::uint8_t>();
  wide_ = PodVector<std::uint16_t>();
  table_ = std::vector<double>();
  index_of_ = decltype(index_of_)();
  form_ = Form::plain;
}

std::size_t CompactValuesBuilder::bytes() const {
  return bits_.size() * sizeof(std::uint64_t) + narrow_.size() + wide_.size() * sizeof(std::uint16_t) +
         plain_.size() * sizeof(double) +
         scratch_.size() * sizeof(double) + table_.size() * sizeof(double);
}

CompactValues CompactValuesBuilder::finish() {
  scratch_ = PodVector<double>();
  if (form_ == Form::plain) {
    CompactValues values{std::move(plain_)};
    clear();
    return values;
  }
  // The table sorted by value (then bits), and the indices renumbered to match, in
  // place: 1 byte each where at most 256 are distinct (then they were made so, or are
  // made so here from bits), else 2.
  std::vector<std::uint32_t> order(table_.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t a, std::uint32_t b) { return CompactValues::table_order(table_[a], table_[b]); });
  std::vector<std::uint16_t> renumbered(table_.size());
  std::vector<double> sorted(table_.size());
  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    renumbered[order[rank]] = static_cast<std::uint16_t>(rank);
    sorted[rank] = table_[order[rank]];
  }
  const auto renumber = [&](auto& indices) {
    using Index = std::remove_reference_t<decltype(indices[0])>;
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, indices.size(), std::size_t{1} << 16), [&](const auto& part) {
      for (std::size_t i = part.begin(); i < part.end(); ++i) indices[i] = static_cast<Index>(renumbered[indices[i]]);
    });
  };
  if (form_ == Form::bits) {  // a word of bits at a time, each bit to its renumbered byte
    narrow_.resize(bit_count_);
    const std::uint8_t as_byte[2] = {static_cast<std::uint8_t>(renumbered.empty() ? 0 : renumbered[0]),
                                     static_cast<std::uint8_t>(renumbered.size() < 2 ? 0 : renumbered[1])};
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, bits_.size(), 1 << 10), [&](const auto& part) {
      for (std::size_t w = part.begin(); w < part.end(); ++w) {
        const std::size_t end = std::min(bit_count_, w * 64 + 64);
        std::uint64_t word = bits_[w];
        for (std::size_t i = w * 64; i < end; ++i, word >>= 1) narrow_[i] = as_byte[word & 1u];
      }
    });
    bits_ = PodVector<std::uint64_t>();
  }
  CompactValues values;
  if (form_ == Form::wide) {
    renumber(wide_);
    values = CompactValues::indexed({}, std::move(wide_), std::move(sorted));
  } else {
    if (form_ == Form::narrow) renumber(narrow_);
    values = CompactValues::indexed(std::move(narrow_), {}, std::move(sorted));
  }
  clear();
  return values;
}

void CompactValuesBuilder::clear() {
  scratch_ = PodVector<double>();
  narrow_ = PodVector<std::uint8_t>();
  wide_ = PodVector<std::uint16_t>();
  plain_ = PodVector<double>();
  bits_ = PodVector<std::uint64_t>();
  bit_count_ = 0;
  form_ = Form::bits;
  table_ = std::vector<double>();
  index_of_ = decltype(index_of_)();
}

void CompactValuesBuilder::reserve() { reserve_address_space(bits_); }

PageRange CompactValuesBuilder::room_ahead(std::size_t count) const {
  switch (form_) {
    case Form::bits: return mdpvi::room_ahead(bits_, count / 64 + 2);
    case Form::narrow: return mdpvi::room_ahead(narrow_, count);
    case Form::wide: return mdpvi::room_ahead(wide_, count);
    default: return mdpvi::room_ahead(plain_, count);
  }
}

}  // namespace mdpvi
