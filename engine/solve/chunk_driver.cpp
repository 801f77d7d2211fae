#include "engine/solve/chunk_driver.h"

#include "engine/solve/method_requirements.h"

#include "engine/model/process_memory.h"
#include "engine/model/stopwatch.h"
#include "engine/solve/chunk_feeder.h"
#include "engine/solve/prepared_chunk.h"
#include "engine/solve/solve_progress.h"
#include "engine/solve/view_windows.h"
#include "gpu/device_info.h"
#include "gpu/partitioned_sweeps.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>

namespace mdpvi {

namespace {

std::size_t scc_footprint(const MaybeSystem& system, std::size_t first_scc, std::size_t end_scc,
                          const MethodPolicy& method) {
  std::uint64_t first = system.scc_starts[first_scc], end = system.scc_starts[end_scc];
  std::uint64_t rows = system.row_group_starts[end] - system.row_group_starts[first];
  std::uint64_t entries = entries_before(system, end) - entries_before(system, first);
  return method.footprint_bytes(end - first, rows, entries);
}

// The device, when one is to be used; throws when it is required and absent.
std::unique_ptr<gpu::DeviceSolver> open_device(const DeviceOptions& options) {
  if (options.solver == SolverKind::cpu) return nullptr;
  std::unique_ptr<gpu::DeviceSolver> device;
  try {
    device = gpu::open_device();
  } catch (const gpu::DeviceError& error) {
    spdlog::warn("{}; solving on the CPU instead", error.what());
  }
  if (options.solver == SolverKind::gpu && !device) {
    throw std::runtime_error("--solver gpu: no usable CUDA device" +
                             std::string(gpu::free_device_memory() ? "" : " (none found, or mdpvi was built without CUDA)"));
  }
  // The documented fallback of --solver auto is said once per run, by the pipeline
  // (engine/pipeline/check_run.cpp), not once per solve.
  return device;
}

// Free device memory less room for the CUDA context's own allocations and
// fragmentation.
std::size_t less_margin(std::size_t free_bytes) {
  const std::size_t margin = std::max<std::size_t>(free_bytes / 20, 256u << 20);
  return free_bytes > margin ? free_bytes - margin : 0;
}

std::optional<std::size_t> device_budget(const DeviceOptions& options, const gpu::DeviceSolver* device) {
  if (options.memory_limit_bytes) return options.memory_limit_bytes;
  if (!device) return std::nullopt;
  return less_margin(device->free_memory());
}

// The request for a chunk too large for the device (one SCC past the budget), which
// the CPU's methods solve: its parts swept on the devices, where the run may use
// several and the request does not choose its parts itself; else none.
std::optional<SolveRequest> spread_over_devices(const SolveRequest& request, const DeviceOptions& options) {
  if (options.solver == SolverKind::cpu || request.options.partitions > 1 || options.gpus == 1) return std::nullopt;
  const auto usable = static_cast<std::uint32_t>(gpu::usable_device_count());
  const std::uint32_t gpus = options.gpus == 0 ? usable : std::min(options.gpus, usable);
  if (gpus < 2) return std::nullopt;
  SolveRequest spread = request;
  spread.options.partitions = gpus;
  spread.options.partitions_on_devices = true;
  return spread;
}

// Each chunk after the first is copied on the host (PreparedChunk) while another
// runs, so a chunk may take at most a third of the memory still unused there once
// the solve's host iterates (made after the plan: lower and upper, host_vector_bytes)
// are counted: the device's budget alone would let a 139 GB card's chunks outgrow the
// host (bench/NOTES.md, session 21: leader10's view).
std::size_t host_capped(std::size_t device_budget, std::size_t host_vector_bytes) {
  const std::size_t unused = unused_memory_bytes();
  const std::size_t cap = unused > host_vector_bytes ? (unused - host_vector_bytes) / 3 : 0;
  if (cap >= device_budget) return device_budget;
  spdlog::info("chunks of {:.1f} GB (a third of the host's unused memory beside the iterates), not the device's {:.1f} GB",
               cap / 1e9, device_budget / 1e9);
  return cap;
}

// One chunk when everything fits (or there is no budget), else chunks of the budget:
// they are on the device one at a time (ChunkFeeder).
std::vector<Chunk> plan_for(const MaybeSystem& system, const MethodPolicy& method, const DeviceOptions& options,
                            const gpu::DeviceSolver* device) {
  if (system.num_sccs() == 0) return {};
  const std::size_t whole = scc_footprint(system, 0, system.num_sccs(), method);
  std::optional<std::size_t> budget = device_budget(options, device);
  if (!budget || whole <= *budget) return {{0, system.num_sccs(), 0, system.num_states(), whole, true}};
  const std::size_t iterates = std::size_t{2} * sizeof(double) * system.num_states();
  return plan_chunks(system, std::max<std::size_t>(host_capped(*budget, iterates), 1), method);
}

// Whether the device solves the chunk level by level. Iterated as a whole, a chunk
// of depth D takes at least D sweeps of all its states; by levels, each acyclic level
// takes one pass of its own states and each level with cycles only its own sweeps.
bool by_levels(const MaybeSystem& system, const Chunk& chunk, const SolveRequest& request, DeviceSchedule schedule) {
  if (schedule == DeviceSchedule::whole || request.options.stop.fixed_sweeps) return false;
  return levels_spanned(system, chunk.first_scc, chunk.end_scc) > 1;
}

// Whether a chunk goes to the device. One of trivial SCCs only is solved exactly,
// one pass per level: on the device where it spans several levels and holds at least
// kAcyclicOnDeviceFrom states (or levels are asked for), else by the CPU's
// level-parallel pass; never iterated as a whole, which takes as many sweeps as
// levels. The device's fixed cost pays from a few million states; beyond, the host's
// traffic over the vectors decides on both sides (the measured solves, device
// against CPU: bench/NOTES.md, issue 22).
constexpr std::uint64_t kAcyclicOnDeviceFrom = 4'000'000;

// Why a view's chunk cannot go to the CPU instead (a request without its view's rows
// to write: SolveRequest::view_rows).
constexpr const char* kViewOnTheDeviceOnly =
    "the maybe-state system is a view over the model (its copy does not fit the host's memory), and only a GPU "
    "solves one here";

// SCCs [first_scc, end_scc) of a view on the CPU, a window of its rows at a time.
void solve_in_windows(const MaybeSystem& system, std::size_t first_scc, std::size_t end_scc, std::uint64_t budget_bytes,
                      ViewWindows& windows, MethodPolicy& method, Iterates& x, SolveStats& stats) {
  std::size_t first = first_scc;
  for (const std::size_t end : window_ends(system, first_scc, end_scc, budget_bytes)) {
    windows.write({system.scc_starts[first], system.scc_starts[end]});
    method.solve_sccs_on_cpu(first, end, x, stats);
    windows.release_before(system.scc_starts[end]);
    first = end;
  }
}
}  // namespace

bool device_worth_starting(std::uint64_t states, const DeviceOptions& device) {
  constexpr std::uint64_t kDeviceFromStates = 10000;
  switch (device.solver) {
    case SolverKind::gpu: return true;
    case SolverKind::cpu: return false;
    default: return states >= kDeviceFromStates;
  }
}

bool use_device_for(std::uint64_t states, const DeviceOptions& device) {
  if (states == 0 || !device_worth_starting(states, device)) return false;
  if (gpu::usable_device_count() > 0) return true;
  if (device.solver == SolverKind::gpu) throw std::runtime_error("--solver gpu: no usable CUDA device");
  return false;
}

std::optional<std::size_t> device_budget_now(const DeviceOptions& options) {
  if (options.memory_limit_bytes) return options.memory_limit_bytes;
  const std::optional<std::size_t> free_bytes = gpu::free_device_memory();
  if (!free_bytes) return std::nullopt;
  return less_margin(*free_bytes);
}

void add_device_run(SolveReport& report, const DeviceRun& run) {
  ChunkReport chunk;
  chunk.states = chunk.rows = run.states;
  chunk.entries = run.entries;
  chunk.sccs = 1;
  chunk.on_gpu = true;
  chunk.iterations = run.steps;
  chunk.upload_s = run.upload_s;
  chunk.solve_s = run.solve_s;
  chunk.footprint_bytes = run.device_bytes;
  report.chunks.push_back(chunk);
  report.peak_device_bytes = std::max(report.peak_device_bytes, run.device_bytes);
  report.device_in_use_bytes = std::max(report.device_in_use_bytes, run.in_use_bytes);
  const std::vector<gpu::DeviceInfo> devices = gpu::list_devices();
  if (!devices.empty()) report.device = devices.front().name;
}

bool acyclic_goes_to_device(std::uint64_t states, DeviceSchedule schedule) {
  return states >= kAcyclicOnDeviceFrom || schedule == DeviceSchedule::levels;
}

bool gpu_may_solve(const DeviceOptions& device) {
  return device.solver != SolverKind::cpu && gpu::usable_device_count() > 0;
}

SystemValues host_system_values(const DeviceOptions& device) {
  return gpu_may_solve(device) ? SystemValues::as_model : SystemValues::plain;
}

namespace {

bool for_device(const MaybeSystem& system, const std::vector<std::uint8_t>& cyclic, const Chunk& chunk,
                const SolveRequest& request, DeviceSchedule schedule) {
  if (!chunk.fits) return false;
  if (system.view && !request.view_rows) return true;  // it has no rows for the CPU
  // No level it touches has cycles: all trivial, at no cost; else it is checked.
  const bool acyclic = !touches_cyclic_level(system, cyclic, chunk.first_scc, chunk.end_scc) ||
                       all_trivial(system, chunk.first_scc, chunk.end_scc);
  if (!acyclic) return true;
  return acyclic_goes_to_device(chunk.end_state - chunk.first_state, schedule) && by_levels(system, chunk, request, schedule);
}

// What entries whose values take value_bytes each save over plain doubles (indexed:
// the sweeps then read an index an entry, and the table from the cache).
std::size_t value_savings(std::uint64_t entries, unsigned value_bytes) { return entries * (sizeof(double) - value_bytes); }

// The same for a system built on the device (none for one built on the host, whose
// chunks count theirs as they go up: count_value_bytes).
std::size_t indexed_savings(const MaybeSystem& system, std::uint64_t entries) {
  return system.on_device ? value_savings(entries, system.on_device->value_bytes()) : 0;
}

bool is_view(const MaybeSystem& system) {
  return system.on_device && system.on_device->storage() == gpu::SystemStorage::view;
}

// What a sweep over a view reads at the least: its states' model rows whole (the
// row offsets, each entry's column, value and local index), per state its model
// index and offsets, and the value vector read once and written once.
std::size_t view_sweep_bytes(const gpu::DeviceSystem& view) {
  const gpu::SystemSizes& sizes = view.sizes();
  const std::uint64_t states = view.num_states();
  return states * (2 * sizeof(std::uint64_t) + sizeof(std::uint32_t) + 2 * sizeof(double)) +
         sizes.swept_rows * sizes.swept_offset_bytes +
         sizes.swept_entries * (2 * sizeof(std::uint32_t) + view.value_bytes());
}

// The device memory of a system built there and its solve's vectors: a copy's matrix
// and b, or what a view holds beside the vectors (gpu::SystemSizes::view_bytes).
std::size_t built_footprint(const MaybeSystem& system, const MethodPolicy& method) {
  const gpu::DeviceSystem& built = *system.on_device;
  if (is_view(system)) {
    const std::uint64_t states = built.num_states();
    return method.footprint_bytes(states, 0, 0) - matrix_bytes(states, 0, 0) + built.sizes().view_bytes;
  }
  return method.footprint_bytes(built.num_states(), built.num_rows(), built.num_entries()) -
         indexed_savings(system, built.num_entries());
}

ChunkReport report_for(const MaybeSystem& system, const Chunk& chunk, SolveStats& stats) {
  ChunkReport report;
  report.states = chunk.end_state - chunk.first_state;
  report.sccs = chunk.end_scc - chunk.first_scc;
  report.footprint_bytes = chunk.footprint_bytes;
  // The plain sweep's traffic, whatever the method: the bandwidth reported is the
  // matrix's and one vector's.
  // A system built on the device is one chunk, whose sizes the device told.
  const bool built_there = system.on_device != nullptr;
  std::uint64_t rows = built_there ? system.on_device->num_rows()
                                   : system.row_group_starts[chunk.end_state] - system.row_group_starts[chunk.first_state];
  std::uint64_t entries = built_there ? system.on_device->num_entries()
                                      : entries_before(system, chunk.end_state) - entries_before(system, chunk.first_state);
  report.bytes_per_sweep = is_view(system) ? view_sweep_bytes(*system.on_device)
                                           : plain_sweep_bytes(report.states, rows, entries) - indexed_savings(system, entries);
  report.rows = rows;
  report.entries = entries;
  // Every SCC, wherever it is solved (in parallel: a system may have as many SCCs as
  // states), unless each is one state.
  const bool singletons = chunk.end_scc - chunk.first_scc == report.states;
  const std::uint64_t largest = singletons ? std::min<std::uint64_t>(report.states, 1) : oneapi::tbb::parallel_reduce(
      oneapi::tbb::blocked_range<std::size_t>(chunk.first_scc, chunk.end_scc, 1 << 16), std::uint64_t{0},
      [&](const auto& part, std::uint64_t most) {
        for (std::size_t scc = part.begin(); scc < part.end(); ++scc) {
          most = std::max(most, system.scc_starts[scc + 1] - system.scc_starts[scc]);
        }
        return most;
      },
      [](std::uint64_t a, std::uint64_t b) { return std::max(a, b); });
  stats.largest_scc = std::max(stats.largest_scc, largest);
  return report;
}

// An uploaded chunk's values as the device holds them (ChunkFeeder::value_bytes): the
// sweep's bytes then count them so.
void count_value_bytes(unsigned value_bytes, ChunkReport& report) {
  report.value_bytes = value_bytes;
  report.bytes_per_sweep -= value_savings(report.entries, value_bytes);
}

void record_device_run(const gpu::ChunkSolveStats& s, ChunkReport& report) {
  report.on_gpu = true;
  report.devices = std::max(report.devices, 1);
  report.iterations = s.iterations;
  report.upload_s = s.upload_s;
  report.solve_s = s.solve_s;
  report.download_s = s.download_s;
  report.group_lanes = s.group.lanes;
  report.lanes_over_rows = s.group.over_rows;
}

// The devices after the run's first, up to count in all, each opened for the solve.
std::vector<std::unique_ptr<gpu::DeviceSolver>> open_other_devices(std::uint32_t count) {
  std::vector<std::unique_ptr<gpu::DeviceSolver>> devices;
  const int usable = gpu::usable_device_count();
  const int wanted = std::min<int>(usable, static_cast<int>(count));
  for (int d = 1; d < wanted; ++d) {
    try {
      if (auto device = gpu::open_device(d)) devices.push_back(std::move(device));
    } catch (const gpu::DeviceError& error) {
      spdlog::warn("GPU {}: {}; not used", d, error.what());
    }
  }
  return devices;
}

// The whole system as one chunk level by level, also on the replica devices (those
// with room for it): each then solves its share of every level (job.replicas). One
// upload of the system's arrays at a time (DeviceSolver::finish_upload). Returns what
// to release after the solve; none where nothing was uploaded.
std::vector<DeviceReplica> put_on_replicas(const MaybeSystem& system, const Chunk& chunk, const DeviceOptions& options,
                                           const std::vector<std::unique_ptr<gpu::DeviceSolver>>& devices,
                                           const DeviceChunkJob& job) {
  std::vector<DeviceReplica> replicas;
  if (!devices.empty()) job.device.finish_upload(job.ticket);
  for (const auto& device : devices) {
    try {
      if (device->free_memory() < chunk.footprint_bytes) {
        spdlog::info("GPU {} has {:.1f} GB free, the chunk needs {:.1f} GB: not used", replicas.size() + 1,
                     device->free_memory() / 1e9, chunk.footprint_bytes / 1e9);
        continue;
      }
      const int ticket = device->upload(prefix_view(system, chunk), options.group);
      try {
        device->finish_upload(ticket);
      } catch (const gpu::DeviceError&) {
        device->release(ticket);
        throw;
      }
      replicas.push_back({device.get(), ticket});
    } catch (const gpu::DeviceError& error) {
      spdlog::warn("{}; this GPU is not used for the chunk", error.what());
    }
  }
  return replicas;
}

void release(const std::vector<DeviceReplica>& replicas) {
  for (const DeviceReplica& r : replicas) r.device->release(r.ticket);
}

}  // namespace

namespace {

// plan_chunks's loop, given how a chunk that starts at an SCC and fits grows: to the
// end SCC it returns.
template <typename Grow>
std::vector<Chunk> plan_chunks_by(const MaybeSystem& system, std::size_t budget_bytes, const MethodPolicy& method,
                                  const Grow& grow) {
  std::vector<Chunk> chunks;
  std::size_t scc = 0;
  while (scc < system.num_sccs()) {
    Chunk chunk;
    chunk.first_scc = scc;
    chunk.footprint_bytes = scc_footprint(system, scc, scc + 1, method);
    chunk.fits = chunk.footprint_bytes <= budget_bytes;
    scc = chunk.fits ? grow(scc) : scc + 1;
    if (chunk.fits) chunk.footprint_bytes = scc_footprint(system, chunk.first_scc, scc, method);
    chunk.end_scc = scc;
    chunk.first_state = system.scc_starts[chunk.first_scc];
    chunk.end_state = system.scc_starts[chunk.end_scc];
    chunks.push_back(chunk);
  }
  return chunks;
}

}  // namespace

std::vector<Chunk> plan_chunks_reference(const MaybeSystem& system, std::size_t budget_bytes, const MethodPolicy& method) {
  return plan_chunks_by(system, budget_bytes, method, [&](std::size_t first) {
    std::size_t end = first + 1;
    while (end < system.num_sccs() && scc_footprint(system, first, end + 1, method) <= budget_bytes) ++end;
    return end;
  });
}

// A chunk's footprint grows with the SCCs it takes (states, rows and entries only
// grow), so its last end within the budget is found by bisection: the reference's
// chunks, in log time per chunk rather than a step per SCC (a system may have a
// hundred million SCCs).
std::vector<Chunk> plan_chunks(const MaybeSystem& system, std::size_t budget_bytes, const MethodPolicy& method) {
  return plan_chunks_by(system, budget_bytes, method, [&](std::size_t first) {
    std::size_t fits = first + 1, over = system.num_sccs() + 1;  // [first, fits) fits; [first, over) does not
    while (over - fits > 1) {
      const std::size_t mid = fits + (over - fits) / 2;
      if (scc_footprint(system, first, mid, method) <= budget_bytes) {
        fits = mid;
      } else {
        over = mid;
      }
    }
    return fits;
  });
}

namespace {

// For -v: the levels' shape, which decides how a device can schedule them.
void log_levels(const MaybeSystem& system, const std::vector<std::uint8_t>& cyclic) {
  std::size_t acyclic_levels = 0;
  std::uint64_t states_in_cyclic_levels = 0, widest = 0;
  for (std::size_t h = 0; h < system.num_levels(); ++h) {
    const std::uint64_t states = system.scc_starts[system.level_starts[h + 1]] - system.scc_starts[system.level_starts[h]];
    widest = std::max(widest, states);
    acyclic_levels += !cyclic[h];
    if (cyclic[h]) states_in_cyclic_levels += states;
  }
  spdlog::debug("levels: {} ({} of trivial SCCs only), widest {} states; {} of {} states in levels with cycles",
                system.num_levels(), acyclic_levels, widest, states_in_cyclic_levels, system.num_states());
}

}  // namespace

// A system built on the device (MaybeSystem::on_device): adopted by the device as one
// chunk and solved level by level, its levels of trivial SCCs passed and those with
// cycles iterated (which SCCs are trivial the device told: its self-loops). Its matrix
// and b never reach the host, so a failure is the caller's to recover from
// (DeviceSystemFailed).
gpu::ChunkSolveStats solve_built_on_device(const SolveRequest& request, const DeviceOptions& options,
                                           MethodPolicy& method, gpu::DeviceSolver* device, Iterates& x,
                                           SolveStats& stats, std::size_t& in_use_bytes) {
  const MaybeSystem& system = request.system;
  if (!device) throw DeviceSystemFailed("no usable CUDA device for a system built on the device");
  if (!method.solves_by_levels()) throw DeviceSystemFailed("the method does not solve by levels");
  try {
    const std::vector<std::uint8_t> cyclic = cyclic_levels(system);
    if (spdlog::should_log(spdlog::level::debug)) log_levels(system, cyclic);
    DeviceChunkJob job{*device, device->adopt(*system.on_device, options.group), {0, system.num_states()}, 0,
                       system.num_sccs(), {}};
    job.b_on_device = true;
    job.by_levels = true;
    job.cyclic = &cyclic;
    gpu::ChunkSolveStats s = method.solve_chunk_on_device(job, x, stats);
    in_use_bytes = device->used_memory();
    device->release(job.ticket);
    return s;
  } catch (const gpu::DeviceError& error) {
    throw DeviceSystemFailed(error.what());
  }
}

namespace {

// The solve's time and memory, at its end.
void close_report(SolveReport& report, std::chrono::steady_clock::time_point start) {
  report.time_s = seconds_since(start);
  report.peak_host_bytes = peak_resident_bytes();
  report.peak_device_bytes = peak_device_bytes(report.chunks);
}

}  // namespace

std::size_t peak_device_bytes(const std::vector<ChunkReport>& chunks) {
  std::size_t peak = 0;
  for (const ChunkReport& chunk : chunks) {
    if (chunk.on_gpu) peak = std::max(peak, chunk.footprint_bytes);
  }
  return peak;
}

namespace {

// A system without cycles is solved exactly by value iteration's one pass in order:
// each state reads only states before it, and with the same values outside the
// system for both, a sound method's lower and upper iterates would be the same
// values computed twice (twice the vectors read). The solution carries no bounds,
// as the device's exact passes' does: they are the values.
SolveResult solved_exactly(const SolveRequest& request, const DeviceOptions& options) {
  SolveRequest exact = request;
  exact.options.method = Method::value_iteration;
  SolveResult result = solve(exact, options);
  result.report.method = request.options.method;
  return result;
}

}  // namespace

SolveResult solve(const SolveRequest& request, const DeviceOptions& options) {
  if (requirements_of(request.options.method).gives_bounds && !request.options.stop.fixed_sweeps &&
      without_cycles(request.system)) {
    return solved_exactly(request, options);
  }
  auto start = std::chrono::steady_clock::now();
  const MaybeSystem& system = request.system;
  std::unique_ptr<MethodPolicy> method = make_method_policy(request);
  spdlog::debug("solve: method ready, {:.3f} s", seconds_since(start));
  std::unique_ptr<gpu::DeviceSolver> device = method->runs_on_device() ? open_device(options) : nullptr;
  spdlog::debug("solve: device open, {:.3f} s", seconds_since(start));
  SolveResult result;
  SolveReport& report = result.report;
  report.method = request.options.stop.fixed_sweeps ? Method::value_iteration : request.options.method;
  SolveProgress progress(to_string(report.method), system.num_states());
  method->report_progress_to(&progress);
  if (device) report.device = device->name();
  if (system.on_device) {
    const Chunk whole{0, system.num_sccs(), 0, system.num_states(), built_footprint(system, *method), true};
    if (options.memory_limit_bytes && whole.footprint_bytes > *options.memory_limit_bytes) {
      throw DeviceSystemFailed(fmt::format("the system built on the device needs {} bytes there, over the budget of {}",
                                           whole.footprint_bytes, *options.memory_limit_bytes));
    }
    ChunkReport chunk_report = report_for(system, whole, report.stats);
    Iterates x(request, method->has_upper_iterate(), /*upper_unwritten=*/true);
    if (device) x.write_upper_beside();
    spdlog::debug("solve: iterates ready, {:.3f} s", seconds_since(start));
    record_device_run(
        solve_built_on_device(request, options, *method, device.get(), x, report.stats, report.device_in_use_bytes),
        chunk_report);
    chunk_report.by_levels = true;
    chunk_report.built_on_device = true;
    chunk_report.device_view = is_view(system);
    chunk_report.value_bytes = system.on_device->value_bytes();
    report.chunks.push_back(chunk_report);
    result.lower = std::move(x.lower);
    result.upper = std::move(x.upper);
    close_report(report, start);
    return result;
  }
  const std::vector<Chunk> plan = plan_for(system, *method, options, device.get());
  // A chunk past the device's budget (one SCC) goes to the CPU's methods: over the
  // GPUs in parts, where the run may use several.
  const std::optional<SolveRequest> spread = device ? spread_over_devices(request, options) : std::nullopt;
  std::unique_ptr<MethodPolicy> spread_method = spread ? make_method_policy(*spread) : nullptr;
  if (spread_method) spread_method->report_progress_to(&progress);
  std::vector<std::uint8_t> cyclic;
  if (device) cyclic = cyclic_levels(system);
  spdlog::debug("solve: plan and level shapes ready, {:.3f} s", seconds_since(start));
  if (device && spdlog::should_log(spdlog::level::debug)) log_levels(system, cyclic);
  const auto on_device = [&](const Chunk& chunk) { return for_device(system, cyclic, chunk, request, options.schedule); };
  // The other devices, where --gpus N (N >= 2) asks for them: a plan's chunks take
  // turns on them, or a whole system's levels are spread over them. Not by default:
  // neither was faster than one GPU where measured (bench/NOTES.md, session 15), and
  // each device opened makes every copy's page locking dearer.
  const bool replicas_asked = plan.size() == 1 && options.gpus >= 2 && method->solves_by_levels() && !system.view;
  const bool turns_asked = plan.size() > 1 && options.gpus >= 2;
  std::vector<std::unique_ptr<gpu::DeviceSolver>> other_devices;
  if (device && (turns_asked || replicas_asked)) other_devices = open_other_devices(options.gpus);
  static const std::vector<std::unique_ptr<gpu::DeviceSolver>> none;
  const auto& replica_devices = replicas_asked ? other_devices : none;
  std::optional<ChunkFeeder> feeder;
  if (device) {
    std::vector<gpu::DeviceSolver*> devices{device.get()};
    if (!replicas_asked) {
      for (const auto& other : other_devices) devices.push_back(other.get());
    }
    feeder.emplace(system, plan, std::move(devices), options.group, options.chunks_cut_on_device,
                   method->corrects_b_on_device(), on_device);
    feeder->start();
  }
  Iterates x(request, method->has_upper_iterate());
  spdlog::debug("solve: iterates ready, {:.3f} s", seconds_since(start));
  std::optional<ViewWindows> windows;  // a view's rows for the CPU, made at its first chunk there
  for (std::size_t index = 0; index < plan.size(); ++index) {
    const Chunk& chunk = plan[index];
    ChunkReport chunk_report = report_for(system, chunk, report.stats);
    bool done = false;
    if (feeder && on_device(chunk)) {
      try {
        DeviceChunkJob job = feeder->take(index);
        count_value_bytes(feeder->value_bytes(), chunk_report);
        chunk_report.cut_on_device = feeder->cut();
        chunk_report.gpu = feeder->device_number();
        spdlog::debug("solve: chunk {} uploading or uploaded, {:.3f} s", index, seconds_since(start));
        job.by_levels = method->solves_by_levels() && by_levels(system, chunk, request, options.schedule);
        job.cyclic = &cyclic;
        chunk_report.by_levels = job.by_levels;
        if (job.by_levels) job.replicas = put_on_replicas(system, chunk, options, replica_devices, job);
        chunk_report.devices = 1 + static_cast<int>(job.replicas.size());
        spdlog::debug("solve: chunk {} on the device{}, {:.3f} s", index,
                      job.replicas.empty() ? "" : fmt::format(" and {} more", job.replicas.size()), seconds_since(start));
        try {
          record_device_run(method->solve_chunk_on_device(job, x, report.stats), chunk_report);
        } catch (...) {
          release(job.replicas);
          throw;
        }
        release(job.replicas);
        report.device_in_use_bytes = std::max(report.device_in_use_bytes, device->used_memory());
        spdlog::debug("solve: chunk {} solved, {:.3f} s", index, seconds_since(start));
        done = true;
      } catch (const gpu::DeviceError& error) {
        if (system.view && !request.view_rows) {
          throw std::runtime_error(fmt::format("{}; {}", error.what(), kViewOnTheDeviceOnly));
        }
        spdlog::warn("{}; solving this chunk on the CPU instead", error.what());
        feeder->drop();
        x.restart(request, {chunk.first_state, chunk.end_state});
      }
    }
    if (!done) {
      if (system.view && !request.view_rows) {
        throw std::runtime_error(std::string(device ? "an SCC larger than the GPU's budget: " : "no GPU: ") +
                                 kViewOnTheDeviceOnly);
      }
      const std::uint64_t before = report.stats.iterations;
      x.make_second_buffers();
      MethodPolicy& on_cpu = spread_method && !chunk.fits ? *spread_method : *method;
      if (system.view) {
        if (!windows) windows.emplace(*request.view_rows);
        solve_in_windows(system, chunk.first_scc, chunk.end_scc, options.view_window_bytes, *windows, on_cpu, x,
                         report.stats);
      } else {
        on_cpu.solve_sccs_on_cpu(chunk.first_scc, chunk.end_scc, x, report.stats);
      }
      chunk_report.iterations = report.stats.iterations - before;
    }
    report.chunks.push_back(chunk_report);
  }
  result.lower = std::move(x.lower);
  result.upper = std::move(x.upper);
  close_report(report, start);
  return result;
}

}  // namespace mdpvi
