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

// The lanes per state of a chunk's sweeps (the measurements that chose these rules:
// bench/NOTES.md, issue 22):
// - where states have several short rows, two lanes taking whole rows in turn (a
//   thread per state, or more lanes over rows, lose there);
// - otherwise lanes over each row's entries, as many as give each lane at least two
//   entries of a row (idle lanes cost more than they share).
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

// A level window (bench/NOTES.md, issue 22, has the measurements on wlan6's levels,
// most rows of one entry and a few long ones). Such a window fills a fraction of the
// device, so a sweep lasts as long as its slowest group: the lanes follow the row of
// a typical entry, which the long rows dominate, rather than the mean row. A window
// that fills the device is bound by throughput, as a whole chunk. And one that 8
// lanes per state leave within two waves of the device takes 8 at least: small
// windows are latency-bound, and wider groups finish them sooner.
GroupShape shape_of_window(const WindowRows& w, std::uint64_t concurrent_threads) {
  double typical_row = w.rows ? static_cast<double>(w.entries) / static_cast<double>(w.rows) : 0.0;
  double entries_per_lane = 2.0;
  if (w.states < concurrent_threads && w.entries > 0) {
    typical_row = w.squares / static_cast<double>(w.entries);
    entries_per_lane = 4.0;  // wlan6's level: 8 lanes for rows of 32 entries, not 16
  }
  GroupShape shape = shape_for(w.states, w.rows, w.entries, typical_row, entries_per_lane);
  constexpr int kTinyWindowLanes = 8;
  if (!shape.over_rows && w.states * kTinyWindowLanes <= 2 * concurrent_threads) {
    shape.lanes = std::max(shape.lanes, kTinyWindowLanes);
  }
  return shape;
}

WindowRows window_rows(const ChunkMatrix& chunk, std::uint64_t first, std::uint64_t end, bool with_squares) {
  end = std::min<std::uint64_t>(end, chunk.num_states);
  first = std::min(first, end);
  const std::uint64_t first_row = chunk.row_group_starts[first], end_row = chunk.row_group_starts[end];
  WindowRows w{end - first, end_row - first_row, chunk.row_starts[end_row] - chunk.row_starts[first_row], 0.0};
  if (!with_squares) return w;
  for (std::uint64_t r = first_row; r < end_row; ++r) {
    const auto length = static_cast<double>(chunk.row_starts[r + 1] - chunk.row_starts[r]);
    w.squares += length * length;
  }
  return w;
}

GroupShape choose_window_shape(const ChunkMatrix& chunk, std::uint64_t first, std::uint64_t end,
                               std::uint64_t concurrent_threads) {
  end = std::min<std::uint64_t>(end, chunk.num_states);
  first = std::min(first, end);
  return shape_of_window(window_rows(chunk, first, end, end - first < concurrent_threads), concurrent_threads);
}

}  // namespace mdpvi::gpu
