#include "engine/model/compact_values.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <algorithm>
#include <bit>
#include <optional>
#include <stdexcept>

namespace mdpvi {

namespace {

std::uint64_t bits_of(double value) { return std::bit_cast<std::uint64_t>(value); }

// An open-addressing set of double bit patterns, twice the most it may hold in
// slots, kept small: distinct values are few, and each part of the array has its own.
class BitSet64 {
 public:
  BitSet64() : slots_(2 * CompactValues::kMostDistinct, kEmpty) {}

  // false once more than kMostDistinct distinct values were seen.
  bool insert(std::uint64_t bits) {
    if (bits == kEmpty) {
      if (!has_empty_) has_empty_ = true, ++count_;
      return count_ <= CompactValues::kMostDistinct;
    }
    for (std::size_t slot = hash(bits);; slot = (slot + 1) & mask()) {
      if (slots_[slot] == bits) return true;
      if (slots_[slot] == kEmpty) {
        slots_[slot] = bits;
        return ++count_ <= CompactValues::kMostDistinct;
      }
    }
  }
  template <typename F>
  void each(F f) const {
    if (has_empty_) f(kEmpty);
    for (std::uint64_t bits : slots_) {
      if (bits != kEmpty) f(bits);
    }
  }

 private:
  // An all-ones pattern is a NaN no arithmetic produces; it is still counted.
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  std::size_t mask() const { return slots_.size() - 1; }
  std::size_t hash(std::uint64_t bits) const { return (bits * 0x9E3779B97F4A7C15ull) >> 47 & mask(); }

  std::vector<std::uint64_t> slots_;
  std::size_t count_ = 0;
  bool has_empty_ = false;
};

// The distinct values of the array, sorted by value (then bits), or nullopt where
// there are more than kMostDistinct.
std::optional<std::vector<double>> distinct_values(const PodVector<double>& values) {
  using Found = std::optional<std::vector<std::uint64_t>>;
  const auto found = oneapi::tbb::parallel_reduce(
      oneapi::tbb::blocked_range<std::size_t>(0, values.size(), std::size_t{1} << 22), Found(std::vector<std::uint64_t>{}),
      [&](const auto& part, Found sofar) -> Found {
        if (!sofar) return sofar;
        BitSet64 set;
        for (std::uint64_t bits : *sofar) set.insert(bits);
        for (std::size_t i = part.begin(); i < part.end(); ++i) {
          if (!set.insert(bits_of(values[i]))) return std::nullopt;
        }
        std::vector<std::uint64_t> all;
        set.each([&](std::uint64_t bits) { all.push_back(bits); });
        return all;
      },
      [](Found a, Found b) -> Found {
        if (!a || !b) return std::nullopt;
        BitSet64 set;
        for (std::uint64_t bits : *a) set.insert(bits);
        for (std::uint64_t bits : *b) {
          if (!set.insert(bits)) return std::nullopt;
        }
        std::vector<std::uint64_t> all;
        set.each([&](std::uint64_t bits) { all.push_back(bits); });
        return all;
      });
  if (!found) return std::nullopt;
  std::vector<double> table;
  for (std::uint64_t bits : *found) table.push_back(std::bit_cast<double>(bits));
  std::sort(table.begin(), table.end(), CompactValues::table_order);
  return table;
}

// Bit pattern -> index in the table, for the pass that writes the indices.
class TableIndex {
 public:
  explicit TableIndex(const std::vector<double>& table) {
    std::size_t slots = 1;
    while (slots < 4 * table.size()) slots *= 2;  // a quarter full at most: short probes
    keys_.assign(slots, 0);
    index_.assign(slots, kFree);
    for (std::size_t i = 0; i < table.size(); ++i) {
      std::size_t slot = hash(bits_of(table[i]));
      while (index_[slot] != kFree) slot = (slot + 1) & (slots - 1);
      keys_[slot] = bits_of(table[i]);
      index_[slot] = static_cast<std::uint32_t>(i);
    }
  }
  // Pre: value is in the table.
  std::uint32_t operator[](double value) const {
    const std::uint64_t bits = bits_of(value);
    std::size_t slot = hash(bits);
    while (keys_[slot] != bits || index_[slot] == kFree) slot = (slot + 1) & (keys_.size() - 1);
    return index_[slot];
  }

 private:
  static constexpr std::uint32_t kFree = ~std::uint32_t{0};
  std::size_t hash(std::uint64_t bits) const { return ((bits * 0x9E3779B97F4A7C15ull) >> 32) & (keys_.size() - 1); }
  std::vector<std::uint64_t> keys_;
  std::vector<std::uint32_t> index_;
};

template <typename Index>
void write_indices(const PodVector<double>& values, const TableIndex& lookup, Index* out) {
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, values.size(), std::size_t{1} << 16), [&](const auto& part) {
    for (std::size_t i = part.begin(); i < part.end(); ++i) out[i] = static_cast<Index>(lookup[values[i]]);
  });
}

}  // namespace

bool CompactValues::table_order(double a, double b) { return a < b || (!(b < a) && bits_of(a) < bits_of(b)); }

PodVector<double>& CompactValues::plain() {
  if (index_bytes_ != 0) throw std::logic_error("CompactValues: written after compress()");
  return plain_;
}

const PodVector<double>& CompactValues::plain() const {
  if (index_bytes_ != 0) throw std::logic_error("CompactValues: the plain array read after compress()");
  return plain_;
}

bool CompactValues::compress() {
  if (index_bytes_ != 0) return true;
  std::optional<std::vector<double>> table = distinct_values(plain_);
  if (!table) return false;
  const TableIndex lookup(*table);
  if (table->size() <= 256) {
    narrow_ = PodVector<std::uint8_t>(plain_.size());
    write_indices(plain_, lookup, narrow_.data());
    index_bytes_ = 1;
  } else {
    wide_ = PodVector<std::uint16_t>(plain_.size());
    write_indices(plain_, lookup, wide_.data());
    index_bytes_ = 2;
  }
  table_ = std::move(*table);
  plain_ = PodVector<double>();
  return true;
}

CompactValues CompactValues::indexed(PodVector<std::uint8_t> narrow, PodVector<std::uint16_t> wide, std::vector<double> table) {
  CompactValues values;
  values.index_bytes_ = narrow.empty() && !wide.empty() ? 2 : 1;
  values.narrow_ = std::move(narrow);
  values.wide_ = std::move(wide);
  values.table_ = std::move(table);
  return values;
}

PodVector<double> CompactValues::expanded() const {
  PodVector<double> out(size());
  visit([&](auto read) {
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, out.size(), std::size_t{1} << 16), [&](const auto& part) {
      for (std::size_t i = part.begin(); i < part.end(); ++i) out[i] = read(i);
    });
  });
  return out;
}

bool operator==(const CompactValues& a, const CompactValues& b) {
  if (a.size() != b.size()) return false;
  return a.visit([&](auto read_a) {
    return b.visit([&](auto read_b) {
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (bits_of(read_a(i)) != bits_of(read_b(i))) return false;
      }
      return true;
    });
  });
}

}  // namespace mdpvi
