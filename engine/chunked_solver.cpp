#include "engine/chunked_solver.h"

#include "gpu/chunk_solver.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace mdpvi {

namespace {

std::size_t scc_footprint(const MaybeSystem& system, std::size_t first_scc, std::size_t end_scc) {
  std::uint64_t first = system.scc_starts[first_scc], end = system.scc_starts[end_scc];
  std::uint64_t rows = system.row_group_starts[end] - system.row_group_starts[first];
  std::uint64_t entries = system.row_starts[system.row_group_starts[end]] - system.row_starts[system.row_group_starts[first]];
  return gpu::chunk_footprint_bytes(end - first, rows, entries);
}

template <typename T>
using PinnedVector = std::vector<T, gpu::PinnedAllocator<T>>;

// A chunk as a square system of its own (indices rebased), in pinned memory so that
// it uploads while the chunk before it iterates. Its entries into earlier chunks are
// kept aside: they become part of b once those chunks are solved.
struct PreparedChunk {
  std::size_t index = 0;  // in the plan
  Chunk chunk;
  PinnedVector<std::uint64_t> row_group_starts, row_starts;
  PinnedVector<std::uint32_t> columns;
  PinnedVector<double> values;
  std::vector<std::uint64_t> outside_starts{0};  // per row, into outside_*
  std::vector<std::uint32_t> outside_columns;
  std::vector<double> outside_values;
  int ticket = -1;

  gpu::ChunkMatrix view() const {
    return {static_cast<std::uint32_t>(row_group_starts.size() - 1), row_starts.size() - 1, columns.size(),
            row_group_starts.data(), row_starts.data(), columns.data(), values.data(), nullptr};
  }

