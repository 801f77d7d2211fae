#pragma once
// What the window-size tests share (tests/device_system_test.cpp, for a copy;
// tests/device_system_view_test.cpp, for a view): the windows of a system of m states
// they ask about (empty, one state, odd ranges, the whole, past the end), and the
// comparison of a count with the expected one.
#include "gpu/device_solver.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace mdpvi::test {

inline std::vector<std::pair<std::uint64_t, std::uint64_t>> odd_windows(std::uint64_t m) {
  return {{0, 0}, {0, 1}, {5, 37}, {100, m - 1}, {0, m}, {m - 3, m + 10}, {m, m}};
}

inline void expect_same_window_rows(const gpu::WindowRows& counted, const gpu::WindowRows& expected) {
  EXPECT_EQ(counted.states, expected.states);
  EXPECT_EQ(counted.rows, expected.rows);
  EXPECT_EQ(counted.entries, expected.entries);
  EXPECT_EQ(counted.squares, expected.squares);
}

}  // namespace mdpvi::test
