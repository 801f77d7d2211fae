#include "engine/chunked_solver.h"

#include "gpu/chunk_solver.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

namespace mdpvi {

namespace {

std::size_t scc_footprint(const MaybeSystem& system, std::size_t first_scc, std::size_t end_scc) {
  std::uint64_t first = system.scc_starts[first_scc], end = system.scc_starts[end_scc];
  std::uint64_t rows = system.row_group_starts[end] - system.row_group_starts[first];
  std::uint64_t entries = system.row_starts[system.row_group_starts[end]] - system.row_starts[system.row_group_starts[first]];
  return gpu::chunk_footprint_bytes(end - first, rows, entries);
}

// The chunk as a square system of its own: indices rebased to the chunk, entries
// into earlier chunks folded into b with their final values.
struct ChunkArrays {
  std::vector<std::uint64_t> row_group_starts, row_starts;
  std::vector<std::uint32_t> columns;
  std::vector<double> values, row_constants;

  gpu::ChunkMatrix view() const {
    return {static_cast<std::uint32_t>(row_group_starts.size() - 1), row_constants.size(), columns.size(),
            row_group_starts.data(), row_starts.data(), columns.data(), values.data(), row_constants.data()};
  }
};

ChunkArrays extract_chunk(const MaybeSystem& system, const Chunk& chunk, const std::vector<double>& solved) {
  ChunkArrays a;
  const std::uint64_t first_row = system.row_group_starts[chunk.first_state];
  a.row_group_starts.reserve(chunk.end_state - chunk.first_state + 1);
  for (std::uint64_t s = chunk.first_state; s <= chunk.end_state; ++s) a.row_group_starts.push_back(system.row_group_starts[s] - first_row);
  a.row_starts.push_back(0);
  for (std::uint64_t r = first_row; r < system.row_group_starts[chunk.end_state]; ++r) {
    double b = system.row_constants[r];
    for (std::uint64_t k = system.row_starts[r]; k < system.row_starts[r + 1]; ++k) {
      std::uint32_t column = system.columns[k];
      if (column >= chunk.first_state) {
        a.columns.push_back(static_cast<std::uint32_t>(column - chunk.first_state));
        a.values.push_back(system.values[k]);
      } else {
        b += system.values[k] * solved[column];
      }
    }
    a.row_constants.push_back(b);
    a.row_starts.push_back(a.columns.size());
  }
  return a;
}

// The first chunk needs no copy: its rows are a prefix of the system's, and nothing
// before it can be referenced.
gpu::ChunkMatrix prefix_view(const MaybeSystem& system, const Chunk& chunk) {
  std::uint64_t rows = system.row_group_starts[chunk.end_state];
  return {static_cast<std::uint32_t>(chunk.end_state), rows, system.row_starts[rows], system.row_group_starts.data(),
          system.row_starts.data(), system.columns.data(), system.values.data(), system.row_constants.data()};
}

std::optional<std::size_t> device_budget(const DeviceOptions& device, bool use_gpu) {
  if (device.memory_limit_bytes) return device.memory_limit_bytes;
  if (!use_gpu) return std::nullopt;
  std::optional<std::size_t> free_bytes = gpu::free_device_memory();
  if (!free_bytes) return std::nullopt;
  // Leave room for the CUDA context's own allocations and fragmentation.
  std::size_t margin = std::max<std::size_t>(*free_bytes / 20, 256u << 20);
  return *free_bytes > margin ? *free_bytes - margin : 0;
}

bool solve_on_gpu(const MaybeSystem& system, const Chunk& chunk, Optimization direction, const SolverOptions& options,
                  const DeviceOptions& device, std::vector<double>& current, ChunkReport& report, SolveStats& stats) {
  ChunkArrays copy;
  gpu::ChunkMatrix matrix;
  if (chunk.first_state == 0) {
    matrix = prefix_view(system, chunk);
  } else {
    copy = extract_chunk(system, chunk, current);
    matrix = copy.view();
  }
  gpu::SweepSettings settings{direction == Optimization::maximize, options.criterion == ConvergenceCriterion::relative,
                              options.epsilon, options.max_iterations, device.group_size};
  std::vector<double> x(current.begin() + chunk.first_state, current.begin() + chunk.end_state);
  try {
    gpu::ChunkSolveStats s = gpu::solve_chunk_on_device(matrix, settings, x.data());
    std::copy(x.begin(), x.end(), current.begin() + chunk.first_state);
    report.on_gpu = true;
    report.iterations = s.iterations;
    report.upload_s = s.upload_s;
    report.solve_s = s.solve_s;
    report.download_s = s.download_s;
    stats.iterations += s.iterations;
    stats.max_scc_iterations = std::max(stats.max_scc_iterations, s.iterations);
    stats.iterated_sccs += chunk.end_scc - chunk.first_scc;
    if (!s.converged) {
      stats.converged = false;
      spdlog::warn("GPU value iteration stopped after {} iterations (--max-iters) on a chunk of {} states", s.iterations,
                   chunk.end_state - chunk.first_state);
    }
    return true;
  } catch (const gpu::DeviceError& error) {
    spdlog::warn("{}; solving this chunk on the CPU instead", error.what());
    return false;
  }
}

}  // namespace

std::vector<Chunk> plan_chunks(const MaybeSystem& system, std::size_t budget_bytes) {
  std::vector<Chunk> chunks;
  std::size_t scc = 0;
  while (scc < system.num_sccs()) {
    Chunk chunk;
    chunk.first_scc = scc;
    chunk.footprint_bytes = scc_footprint(system, scc, scc + 1);
    chunk.fits = chunk.footprint_bytes <= budget_bytes;
    ++scc;
    if (chunk.fits) {
      while (scc < system.num_sccs()) {
        std::size_t grown = scc_footprint(system, chunk.first_scc, scc + 1);
        if (grown > budget_bytes) break;
        chunk.footprint_bytes = grown;
        ++scc;
      }
    }
    chunk.end_scc = scc;
    chunk.first_state = system.scc_starts[chunk.first_scc];
    chunk.end_state = system.scc_starts[chunk.end_scc];
    chunks.push_back(chunk);
  }
  return chunks;
}

ChunkedSolution solve_chunked(const MaybeSystem& system, Optimization direction, const SolverOptions& options,
                              const DeviceOptions& device) {
  bool have_device = device.solver != SolverKind::cpu && gpu::free_device_memory().has_value();
  if (device.solver == SolverKind::gpu && !have_device) {
    throw std::runtime_error("--solver gpu: no usable CUDA device" +
                             std::string(gpu::free_device_memory() ? "" : " (none found, or mdpvi was built without CUDA)"));
  }
  ChunkedSolution solution;
  if (have_device) solution.device = gpu::device_name();
  std::vector<double> current(system.num_states(), 0.0), next(system.num_states(), 0.0);
  std::optional<std::size_t> budget = device_budget(device, have_device);
  std::vector<Chunk> chunks = budget ? plan_chunks(system, std::max<std::size_t>(*budget, 1))
                                     : std::vector<Chunk>{{0, system.num_sccs(), 0, system.num_states(), 0, true}};
  for (const Chunk& chunk : chunks) {
    if (chunk.first_scc == chunk.end_scc) continue;
    ChunkReport report;
    report.states = chunk.end_state - chunk.first_state;
    report.sccs = chunk.end_scc - chunk.first_scc;
    report.footprint_bytes = chunk.footprint_bytes;
    report.bytes_per_sweep = scc_footprint(system, chunk.first_scc, chunk.end_scc);
    for (std::size_t scc = chunk.first_scc; scc < chunk.end_scc; ++scc) {
      solution.stats.largest_scc = std::max(solution.stats.largest_scc, system.scc_starts[scc + 1] - system.scc_starts[scc]);
    }
    bool done = have_device && chunk.fits &&
                solve_on_gpu(system, chunk, direction, options, device, current, report, solution.stats);
    if (done) {
      std::copy(current.begin() + chunk.first_state, current.begin() + chunk.end_state, next.begin() + chunk.first_state);
    } else {
      std::uint64_t before = solution.stats.iterations;
      solve_sccs_on_cpu(system, direction, options, chunk.first_scc, chunk.end_scc, current, next, solution.stats);
      report.iterations = solution.stats.iterations - before;
    }
    solution.chunks.push_back(report);
  }
  solution.values = std::move(current);
  return solution;
}

}  // namespace mdpvi