  // Pre: the earlier chunks are solved in solved.
  std::vector<double> row_constants(const MaybeSystem& system, const std::vector<double>& solved) const {
    const std::uint64_t first_row = system.row_group_starts[chunk.first_state];
    std::vector<double> b(row_starts.size() - 1);
    for (std::size_t r = 0; r < b.size(); ++r) {
      b[r] = system.row_constants[first_row + r];
      for (std::uint64_t k = outside_starts[r]; k < outside_starts[r + 1]; ++k) {
        b[r] += outside_values[k] * solved[outside_columns[k]];
      }
    }
    return b;
  }
};

PreparedChunk prepare_chunk(const MaybeSystem& system, const std::vector<Chunk>& plan, std::size_t index) {
  PreparedChunk p;
  p.index = index;
  p.chunk = plan[index];
  const Chunk& chunk = p.chunk;
  const std::uint64_t first_row = system.row_group_starts[chunk.first_state];
  const std::uint64_t end_row = system.row_group_starts[chunk.end_state];
  for (std::uint64_t s = chunk.first_state; s <= chunk.end_state; ++s) p.row_group_starts.push_back(system.row_group_starts[s] - first_row);
  p.row_starts.push_back(0);
  for (std::uint64_t r = first_row; r < end_row; ++r) {
    for (std::uint64_t k = system.row_starts[r]; k < system.row_starts[r + 1]; ++k) {
      std::uint32_t column = system.columns[k];
      if (column >= chunk.first_state) {
        p.columns.push_back(static_cast<std::uint32_t>(column - chunk.first_state));
        p.values.push_back(system.values[k]);
      } else {
        p.outside_columns.push_back(column);
        p.outside_values.push_back(system.values[k]);
      }
    }
    p.row_starts.push_back(p.columns.size());
    p.outside_starts.push_back(p.outside_columns.size());
  }
  return p;
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

gpu::SweepSettings sweep_settings(Optimization direction, const SolverOptions& options, const DeviceOptions& device) {
  // A negative epsilon is never reached: fixed iterations run exactly max_iterations sweeps.
  double epsilon = options.fixed_iterations ? -1.0 : options.epsilon;
  return {direction == Optimization::maximize, options.criterion == ConvergenceCriterion::relative, epsilon,
          options.max_iterations, device.group_size};
}

void record(const gpu::ChunkSolveStats& s, const Chunk& chunk, bool fixed_iterations, ChunkReport& report,
            SolveStats& stats) {
  report.on_gpu = true;
  report.iterations = s.iterations;
  report.upload_s = s.upload_s;
  report.solve_s = s.solve_s;
  report.download_s = s.download_s;
  stats.iterations += s.iterations;
  stats.max_scc_iterations = std::max(stats.max_scc_iterations, s.iterations);
  stats.iterated_sccs += chunk.end_scc - chunk.first_scc;
  if (!s.converged && !fixed_iterations) {
    stats.converged = false;
    spdlog::warn("GPU value iteration stopped after {} iterations (--max-iters) on a chunk of {} states", s.iterations,
                 chunk.end_state - chunk.first_state);
  }
}

// Everything in one chunk: the system's own arrays are the chunk, no copy.
bool solve_whole_on_gpu(const MaybeSystem& system, const Chunk& chunk, Optimization direction,
                        const SolverOptions& options, const DeviceOptions& device, std::vector<double>& current,
                        ChunkReport& report, SolveStats& stats) {
  try {
    std::vector<double> x(chunk.end_state, 0.0);
    gpu::ChunkSolveStats s = gpu::solve_chunk_on_device(prefix_view(system, chunk), sweep_settings(direction, options, device), x.data());
    std::copy(x.begin(), x.end(), current.begin());
    record(s, chunk, options.fixed_iterations, report, stats);
    return true;
  } catch (const gpu::DeviceError& error) {
    spdlog::warn("{}; solving on the CPU instead", error.what());
    return false;
  }
}

// Chunks in turn on the device, the next one's upload overlapping this one's sweeps.
class ChunkStream {
 public:
  ChunkStream(const MaybeSystem& system, const std::vector<Chunk>& plan, Optimization direction,
              const SolverOptions& options, const DeviceOptions& device)
      : system_(system), plan_(plan), settings_(sweep_settings(direction, options, device)) {}

  // Solves plan[index] on the device into current; false when the device failed.
  bool solve(std::size_t index, std::vector<double>& current, ChunkReport& report, SolveStats& stats) {
    std::optional<PreparedChunk> chunk = take_or_upload(index);
    if (!chunk) return false;
    if (index + 1 < plan_.size() && plan_[index + 1].fits) next_ = upload(index + 1);
    const Chunk& c = chunk->chunk;
    std::vector<double> b = chunk->row_constants(system_, current);
    std::vector<double> x(c.end_state - c.first_state, 0.0);
    try {
      gpu::ChunkSolveStats s = pipeline_.solve(chunk->ticket, b.data(), settings_, x.data());
      std::copy(x.begin(), x.end(), current.begin() + c.first_state);
      record(s, c, settings_.epsilon < 0.0, report, stats);
      return true;
    } catch (const gpu::DeviceError& error) {
      spdlog::warn("{}; solving this chunk on the CPU instead", error.what());
      return false;
    }
  }

 private:
  std::optional<PreparedChunk> upload(std::size_t index) {
    PreparedChunk chunk = prepare_chunk(system_, plan_, index);
    try {
      chunk.ticket = pipeline_.upload(chunk.view());
    } catch (const gpu::DeviceError& error) {
      spdlog::warn("{}; this chunk will be solved on the CPU", error.what());
      return std::nullopt;
    }
    return chunk;
  }

  std::optional<PreparedChunk> take_or_upload(std::size_t index) {
    std::optional<PreparedChunk> chunk;
    if (next_ && next_->index == index) {
      chunk = std::move(next_);
    } else {
      chunk = upload(index);
    }
    next_.reset();
    return chunk;
  }

  const MaybeSystem& system_;
  const std::vector<Chunk>& plan_;
  gpu::SweepSettings settings_;
  gpu::ChunkPipeline pipeline_;
  std::optional<PreparedChunk> next_;  // uploading while the current chunk iterates
};

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

namespace {

// Whether to use the device; throws when it is required and absent.
bool use_device(const DeviceOptions& device) {
  bool have_device = device.solver != SolverKind::cpu && gpu::free_device_memory().has_value();
  if (device.solver == SolverKind::gpu && !have_device) {
    throw std::runtime_error("--solver gpu: no usable CUDA device" +
                             std::string(gpu::free_device_memory() ? "" : " (none found, or mdpvi was built without CUDA)"));
  }
  if (device.solver == SolverKind::automatic && !have_device) {
    static bool warned = false;  // once per run, not once per property
    if (!warned) spdlog::warn("no usable CUDA device: solving on the CPU");
    warned = true;
  }
  return have_device;
}

// One chunk when everything fits (or there is no budget), else chunks of budget/2:
// two chunks are on the device at once, the one iterating and the next uploading
// (interval iteration's chunks need at most twice the plain footprint: one at a time).
std::vector<Chunk> plan_for(const MaybeSystem& system, const DeviceOptions& device, bool have_device) {
  const std::size_t whole = system.num_sccs() == 0 ? 0 : scc_footprint(system, 0, system.num_sccs());
  std::optional<std::size_t> budget = device_budget(device, have_device);
  if (!budget || whole <= *budget) {
    if (system.num_sccs() == 0) return {};
    return {{0, system.num_sccs(), 0, system.num_states(), whole, true}};
  }
  return plan_chunks(system, std::max<std::size_t>(*budget / 2, 1));
}

ChunkReport report_for(const MaybeSystem& system, const Chunk& chunk, SolveStats& stats) {
  ChunkReport report;
  report.states = chunk.end_state - chunk.first_state;
  report.sccs = chunk.end_scc - chunk.first_scc;
  report.footprint_bytes = chunk.footprint_bytes;
  report.bytes_per_sweep = scc_footprint(system, chunk.first_scc, chunk.end_scc);
  for (std::size_t scc = chunk.first_scc; scc < chunk.end_scc; ++scc) {
    stats.largest_scc = std::max(stats.largest_scc, system.scc_starts[scc + 1] - system.scc_starts[scc]);
  }
  return report;
}

// A chunk of trivial SCCs only is solved exactly by one pass on the CPU; the GPU
// would iterate it as a whole (measured on csma3_6: 0.69 s on the CPU, 1.37 s on
// the GPU).
bool needs_iteration(const MaybeSystem& system, const Chunk& chunk) {
  for (std::size_t scc = chunk.first_scc; scc < chunk.end_scc; ++scc) {
    if (!is_trivial_scc(system, scc)) return true;
  }
  return false;
}

}  // namespace

ChunkedSolution solve_chunked(const MaybeSystem& system, Optimization direction, const SolverOptions& options,
                              const DeviceOptions& device) {
  const bool have_device = use_device(device);
  ChunkedSolution solution;
  if (have_device) solution.device = gpu::device_name();
  std::vector<double> current(system.num_states(), 0.0), next(system.num_states(), 0.0);
  std::vector<Chunk> plan = plan_for(system, device, have_device);
  std::optional<ChunkStream> stream;
  if (have_device && plan.size() > 1) {
    try {
      stream.emplace(system, plan, direction, options, device);
    } catch (const gpu::DeviceError& error) {
      spdlog::warn("{}; solving on the CPU instead", error.what());
    }
  }
  for (std::size_t index = 0; index < plan.size(); ++index) {
    const Chunk& chunk = plan[index];
    ChunkReport report = report_for(system, chunk, solution.stats);
    bool done = false;
    if (have_device && chunk.fits && needs_iteration(system, chunk)) {
      done = stream ? stream->solve(index, current, report, solution.stats)
                    : solve_whole_on_gpu(system, chunk, direction, options, device, current, report, solution.stats);
    }
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

namespace {

void add(gpu::ChunkSolveStats& total, const gpu::ChunkSolveStats& part) {
  total.iterations += part.iterations;
  total.converged = part.converged;
  total.group_size = part.group_size;
  total.upload_s += part.upload_s;
  total.solve_s += part.solve_s;
  total.download_s += part.download_s;
}

// One chunk of interval iteration on the device. With a known upper start, one run
// of the fused interval sweep. Without one (rewards), as guess_upper_bound in
// engine/interval_solver.cpp: plain sweeps of the lower iterate to a precision, a
// guess above it, interval sweeps until the guess is verified (or fails, and the
// lower iterate is tightened tenfold), then on to the width targets.
gpu::ChunkSolveStats iterate_interval_chunk(const gpu::ChunkMatrix& matrix, gpu::IntervalInputs inputs,
                                            const gpu::SweepSettings& settings, std::optional<double> upper_start,
                                            bool relative, double* lower, double* upper, std::uint64_t n) {
  if (upper_start) return gpu::solve_chunk_interval_on_device(matrix, inputs, settings, lower, upper).stats;
  gpu::ChunkSolveStats total;
  gpu::ChunkMatrix lower_matrix = matrix;
  lower_matrix.row_constants = inputs.b_lower;
  // The tightest target of an iterated SCC: trivial SCCs at level 0 have target 0
  // and are exact after a few sweeps anyway.
  double target = std::numeric_limits<double>::infinity();
  for (std::uint64_t s = 0; s < n; ++s) {
    if (inputs.targets[s] > 0.0) target = std::min(target, inputs.targets[s]);
  }
  if (std::isinf(target)) target = 0.0;
  double precision = target / 4;
  for (int guess = 0; guess < 8 && total.iterations < settings.max_iterations; ++guess, precision /= 10) {
    gpu::SweepSettings plain = settings;
    plain.epsilon = precision;
    plain.max_iterations = settings.max_iterations - total.iterations;
    add(total, gpu::solve_chunk_on_device(lower_matrix, plain, lower));
    for (std::uint64_t s = 0; s < n; ++s) {
      upper[s] = relative ? lower[s] * (1 + inputs.targets[s] / 2) : lower[s] + inputs.targets[s] / 2;
    }
    gpu::SweepSettings verifying = settings;
    verifying.max_iterations = std::min(settings.max_iterations - total.iterations,  // plain stopped within its budget
                                        std::max<std::uint64_t>(64, total.iterations));
    inputs.verify_upper = true;
    gpu::IntervalChunkStats run = gpu::solve_chunk_interval_on_device(matrix, inputs, verifying, lower, upper);
    add(total, run.stats);
    if (!run.verified) continue;
    if (!run.stats.converged) {  // verified, the rest of the budget for the targets
      gpu::SweepSettings rest = settings;
      rest.max_iterations = settings.max_iterations - std::min(settings.max_iterations, total.iterations);
      inputs.verify_upper = false;
      add(total, gpu::solve_chunk_interval_on_device(matrix, inputs, rest, lower, upper).stats);
    }
    return total;
  }
  throw std::runtime_error("interval iteration: no upper bound could be verified on the device for a chunk of " +
                           std::to_string(n) + " states; run without --sound or raise --max-iters");
}

// One chunk of interval iteration on the device; false when the device failed. The
// chunk's entries into earlier chunks are folded into b from their lower values for
// the lower iterate and from their upper values for the upper one.
bool solve_interval_chunk_on_gpu(const MaybeSystem& system, const std::vector<Chunk>& plan, std::size_t index,
                                 Optimization direction, const SolverOptions& options, const DeviceOptions& device,
                                 std::optional<double> upper_start, const std::vector<double>& scc_targets,
                                 IntervalBuffers& x, ChunkReport& report, SolveStats& stats) {
  const Chunk& chunk = plan[index];
  const std::uint64_t n = chunk.end_state - chunk.first_state;
  std::vector<double> targets(n);
  for (std::size_t scc = chunk.first_scc; scc < chunk.end_scc; ++scc) {
    std::fill(targets.begin() + (system.scc_starts[scc] - chunk.first_state),
              targets.begin() + (system.scc_starts[scc + 1] - chunk.first_state), scc_targets[scc]);
  }
  std::vector<double> lower(x.lower.begin() + chunk.first_state, x.lower.begin() + chunk.end_state);
  std::vector<double> upper(x.upper.begin() + chunk.first_state, x.upper.begin() + chunk.end_state);
  const bool relative = options.criterion == ConvergenceCriterion::relative;
  try {
    gpu::ChunkSolveStats s;
    gpu::SweepSettings settings = sweep_settings(direction, options, device);
    if (plan.size() == 1) {  // the system's own arrays, nothing outside
      gpu::IntervalInputs inputs{system.row_constants.data(), system.row_constants.data(), targets.data()};
      s = iterate_interval_chunk(prefix_view(system, chunk), inputs, settings, upper_start, relative, lower.data(),
                                 upper.data(), n);
    } else {
      PreparedChunk prepared = prepare_chunk(system, plan, index);
      std::vector<double> b_lower = prepared.row_constants(system, x.lower);
      std::vector<double> b_upper = prepared.row_constants(system, x.upper);
      gpu::IntervalInputs inputs{b_lower.data(), b_upper.data(), targets.data()};
      s = iterate_interval_chunk(prepared.view(), inputs, settings, upper_start, relative, lower.data(), upper.data(), n);
    }
    std::copy(lower.begin(), lower.end(), x.lower.begin() + chunk.first_state);
    std::copy(upper.begin(), upper.end(), x.upper.begin() + chunk.first_state);
    x.sync({chunk.first_state, chunk.end_state});
    record(s, chunk, options.fixed_iterations, report, stats);
    return true;
  } catch (const gpu::DeviceError& error) {
    spdlog::warn("{}; solving this chunk on the CPU instead", error.what());
    return false;
  }
}

}  // namespace

ChunkedIntervalSolution solve_chunked_interval(const MaybeSystem& system, Optimization direction,
                                               const SolverOptions& options, const DeviceOptions& device,
                                               std::optional<double> upper_start) {
  const bool have_device = use_device(device);
  ChunkedIntervalSolution solution;
  if (have_device) solution.device = gpu::device_name();
  IntervalBuffers x(system.num_states(), upper_start.value_or(0.0));
  const std::vector<double> targets = scc_width_targets(system, options.epsilon);
  // Interval chunks are uploaded one at a time, so the pipeline's half budget leaves
  // room for their second vector pair, second b and targets.
  std::vector<Chunk> plan = plan_for(system, device, have_device);
  for (std::size_t index = 0; index < plan.size(); ++index) {
    const Chunk& chunk = plan[index];
    ChunkReport report = report_for(system, chunk, solution.stats);
    bool done = have_device && chunk.fits && needs_iteration(system, chunk) &&
                solve_interval_chunk_on_gpu(system, plan, index, direction, options, device, upper_start, targets, x,
                                            report, solution.stats);
    if (!done) {
      std::uint64_t before = solution.stats.iterations;
      solve_interval_sccs_on_cpu(system, direction, options, upper_start.has_value(), targets, chunk.first_scc,
                                 chunk.end_scc, x, solution.stats);
      report.iterations = solution.stats.iterations - before;
    }
    solution.chunks.push_back(report);
  }
  solution.lower = std::move(x.lower);
  solution.upper = std::move(x.upper);
  return solution;
}

}  // namespace mdpvi
