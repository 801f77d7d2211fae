#pragma once
// A set of states as a bit set: labels, qualitative results and state formulas.
#include <boost/dynamic_bitset.hpp>

#include <cstdint>

namespace mdpvi {

using StateSet = boost::dynamic_bitset<std::uint64_t>;

// Every one of n states (or choice rows).
inline StateSet all_states(std::size_t n) {
  StateSet all(n);
  all.set();
  return all;
}

}  // namespace mdpvi
