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
  group_size = later.group_size;
  upload_s += later.upload_s;
  solve_s += later.solve_s;
  download_s += later.download_s;
  return *this;
}

// Measured on an H100 (bench/NOTES.md): on coin6_4 (1.25 entries per row) a thread
// per state beats 2 lanes by 15% and 32 lanes by 10x; lanes pay only when a row
// gives each of them at least two entries.
int choose_group_size(const ChunkMatrix& chunk) {
  if (chunk.num_rows == 0) return 1;
  double mean_row = static_cast<double>(chunk.num_entries) / static_cast<double>(chunk.num_rows);
  int g = 1;
  while (g < 32 && 2.0 * (2 * g) <= mean_row) g *= 2;
  return g;
}

}  // namespace mdpvi::gpu
