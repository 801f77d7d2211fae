#pragma once
// A decomposition kept between properties (SearchBackend::remember_sccs_while) in less
// memory than the decomposition itself: its order as it is, but its SCCs' starts as one
// bit per position of the order, where the decomposition holds 8 bytes per SCC. Most
// SCCs of a large model are single states: leader10's 1.3e9 SCCs of 1.5e9 states take
// 0.2 GB so, against 10.4 GB.
#include "engine/model/bit_words.h"
#include "graph/scc_decomposition.h"

#include <cstdint>
#include <vector>

namespace mdpvi::graph {

class KeptSccs {
 public:
  static KeptSccs copy_of(const SccDecomposition& sccs);
  // What keeping sccs this way takes: the order, the start bits and the levels.
  static std::uint64_t bytes_for(const SccDecomposition& sccs);

  SccDecomposition copy() const;
  SccDecomposition take() &&;
  std::uint64_t bytes() const { return order_.size() * 4 + starts_.size() * 8 + level_starts_.size() * 8; }

 private:
  std::vector<std::uint32_t> order_;
  BitWords starts_{0};  // bit i: an SCC starts at order_[i]
  std::vector<std::uint64_t> level_starts_;
  const char* ran_on_ = nullptr;
};

}  // namespace mdpvi::graph
