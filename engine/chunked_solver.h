#pragma once
// The maybe-state system solved chunk by chunk: consecutive SCCs (in solving order)
// are merged greedily while the chunk's device footprint fits the budget; each chunk
// is solved on the GPU, or on the CPU when there is no device, when the CPU solver is
// asked for, or when a single SCC alone exceeds the budget. A chunk's entries into
// states of earlier chunks are final by then and become part of b(r).
#include "engine/interval_solver.h"
#include "engine/topological_solver.h"

#include <optional>
#include <string>
#include <vector>

namespace mdpvi {

struct Chunk {
  std::size_t first_scc = 0, end_scc = 0;
  std::uint64_t first_state = 0, end_state = 0;
  std::size_t footprint_bytes = 0;  // upper bound on the device memory it needs
  bool fits = true;                 // false: a single SCC over the budget
};

// Pre: budget_bytes > 0.
std::vector<Chunk> plan_chunks(const MaybeSystem& system, std::size_t budget_bytes);

enum class SolverKind { automatic, gpu, cpu };

struct DeviceOptions {
  SolverKind solver = SolverKind::automatic;
  std::optional<std::size_t> memory_limit_bytes;  // the chunk budget; default: free memory less a margin
  int group_size = 0;                             // lanes per state on the GPU; 0 = automatic
};

struct ChunkReport {
  std::uint64_t states = 0;
  std::size_t sccs = 0;
  std::size_t footprint_bytes = 0;
  bool on_gpu = false;
  std::uint64_t iterations = 0;
  double upload_s = 0.0, solve_s = 0.0, download_s = 0.0;
  // What one sweep must move at the least: the matrix, b, the row offsets, and the
  // value vector read once and written once. Over solve_s/iterations: bandwidth.
  std::size_t bytes_per_sweep = 0;
};

struct ChunkedSolution {
  std::vector<double> values;  // per local state of the system
  SolveStats stats;
  std::vector<ChunkReport> chunks;
  std::string device;  // empty when everything ran on the CPU
};

// Throws std::runtime_error when the GPU is required (SolverKind::gpu) and absent.
// Device failures otherwise fall back to the CPU with a warning, same answer.
ChunkedSolution solve_chunked(const MaybeSystem& system, Optimization direction, const SolverOptions& options,
                              const DeviceOptions& device);

struct ChunkedIntervalSolution {
  std::vector<double> lower, upper;  // per local state of the system
  SolveStats stats;
  std::vector<ChunkReport> chunks;
  std::string device;
};

// Interval iteration (engine/interval_solver.h), chunked as above: a chunk that fits
// runs the fused interval sweep on the device, each state until its SCC's width
// target; without an upper start (rewards) the upper bound is guessed and verified
// there too. Wherever solve_chunked would use the CPU, the CPU solves.
ChunkedIntervalSolution solve_chunked_interval(const MaybeSystem& system, Optimization direction,
                                               const SolverOptions& options, const DeviceOptions& device,
                                               std::optional<double> upper_start);

}  // namespace mdpvi
