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
GroupShape choose_group_shape(const ChunkMatrix& chunk) {
  if (chunk.num_rows == 0 || chunk.num_states == 0) return {1, false};
  const double mean_row = static_cast<double>(chunk.num_entries) / static_cast<double>(chunk.num_rows);
  const double rows_per_state = static_cast<double>(chunk.num_rows) / static_cast<double>(chunk.num_states);
  if (rows_per_state >= 1.5 && mean_row < 4.0) return {2, true};
  int g = 1;
  while (g < 32 && 2.0 * (2 * g) <= mean_row) g *= 2;
  return {g, false};
}

}  // namespace mdpvi::gpu
