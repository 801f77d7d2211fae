#pragma once
// A list of choice-row numbers in 4 bytes each where every row number fits, else in 8:
// a model of fewer than 2^32 choices pays 4 bytes an entry, and one of more (leader10
// has 6.8e9) is still taken. The width is chosen once; a read is one branch, the same
// for every read of a search.
#include "engine/model/pod_vector.h"

#include <cstdint>
#include <limits>

namespace mdpvi::graph {

enum class RowIdWidth { automatic, narrow, wide };

class RowIds {
 public:
  // n entries, left unset; wide where asked, or where automatic and num_rows >= 2^32.
  void resize(std::uint64_t n, std::uint64_t num_rows, RowIdWidth width) {
    wide_ = width == RowIdWidth::wide ||
            (width == RowIdWidth::automatic && num_rows > std::numeric_limits<std::uint32_t>::max());
    if (wide_) {
      wide_rows_.resize(n);
    } else {
      narrow_rows_.resize(n);
    }
  }

  std::uint64_t operator[](std::uint64_t e) const { return wide_ ? wide_rows_[e] : narrow_rows_[e]; }
  void set(std::uint64_t e, std::uint64_t row) {
    if (wide_) {
      wide_rows_[e] = row;
    } else {
      narrow_rows_[e] = static_cast<std::uint32_t>(row);
    }
  }

  bool wide() const { return wide_; }
  std::uint64_t size() const { return wide_ ? wide_rows_.size() : narrow_rows_.size(); }
  std::uint64_t bytes() const { return wide_ ? size() * 8 : size() * 4; }

 private:
  bool wide_ = false;
  PodVector<std::uint32_t> narrow_rows_;
  PodVector<std::uint64_t> wide_rows_;
};

}  // namespace mdpvi::graph
