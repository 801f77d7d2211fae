// engine/model/state_numbers.h: the parallel fills and copies against plain loops, on
// sizes below and above the size where they go parallel, and not multiples of a word.
#include "engine/model/state_numbers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <limits>

namespace mdpvi {
namespace {

constexpr std::size_t kSizes[] = {0, 1, 63, 65, 1000, (std::size_t{1} << 20) + 77, (std::size_t{3} << 20) + 5};

TEST(StateNumbers, NumbersOnIsEquivalentToRef) {
  const double inf = std::numeric_limits<double>::infinity();
  for (std::size_t n : kSizes) {
    StateSet set(n);
    for (std::size_t s = 0; s < n; ++s) {
      if (s % 7 == 3 || s % 64 == 63) set.set(s);
    }
    const StateNumbers v = numbers_on(set, 0.0, inf);
    ASSERT_EQ(v.size(), n);
    for (std::size_t s = 0; s < n; ++s) {
      ASSERT_EQ(v[s], set.test(s) ? 0.0 : inf) << "n " << n << " state " << s;
    }
  }
}

TEST(StateNumbers, FilledAndCopyOfAreEquivalentToRef) {
  for (std::size_t n : kSizes) {
    const StateNumbers v = filled(n, 0.25);
    ASSERT_EQ(v.size(), n);
    for (std::size_t s = 0; s < n; ++s) ASSERT_EQ(v[s], 0.25) << "n " << n << " state " << s;
    StateNumbers source(n);
    for (std::size_t s = 0; s < n; ++s) source[s] = static_cast<double>(s) * 0.5;
    const StateNumbers copy = copy_of(source.data(), n);
    ASSERT_EQ(copy, source) << "n " << n;
  }
}

}  // namespace
}  // namespace mdpvi
