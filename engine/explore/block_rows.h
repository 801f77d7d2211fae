#pragma once
// The per-block row work of the parallel builder (model_builder.cpp), apart from the
// state table: finding repeated successors, merging the equal successors of a
// choice, and writing a merged row sorted by column.
#include "engine/explore/state_expander.h"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

namespace mdpvi {

// Rows up to this long are merged and sorted by insertion, longer ones by a sort.
inline constexpr std::uint32_t kLongRow = 16;

// The first of a block's successors equal to each: neighbouring states share many
// successors (often fewer than half of a block's are distinct), and a repeat is
// found in this small table, in cache, instead of the state table.
class RepeatFinder {
 public:
  void reset(std::size_t count) {
    std::size_t size = 16;
    while (size < 2 * count) size *= 2;
    slots_.assign(size, kEmpty);
  }
  // Index of the first successor equal to successor i (i itself if none), given its
  // hash and same(j): whether successor j equals successor i. Successors come in order.
  template <typename Same>
  std::size_t first(std::uint64_t hash, std::size_t i, const Same& same) {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t slot = (hash >> 32) & mask;; slot = (slot + 1) & mask) {
      if (slots_[slot] == kEmpty) {
        slots_[slot] = static_cast<std::uint32_t>(i);
        return i;
      }
      if (same(slots_[slot])) return slots_[slot];
    }
  }

 private:
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
  std::vector<std::uint32_t> slots_;
};

// count successors merged into entries at out_targets/out_probabilities, which may be
// where they are or before; returns the number of entries. Equal targets' probabilities
// are added in the order they were reached (as PRISM adds them), and entries keep the
// order in which they were first reached. Rows are mostly short (a successor or two per
// choice), so a search among the entries so far, and a sort for long rows.
std::uint32_t merge_row(const std::uint64_t* targets, const double* probabilities, std::uint32_t count,
                        std::uint64_t* out_targets, double* out_probabilities);

// Equal successors of each choice of the block merged into one entry (merge_row), its
// row lengths and arrays shortened to match. Equal successors have equal targets: the
// same index, or the same claimed slot. Entries keep the order in which they were
// first reached until write_sorted_row sorts them by column.
void merge_block_rows(ExpandedBlock& block);

// A merged row into the CSR, sorted by column: column_of(target) gives each entry's
// column. Insertion for short rows.
template <typename ColumnOf>
void write_sorted_row(const std::uint64_t* targets, const double* probabilities, std::uint32_t length,
                      const ColumnOf& column_of, std::uint32_t* columns, double* values) {
  if (length <= kLongRow) {
    for (std::uint32_t i = 0; i < length; ++i) {
      const std::uint32_t column = column_of(targets[i]);
      std::uint32_t j = i;
      for (; j > 0 && columns[j - 1] > column; --j) columns[j] = columns[j - 1], values[j] = values[j - 1];
      columns[j] = column;
      values[j] = probabilities[i];
    }
    return;
  }
  thread_local std::vector<std::pair<std::uint32_t, double>> sorted;
  sorted.clear();
  for (std::uint32_t i = 0; i < length; ++i) sorted.emplace_back(column_of(targets[i]), probabilities[i]);
  std::sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (std::uint32_t i = 0; i < length; ++i) columns[i] = sorted[i].first, values[i] = sorted[i].second;
}

}  // namespace mdpvi
