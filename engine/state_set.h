#pragma once
// A set of states as a bit set: labels, qualitative results and state formulas.
#include <boost/dynamic_bitset.hpp>

#include <cstdint>

namespace mdpvi {

using StateSet = boost::dynamic_bitset<std::uint64_t>;

}  // namespace mdpvi
