// The host-side parts of gpu/device_solver.h that do not need CUDA (both builds).
#include "gpu/device_solver.h"

#include <algorithm>

namespace mdpvi::gpu {

ChunkSolveStats& ChunkSolveStats::operator+=(const ChunkSolveStats& later) {
  iterations += later.iterations;
  converged = later.converged;
  last_measure = later.last_measure;
  earlier_measure = later.earlier_measure;
  measure_gap = later.measure_gap;
  group = later.group;
  upload_s += later.upload_s;
  solve_s += later.solve_s;
  download_s += later.download_s;
  return *this;
}

// Measured on an H100 (bench/NOTES.md, issue 22), value iteration as one chunk:
// - where states have several short rows (coin6_4: 4.8 rows of 1.24 entries), two
//   lanes taking whole rows in turn: a sweep of coin8_2 in 1.29 ms against a thread
//   per state's 4.76 ms (and 2 lanes over each row's entries: 1.71 ms), leader8 1.22x,
//   coin6_4 equal; 4 and 8 lanes over rows lose everywhere;
// - otherwise lanes over each row's entries, as many as give each lane at least two
//   entries of a row (on coin6_4, a thread per state beat 32 lanes 10x).
namespace {

// typical_row: the entries per row the lanes are sized for, each lane taking at
// least entries_per_lane of them.
GroupShape shape_for(std::uint64_t states, std::uint64_t rows, std::uint64_t entries, double typical_row,
                     double entries_per_lane) {
  if (rows == 0 || states == 0) return {1, false};
  const double mean_row = static_cast<double>(entries) / static_cast<double>(rows);
  const double rows_per_state = static_cast<double>(rows) / static_cast<double>(states);
  if (rows_per_state >= 1.5 && mean_row < 4.0) return {2, true};
  int g = 1;
  while (g < 32 && entries_per_lane * (2 * g) <= typical_row) g *= 2;
  return {g, false};
}

}  // namespace

GroupShape choose_group_shape(const ChunkMatrix& chunk) {
  const double mean_row = chunk.num_rows ? static_cast<double>(chunk.num_entries) / static_cast<double>(chunk.num_rows) : 0.0;
  return shape_for(chunk.num_states, chunk.num_rows, chunk.num_entries, mean_row, 2.0);
}

// Measured on an H100 (bench/NOTES.md, issue 22): wlan6's one level with cycles,
// 52,392 states whose 66,478 rows are 52,532 of one entry and 13,946 of 9-64 entries
// (mean 10.2, mean per entry 32): its 14,036 interval sweeps took 0.385 s with one
// lane, 0.250 s with 2 (the mean row's choice), 0.174 s with 8 (4 entries of the
// entries' mean row per lane), 0.297 s with 32.
// Such a window fills a fraction of the device, so a sweep lasts as long as its
// slowest group: the lanes follow the row of a typical entry, which the long rows
// dominate. A window that fills the device is bound by throughput, as a whole chunk.
// And one that 8 lanes per state leave within two waves of the device (wlan6's 4,799
// acyclic levels, 1,000 states on average, up to tens of thousands) takes 8 at least:
// wlan6's device time was 0.171 s with 8 lanes everywhere, against 0.211-0.217 s
// with 8 lanes up to one wave and 0.226-0.246 s with lanes sized by the rows alone.
GroupShape choose_window_shape(const ChunkMatrix& chunk, std::uint64_t first, std::uint64_t end,
                               std::uint64_t concurrent_threads) {
  end = std::min<std::uint64_t>(end, chunk.num_states);
  first = std::min(first, end);
  const std::uint64_t first_row = chunk.row_group_starts[first], end_row = chunk.row_group_starts[end];
  const std::uint64_t entries = chunk.row_starts[end_row] - chunk.row_starts[first_row];
  const std::uint64_t rows = end_row - first_row;
  double typical_row = rows ? static_cast<double>(entries) / static_cast<double>(rows) : 0.0;
  double entries_per_lane = 2.0;
  if (end - first < concurrent_threads && entries > 0) {
    double squares = 0.0;
    for (std::uint64_t r = first_row; r < end_row; ++r) {
      const auto length = static_cast<double>(chunk.row_starts[r + 1] - chunk.row_starts[r]);
      squares += length * length;
    }
    typical_row = squares / static_cast<double>(entries);
    entries_per_lane = 4.0;  // wlan6's level: 8 lanes for rows of 32 entries, not 16
  }
  GroupShape shape = shape_for(end - first, rows, entries, typical_row, entries_per_lane);
  constexpr int kTinyWindowLanes = 8;
  if (!shape.over_rows && (end - first) * kTinyWindowLanes <= 2 * concurrent_threads) {
    shape.lanes = std::max(shape.lanes, kTinyWindowLanes);
  }
  return shape;
}

}  // namespace mdpvi::gpu
