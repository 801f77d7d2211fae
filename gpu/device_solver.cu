// The CUDA backend: resident chunks on a copy stream, sweeps on a compute stream.
#include "engine/model/stopwatch.h"
#include "gpu/batch_loop.h"
#include "gpu/chunk_cut.cuh"
#include "gpu/cuda_support.cuh"
#include "gpu/device_iterates.cuh"
#include "gpu/device_system.cuh"
#include "gpu/device_solver.h"
#include "gpu/krylov.cuh"
#include "gpu/level_targets.cuh"
#include "gpu/partitioned_sweeps.h"
#include "gpu/policy_steps.cuh"
#include "gpu/sweep_kernels.cuh"
#include "gpu/window_rows.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <future>
#include <memory>
#include <optional>
#include <vector>

namespace mdpvi::gpu {

namespace {

using detail::BatchResults;
using detail::check;
using detail::DeviceIterate;
using detail::DeviceArray;
using detail::kBlockSize;
using detail::OwnB;
using detail::Vectors;

// f() with device current (for the members made before the constructor's body).
template <typename F>
auto on(int device, F f) -> decltype(f()) {
  const detail::DeviceScope scope(device);
  return f();
}

class CudaDeviceSolver final : public DeviceSolver {
 public:
  // Every call runs on device, whichever thread makes it (detail::DeviceScope).
  explicit CudaDeviceSolver(int device) : device_(device), sm_count_(on(device, detail::multiprocessor_count)),
                                          concurrent_threads_(on(device, detail::concurrent_threads)) {
    const detail::DeviceScope scope(device_);
    check(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~CudaDeviceSolver() override {
    const detail::DeviceScope scope(device_);
    for (auto& slot : slots_) slot.reset();
    cudaStreamDestroy(copy_);
    cudaStreamDestroy(compute_);
  }

  std::string name() const override {
    const detail::DeviceScope scope(device_);
    int device = 0;
    cudaDeviceProp properties{};
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
    return properties.name;
  }

  std::size_t free_memory() const override {
    const detail::DeviceScope scope(device_);
    std::size_t free_bytes = 0, total_bytes = 0;
    check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    return free_bytes;
  }

  std::size_t used_memory() const override {
    const detail::DeviceScope scope(device_);
    return detail::memory_in_use();
  }

  int upload(const ChunkMatrix& chunk, GroupShape shape) override {
    const detail::DeviceScope scope(device_);
    const int ticket = free_ticket();
    auto slot = std::make_unique<Resident>(chunk, shape.lanes > 0 ? shape : choose_group_shape(chunk));
    return copy_beside(ticket, std::move(slot), shape, [](Resident& r, cudaStream_t stream, int) {
      r.matrix.upload(r.host, stream);
    });
  }

  int upload_rows(const SystemRows& rows, GroupShape shape) override {
    const detail::DeviceScope scope(device_);
    const int ticket = free_ticket();
    // The lanes from the raw rows' mean length: the kept entries are counted on the device.
    const ChunkMatrix raw{rows.num_states, rows.num_rows, rows.num_entries};
    auto slot = std::make_unique<Resident>(raw, shape.lanes > 0 ? shape : choose_group_shape(raw), Resident::Cut{});
    return copy_beside(ticket, std::move(slot), shape, [rows](Resident& r, cudaStream_t stream, int sm_count) {
      detail::CutChunk cut = detail::cut_rows(rows, stream, sm_count);
      r.matrix.take_arrays(std::move(cut.row_group_starts), std::move(cut.row_starts), std::move(cut.columns),
                           std::move(cut.values));
      r.cut_b = std::move(cut.row_constants);
    });
  }

  int adopt(DeviceSystem& system, GroupShape shape) override {
    const detail::DeviceScope scope(device_);
    auto* built = dynamic_cast<detail::CudaDeviceSystem*>(&system);
    if (!built) throw std::logic_error("DeviceSolver: a system not built on this device");
    const int ticket = free_ticket();
    // The shape from the rows the sweeps read: a view's, its states' model rows whole.
    const ChunkMatrix sizes{system.num_states(), system.sizes().swept_rows, system.sizes().swept_entries};
    const GroupShape group = shape.lanes > 0 ? shape : choose_group_shape(sizes);
    if (system.storage() == SystemStorage::view) {
      std::shared_ptr<detail::SystemView> view = built->take_view();
      const detail::DeviceChunk chunk = view->chunk(system.num_states());
      slots_[ticket] = std::make_unique<Resident>(sizes, group, detail::DeviceMatrix(sizes, chunk, std::move(view)));
    } else {
      slots_[ticket] = std::make_unique<Resident>(sizes, group, std::move(*built->take()));
    }
    slots_[ticket]->shape_forced = shape.lanes > 0;
    return ticket;
  }

  void finish_upload(int ticket) override {
    const detail::DeviceScope scope(device_);
    Resident& chunk = resident(ticket);
    wait_for(chunk);
    if (chunk.uploaded) check(cudaEventSynchronize(chunk.uploaded), "upload");
  }

  void release(int ticket) override {
    const detail::DeviceScope scope(device_);
    if (ticket >= 0 && ticket <= 1) slots_[ticket].reset();
  }

  // The vectors upload beside the matrix, which only the sweeps wait for.
  void bind(int ticket, const BoundInputs& in) override {
    const detail::DeviceScope scope(device_);
    Resident& chunk = resident(ticket);
    chunk.bound.reset();
    if (in.own_b && !chunk.own_b.get() && !chunk.matrix.is_view() && chunk.matrix.num_rows() > 0) {
      throw std::logic_error("DeviceSolver: the chunk has no b of its own");
    }
    if (in.corrections) return bind_corrected(chunk, in);
    chunk.bound = std::make_unique<Vectors>(chunk.matrix, in.b_lower, in.b_upper, in.targets, in.lower, in.upper, compute_,
                                            in.lower_constant, in.upper_constant,
                                            OwnB{in.own_b, chunk.own_b.get(), in.own_b && in.with_upper});
    check(cudaStreamSynchronize(compute_), "binding vectors");
  }

  void bind_targets(int ticket, const double* targets) override {
    const detail::DeviceScope scope(device_);
    Resident& chunk = resident(ticket);
    Vectors& v = bound(chunk);
    v.level_starts.clear();
    v.level_targets.clear();
    v.d_targets = DeviceArray<float>(chunk.matrix.num_states());
    detail::upload_width_targets(v.d_targets, targets, chunk.matrix.num_states(), compute_);
  }

  void bind_level_width_targets(int ticket, const LevelWidthTargets& levels) override {
    const detail::DeviceScope scope(device_);
    Vectors& v = bound(resident(ticket));
    v.d_targets = DeviceArray<float>(0);
    v.level_starts.assign(levels.state_starts, levels.state_starts + levels.num_levels + 1);
    v.level_targets.assign(levels.targets, levels.targets + levels.num_levels);
  }

  WindowRows window_rows(int ticket, std::uint64_t first, std::uint64_t end, bool with_squares) override {
    const detail::DeviceScope scope(device_);
    const Resident& chunk = resident(ticket);
    if (!chunk.sized_on_device()) return gpu::window_rows(chunk.host, first, end, with_squares);
    wait_for_arrays(chunk);
    return detail::device_window_rows(chunk.matrix.view(), first, end, with_squares, sm_count_);
  }

  void read_bound_targets(int ticket, double* targets) override {
    const detail::DeviceScope scope(device_);
    Resident& chunk = resident(ticket);
    Vectors& v = bound(chunk);
    const std::uint64_t n = chunk.matrix.num_states();
    if (v.has_targets() && n > 0) {
      per_state_targets(v, n);
      detail::download_width_targets(v.d_targets, targets, n, compute_);
    }
    check(cudaStreamSynchronize(compute_), "download");
  }

  void read_bound(int ticket, double* lower, double* upper) override {
    const detail::DeviceScope scope(device_);
    Vectors& v = bound(resident(ticket));
    detail::HostCopies copies(compute_);
    v.lower.download(lower, copies);
    if (upper && v.has_upper()) v.upper.download(upper, copies);
    copies.finish();
    check(cudaStreamSynchronize(compute_), "download");
  }

  void copy_bound_range_to(int ticket, DeviceSolver& to, int to_ticket, std::uint64_t first, std::uint64_t end) override {
    const detail::DeviceScope scope(device_);
    auto* other = dynamic_cast<CudaDeviceSolver*>(&to);
    if (!other) throw std::logic_error("DeviceSolver: copy_bound_range_to another kind of solver");
    if (end <= first) return;
    Vectors& from = bound(resident(ticket));
    Vectors& into = other->bound(other->resident(to_ticket));
    detail::enable_peer_access(device_, other->device_);  // leaves device_ current, as the scope made it
    const std::size_t bytes = (end - first) * sizeof(double);
    // Both of the receiver's buffers: they agree outside the window that runs next.
    const auto copy = [&](const DeviceIterate& source, const DeviceIterate& target) {
      for (double* buffer : {target.d_first(), target.d_second()}) {
        check(cudaMemcpyPeerAsync(buffer + first, other->device_, source.d_in() + first, device_, bytes, compute_),
              "copy between devices");
      }
    };
    copy(from.lower, into.lower);
    if (from.has_upper() && into.has_upper()) copy(from.upper, into.upper);
    check(cudaStreamSynchronize(compute_), "copy between devices");
  }

  ChunkSolveStats guess_upper(int ticket, const SweepSettings& settings, const GuessParameters& guess) override {
    const detail::DeviceScope scope(device_);
    Resident& chunk = resident(ticket);
    Vectors& v = bound(chunk);
    if (!v.has_upper() || !v.has_targets()) throw std::logic_error("DeviceSolver: guess_upper needs bound targets and an upper iterate");
    wait_for(chunk);
    ChunkSolveStats stats;
    stats.group = group_of(chunk, settings);
    const auto start = std::chrono::steady_clock::now();
    const detail::Window window = window_of(chunk, settings);
    // The lower iterate's buffers agree over the window (bring_back settled them).
    detail::guess_kernel<<<detail::sweep_blocks(window.end - window.first, 1, sm_count_), kBlockSize, 0, compute_>>>(
        window, v.lower.d_in(), v.upper.d_first(), v.upper.d_second(), targets_over(v, chunk, window), guess);
    check(cudaGetLastError(), "guess kernel launch");
    check(cudaStreamSynchronize(compute_), "guess");
    stats.solve_s = seconds_since(start);
    return stats;
  }

  void keep_lower_in_upper(int ticket, const SweepSettings& settings) override {
    const detail::DeviceScope scope(device_);
    Resident& chunk = resident(ticket);
    Vectors& v = bound(chunk);
    if (!v.has_upper()) throw std::logic_error("DeviceSolver: keep_lower_in_upper needs an upper iterate");
    wait_for(chunk);
    const detail::Window window = window_of(chunk, settings);
    const std::size_t bytes = (window.end - window.first) * sizeof(double);
    for (double* to : {v.upper.d_first(), v.upper.d_second()}) {
      check(cudaMemcpyAsync(to + window.first, v.lower.d_in() + window.first, bytes, cudaMemcpyDeviceToDevice, compute_),
            "keeping the lower iterate");
    }
  }

  void fill_upper(int ticket, std::uint32_t first, std::uint32_t end, double value) override {
    const detail::DeviceScope scope(device_);
    Resident& chunk = resident(ticket);
    Vectors& v = bound(chunk);
    const detail::Window window = clamped(chunk, first, end);
    if (!v.has_upper() || window.end <= window.first) return;
    detail::fill_kernel<<<detail::sweep_blocks(window.end - window.first, 1, sm_count_), kBlockSize, 0, compute_>>>(
        window, value, v.upper.d_first(), v.upper.d_second());
    check(cudaGetLastError(), "fill kernel launch");
    check(cudaStreamSynchronize(compute_), "fill");
  }

  ChunkSolveStats iterate(int ticket, const double* b, const SweepSettings& settings, double* x) override {
    const detail::DeviceScope scope(device_);
    Resident& chunk = resident(ticket);
    ChunkSolveStats stats;
    stats.group = group_of(chunk, settings);
    auto start = std::chrono::steady_clock::now();
    wait_for(chunk);
    std::optional<Vectors> own;
    if (b) own.emplace(chunk.matrix, b, nullptr, nullptr, x, nullptr, compute_);
    Vectors& v = own ? *own : bound(chunk);
    check(cudaStreamSynchronize(compute_), "upload");
    stats.upload_s = seconds_since(start);

    start = std::chrono::steady_clock::now();
    auto kernel = detail::kernel_variant<detail::SweepKernels>(stats.group, settings.maximize, settings.relative, chunk.matrix.is_view());
    const detail::Window window = window_of(chunk, settings);
    const unsigned blocks = detail::sweep_blocks(window.end - window.first, stats.group.lanes, sm_count_);
    bool converged = settings.fixed_sweeps;
    std::vector<double> changes;
    std::vector<unsigned> unused;
    std::uint64_t sweeps_read = 0;
    stats.iterations = detail::run_in_batches(
        settings.max_sweeps, !settings.fixed_sweeps,
        [&](std::size_t slot) { launch_sweep(kernel, blocks, chunk, window, v, slot); },
        [&](std::size_t first, std::size_t count) { v.results.send(first, count, compute_); },
        [&](std::size_t first, std::size_t count) {
          v.results.receive(first, count, changes, unused);
          for (double change : changes) converged = converged || change < settings.epsilon;
          // The rate over the batch, or from the batch before when this one is a single sweep.
          if (count > 1) {
            stats.earlier_measure = changes.front();
            stats.measure_gap = count - 1;
          } else if (sweeps_read > 0) {
            stats.earlier_measure = stats.last_measure;
            stats.measure_gap = 1;
          }
          sweeps_read += count;
          stats.last_measure = changes.back();
          if (settings.on_batch) settings.on_batch(count, stats.last_measure);
          return converged;
        });
    v.results.clear_all(compute_);
    check(cudaStreamSynchronize(compute_), "sweeps");
    stats.converged = converged;
    stats.solve_s = seconds_since(start);

    start = std::chrono::steady_clock::now();
    bring_back(v, own.has_value(), window, false, x, nullptr);
    stats.download_s = seconds_since(start);
    return stats;
  }

  IntervalChunkStats iterate_interval(int ticket, const IntervalInputs& inputs, const SweepSettings& settings,
                                      double* lower, double* upper) override {
    const detail::DeviceScope scope(device_);
    Resident& chunk = resident(ticket);
    IntervalChunkStats result;
    ChunkSolveStats& stats = result.stats;
    stats.group = group_of(chunk, settings);
    auto start = std::chrono::steady_clock::now();
    wait_for(chunk);
    std::optional<Vectors> own;
    if (inputs.b_lower) own.emplace(chunk.matrix, inputs.b_lower, inputs.b_upper, inputs.targets, lower, upper, compute_);
    Vectors& v = own ? *own : bound(chunk);
    if (!v.has_upper() || (chunk.matrix.num_states() > 0 && !v.has_targets())) {
      throw std::logic_error("DeviceSolver: interval sweeps need targets and an upper iterate");
    }
    check(cudaStreamSynchronize(compute_), "upload");
    stats.upload_s = seconds_since(start);

    start = std::chrono::steady_clock::now();
    auto kernel = detail::kernel_variant<detail::IntervalKernels>(stats.group, settings.maximize, settings.relative, chunk.matrix.is_view());
    const detail::Window window = window_of(chunk, settings);
    const unsigned blocks = detail::sweep_blocks(window.end - window.first, stats.group.lanes, sm_count_);
    // Sweeps of a batch after a crossing only move both iterates closer together.
    bool done = false;
    bool upper_shown = !inputs.verify_upper, lower_shown = !inputs.verify_lower;
    result.verified = upper_shown && lower_shown;
    std::vector<double> widths;
    std::vector<unsigned> flags;
    stats.iterations = detail::run_in_batches(
        settings.max_sweeps, true,
        [&](std::size_t slot) { launch_interval(kernel, blocks, chunk, window, v, slot); },
        [&](std::size_t first, std::size_t count) { v.results.send(first, count, compute_); },
        [&](std::size_t first, std::size_t count) {
          v.results.receive(first, count, widths, flags);
          stats.last_measure = widths.back();
          if (settings.on_batch) settings.on_batch(count, stats.last_measure);
          for (unsigned f : flags) {
            if (!result.verified && (f & detail::kCrossed)) result.crossed = true;
            if (!result.crossed) {
              upper_shown = upper_shown || !(f & detail::kUpperRaised);
              lower_shown = lower_shown || !(f & detail::kLowerLowered);
              result.verified = upper_shown && lower_shown;
            }
            done = done || (result.verified && !(f & detail::kAboveTarget));
          }
          return done || result.crossed;
        });
    v.results.clear_all(compute_);
    stats.converged = done;
    stats.solve_s = seconds_since(start);

    start = std::chrono::steady_clock::now();
    bring_back(v, own.has_value(), window, true, lower, upper);
    stats.download_s = seconds_since(start);
    return result;
  }

  ChunkSolveStats pass_levels(int ticket, const LevelPasses& passes, double* lower, double* upper) override {
    const detail::DeviceScope scope(device_);
    Resident& chunk = resident(ticket);
    ChunkSolveStats stats;
    stats.group = group_of(chunk, passes.group);
    auto start = std::chrono::steady_clock::now();
    wait_for(chunk);
    std::optional<Vectors> own;
    if (passes.b_lower) own.emplace(chunk.matrix, passes.b_lower, passes.b_upper, nullptr, lower, upper, compute_);
    Vectors& v = own ? *own : bound(chunk);
    check(cudaStreamSynchronize(compute_), "upload");
    stats.upload_s = seconds_since(start);

    start = std::chrono::steady_clock::now();
    if (v.has_upper()) {
      launch_passes<2>(chunk, passes, v);
    } else {
      launch_passes<1>(chunk, passes, v);
    }
    check(cudaStreamSynchronize(compute_), "level passes");
    stats.iterations = passes.num_levels;
    stats.solve_s = seconds_since(start);

    // The passes wrote both buffers: the states agree already, and bound vectors keep them.
    start = std::chrono::steady_clock::now();
    if (own) bring_back(v, true, {}, v.has_upper(), lower, upper);
    stats.download_s = seconds_since(start);
    return stats;
  }

  KrylovChunkStats solve_linear(int ticket, const double* b, const KrylovLimits& limits, double* x) override {
    const detail::DeviceScope scope(device_);
    Resident& chunk = resident(ticket);
    if (chunk.adopted()) throw DeviceError("BiCGStab reads the chunk's host arrays, which an adopted system has none of");
    wait_for(chunk);
    return detail::solve_linear_on_device(chunk.matrix, chunk.host, compute_, b, limits, x);
  }

  void bind_policy_constants(int ticket, const double* b) override {
    const detail::DeviceScope scope(device_);
    Resident& chunk = policy_chunk(ticket);
    const std::uint64_t rows = chunk.host.num_rows;
    if (chunk.policy_b.size() != rows) chunk.policy_b = DeviceArray<double>(rows);
    detail::HostCopies copies(compute_);
    chunk.policy_b.upload(b, rows, copies);
    copies.finish();
    check(cudaStreamSynchronize(compute_), "the policy's constants");
  }

  std::uint64_t improve_policy(int ticket, const ChunkImprovement& step, const double* x, std::uint64_t* chosen) override {
    const detail::DeviceScope scope(device_);
    Resident& chunk = policy_chunk(ticket, !step.steps_to_leave);
    return detail::improve_on_device(chunk.matrix.view(), chunk.policy_b.get(), step, x, chosen, compute_, sm_count_);
  }

  KrylovChunkStats solve_scheduler(int ticket, const ChunkImprovement& step, const std::uint64_t* chosen,
                                   const KrylovLimits& limits, double* x) override {
    const detail::DeviceScope scope(device_);
    Resident& chunk = policy_chunk(ticket, !step.steps_to_leave);
    const auto start = std::chrono::steady_clock::now();
    try {
      const detail::GatheredChain chain =
          detail::gather_chain(chunk.matrix.view(), chunk.policy_b.get(), step, chosen, compute_, sm_count_);
      const double gather_s = seconds_since(start);
      KrylovChunkStats result = detail::solve_rows_on_device(chain.rows(), compute_, chain.c.get(), limits, x);
      result.stats.upload_s += gather_s;
      return result;
    } catch (const OutOfDeviceMemory& error) {
      throw OutOfDeviceMemory(std::string("a scheduler's chain: ") + error.what());
    } catch (const DeviceError& error) {
      throw DeviceError(std::string("a scheduler's chain: ") + error.what());
    }
  }

  double sweep_once(int ticket, const double* b, const SweepSettings& settings, const double* x_in,
                    double* x_out) override {
    const detail::DeviceScope scope(device_);
    Resident& chunk = resident(ticket);
    wait_for(chunk);
    Vectors v(chunk.matrix, b, nullptr, nullptr, x_in, nullptr, compute_);
    const GroupShape g = group_of(chunk, settings);
    auto kernel = detail::kernel_variant<detail::SweepKernels>(g, settings.maximize, settings.relative, chunk.matrix.is_view());
    launch_sweep(kernel, detail::sweep_blocks(chunk.matrix.num_states(), g.lanes, sm_count_), chunk, window_of(chunk, settings), v, 0);
    std::vector<double> change;
    std::vector<unsigned> unused;
    v.results.read(1, compute_, change, unused);
    detail::HostCopies copies(compute_);
    v.lower.download(x_out, copies);
    copies.finish();
    check(cudaStreamSynchronize(compute_), "download");
    return change.front();
  }

  IntervalSweepResult interval_sweep_once(int ticket, const IntervalInputs& inputs, const SweepSettings& settings,
                                          const double* lower_in, const double* upper_in, double* lower_out,
                                          double* upper_out) override {
    const detail::DeviceScope scope(device_);
    Resident& chunk = resident(ticket);
    wait_for(chunk);
    Vectors v(chunk.matrix, inputs.b_lower, inputs.b_upper, inputs.targets, lower_in, upper_in, compute_);
    const GroupShape g = group_of(chunk, settings);
    auto kernel = detail::kernel_variant<detail::IntervalKernels>(g, settings.maximize, settings.relative, chunk.matrix.is_view());
    launch_interval(kernel, detail::sweep_blocks(chunk.matrix.num_states(), g.lanes, sm_count_), chunk, window_of(chunk, settings),
                    v, 0);
    std::vector<double> widths;
    std::vector<unsigned> flags;
    v.results.read(1, compute_, widths, flags);
    detail::HostCopies copies(compute_);
    v.lower.download(lower_out, copies);
    v.upper.download(upper_out, copies);
    copies.finish();
    check(cudaStreamSynchronize(compute_), "download");
    IntervalSweepResult result;
    result.width = widths.front();
    result.above_target = flags.front() & detail::kAboveTarget;
    result.upper_raised = flags.front() & detail::kUpperRaised;
    result.lower_lowered = flags.front() & detail::kLowerLowered;
    result.crossed = flags.front() & detail::kCrossed;
    return result;
  }

 private:
  struct Resident {
    ChunkMatrix host;
    GroupShape shape;
    bool shape_forced = false;  // given at upload (--gpu-group-size): every window's
    detail::DeviceMatrix matrix;
    cudaEvent_t uploaded = nullptr;
    std::unique_ptr<Vectors> bound;  // bind()
    std::future<void> copied;        // the upload's host thread: done when ready, and rethrows its DeviceError
    // An adopted system's b (gpu/device_system.h); empty for an uploaded chunk.
    DeviceArray<double> own_b{0};
    DeviceArray<double> policy_b{0};  // bind_policy_constants
    Resident(const ChunkMatrix& chunk, GroupShape group) : host(chunk), shape(group), matrix(chunk) {}
    // A view (its sizes: the rows its sweeps read).
    Resident(const ChunkMatrix& sizes, GroupShape group, detail::DeviceMatrix&& view)
        : host(sizes), shape(group), matrix(std::move(view)) {}
    // host: the sizes alone (no host arrays).
    Resident(const ChunkMatrix& sizes, GroupShape group, detail::SystemArrays&& a)
        : host(sizes),
          shape(group),
          matrix(sizes, std::move(a.row_group_starts), std::move(a.row_starts), std::move(a.columns), std::move(a.values)),
          own_b(std::move(a.row_constants)) {}
    // A chunk cut on the device: its sizes (the raw rows' entries), its arrays filled
    // by the copy's thread.
    struct Cut {};
    Resident(const ChunkMatrix& raw, GroupShape group, Cut)
        : host{raw.num_states, raw.num_rows, raw.num_entries},
          shape(group),
          matrix(host, DeviceArray<std::uint64_t>(0), DeviceArray<std::uint64_t>(0), DeviceArray<std::uint32_t>(0),
                 detail::DeviceValueArray()),
          cut(true) {}
    bool cut = false;
    DeviceArray<double> cut_b{0};  // a cut chunk's rows' b, until bind_corrected takes it
    // No host arrays: a window's rows are counted on the device.
    bool sized_on_device() const { return host.row_group_starts == nullptr && host.num_states > 0; }
    // Built on the device from the model: no BiCGStab, no policy iteration's steps.
    bool adopted() const { return sized_on_device() && !cut; }
    ~Resident() {
      if (copied.valid()) copied.wait();  // it writes matrix and uploaded
      if (uploaded) cudaEventDestroy(uploaded);
    }
  };

  // An uploaded chunk, waited for, for policy iteration's steps (with_b: its policy
  // constants bound).
  Resident& policy_chunk(int ticket, bool with_b = false) {
    Resident& chunk = resident(ticket);
    if (chunk.adopted() || chunk.matrix.is_view()) {
      throw DeviceError("policy iteration's steps read an uploaded chunk's own rows, which an adopted system has not");
    }
    wait_for(chunk);
    if (with_b && chunk.policy_b.size() != chunk.host.num_rows) {
      throw std::logic_error("DeviceSolver: no policy constants bound to this chunk");
    }
    return chunk;
  }

  Vectors& bound(Resident& chunk) {
    if (!chunk.bound) throw std::logic_error("DeviceSolver: no vectors bound to this chunk");
    return *chunk.bound;
  }

  // The result of sweeps over the window (of the upper iterate too, with
  // upper_swept) to the host, for vectors made for the call; bound ones keep it, the
  // window copied into their other buffer, so that both agree again outside
  // whatever window runs next (read_bound brings them back).
  void bring_back(Vectors& v, bool own, detail::Window window, bool upper_swept, double* lower, double* upper) {
    if (own) {
      detail::HostCopies copies(compute_);
      v.lower.download(lower, copies);
      if (upper_swept) v.upper.download(upper, copies);
      copies.finish();
    } else {
      v.lower.settle(window.first, window.end, compute_);
      if (upper_swept) v.upper.settle(window.first, window.end, compute_);
    }
    check(cudaStreamSynchronize(compute_), "download");
  }

  // One sweep from the iterate's current vector into the other, its result into slot.
  void launch_sweep(detail::SweepKernel kernel, unsigned blocks, const Resident& chunk, detail::Window window,
                    Vectors& v, std::size_t slot) {
    kernel<<<blocks, kBlockSize, 0, compute_>>>(chunk.matrix.view(), window, v.b_lower_on_device, v.lower.d_in(),
                                                v.lower.d_out(), v.results.largest(slot));
    check(cudaGetLastError(), "sweep kernel launch");
    v.lower.swap();
  }

  // One interval sweep from both iterates' current vectors into the others.
  void launch_interval(detail::IntervalKernel kernel, unsigned blocks, const Resident& chunk, detail::Window window,
                       Vectors& v, std::size_t slot) {
    kernel<<<blocks, kBlockSize, 0, compute_>>>(chunk.matrix.view(), window, v.b_lower_on_device, v.b_upper_on_device,
                                                targets_over(v, chunk, window), v.lower.d_in(), v.upper.d_in(), v.lower.d_out(),
                                                v.upper.d_out(), v.results.largest(slot), v.results.flags(slot));
    check(cudaGetLastError(), "interval kernel launch");
    v.lower.swap();
    v.upper.swap();
  }

  // The width targets the window's states read: its level's as one number where
  // the targets are bound per level and the window lies inside one, else per state.
  detail::WidthTargets targets_over(Vectors& v, const Resident& chunk, detail::Window window) {
    if (v.d_targets.get() || v.level_targets.empty() || window.end <= window.first) return {v.d_targets.get(), 0.0f};
    const auto after = std::upper_bound(v.level_starts.begin(), v.level_starts.end(), window.first);
    const std::size_t level = static_cast<std::size_t>(after - v.level_starts.begin()) - 1;
    if (level < v.level_targets.size() && window.end <= v.level_starts[level + 1]) {
      return {nullptr, static_cast<float>(width_target_as_float(v.level_targets[level]))};
    }
    return {per_state_targets(v, chunk.matrix.num_states()), 0.0f};
  }

  // The targets per state, filled in from the levels' where they are bound so (once,
  // kept while bound: a window across levels, or a read back).
  const float* per_state_targets(Vectors& v, std::uint64_t num_states) {
    if (!v.d_targets.get() && !v.level_targets.empty() && num_states > 0) {
      v.d_targets = DeviceArray<float>(num_states);
      detail::fill_level_targets({v.level_starts.data(), v.level_targets.data(), v.level_targets.size()}, num_states,
                                 v.d_targets.get(), compute_, sm_count_);
    }
    return v.d_targets.get();
  }

  // States [first, end), clamped to the chunk.
  static detail::Window clamped(const Resident& chunk, std::uint64_t first, std::uint64_t end) {
    end = std::min<std::uint64_t>(end, chunk.matrix.num_states());
    return {std::min(first, end), end};
  }
  static detail::Window window_of(const Resident& chunk, const SweepSettings& settings) {
    return clamped(chunk, settings.first_state, settings.end_state);
  }

  // One launch per level, in order on the stream; each reads what the launches before
  // it wrote. Both buffers of each iterate agree outside the levels (bring_back), and
  // the passes write both.
  template <int K>
  void launch_passes(const Resident& chunk, const LevelPasses& p, const Vectors& vectors) {
    detail::PassVectors<K> v{};
    const DeviceIterate* iterates[2] = {&vectors.lower, &vectors.upper};
    const double* b[2] = {vectors.b_lower_on_device, vectors.b_upper_on_device};
    for (int i = 0; i < K; ++i) {
      v.x[i] = iterates[i]->d_first();
      v.b[i] = b[i];
      v.first[i] = iterates[i]->d_first();
      v.second[i] = iterates[i]->d_second();
    }
    for (std::size_t level = 0; level < p.num_levels; ++level) {
      const detail::Window window{p.level_starts[level], p.level_starts[level + 1]};
      if (window.end == window.first) continue;
      const GroupShape group = group_of(chunk, p.group, window);  // levels differ (wlan6: long rows in few)
      auto kernel = detail::kernel_variant<detail::LevelPassKernels<K>>(group, p.maximize, false, chunk.matrix.is_view());
      const unsigned blocks = detail::sweep_blocks(window.end - window.first, group.lanes, sm_count_);
      kernel<<<blocks, kBlockSize, 0, compute_>>>(chunk.matrix.view(), window, v);
      check(cudaGetLastError(), "level pass launch");
    }
  }

  Resident& resident(int ticket) {
    if (ticket < 0 || ticket > 1 || !slots_[ticket]) throw std::logic_error("DeviceSolver: no chunk under this ticket");
    return *slots_[ticket];
  }

  // A chunk cut on the device gets its arrays on its copy's thread: they are read
  // (their pointers too) only once it has ended. Its failure is rethrown by wait_for;
  // until then the arrays are empty, and reading them fails on the device.
  static void wait_for_arrays(const Resident& chunk) {
    if (chunk.cut && chunk.copied.valid()) chunk.copied.wait();
  }

  // The slot a chunk may take: throws where two are resident already.
  int free_ticket() const {
    const int ticket = slots_[0] == nullptr ? 0 : 1;
    if (slots_[ticket] != nullptr) throw std::logic_error("DeviceSolver: two chunks are resident already");
    return ticket;
  }

  // slot resident under ticket, its arrays made by copy(resident, copy stream, SMs) on
  // a host thread of its own: the copy runs beside the caller, who prepares the chunk's
  // vectors meanwhile (locking pages keeps a host thread busy, and copies from pageable
  // memory would too). The first call that needs the chunk waits (wait_for).
  template <typename Copy>
  int copy_beside(int ticket, std::unique_ptr<Resident> slot, GroupShape shape, Copy copy) {
    slot->shape_forced = shape.lanes > 0;
    check(cudaEventCreateWithFlags(&slot->uploaded, cudaEventDisableTiming), "cudaEventCreate");
    Resident* r = slot.get();
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    r->copied = std::async(std::launch::async, [r, device, stream = copy_, sm_count = sm_count_, copy] {
      check(cudaSetDevice(device), "cudaSetDevice");  // a new thread starts on device 0
      copy(*r, stream, sm_count);
      check(cudaEventRecord(r->uploaded, stream), "cudaEventRecord");
    });
    slots_[ticket] = std::move(slot);
    return ticket;
  }

  // A cut chunk's b from its rows' b and the corrections (BoundInputs::corrections).
  void bind_corrected(Resident& chunk, const BoundInputs& in) {
    wait_for_arrays(chunk);
    if (!chunk.cut || (!chunk.cut_b.get() && chunk.matrix.num_rows() > 0)) {
      throw DeviceError("a chunk's b corrected on the device needs its rows' b, uploaded with them once");
    }
    detail::CorrectedB b = detail::corrected_b(std::move(chunk.cut_b), *in.corrections, compute_, sm_count_);
    const bool with_upper = in.corrections->with_upper;
    chunk.bound = std::make_unique<Vectors>(chunk.matrix, nullptr, nullptr, in.targets, in.lower, in.upper, compute_,
                                            in.lower_constant, in.upper_constant,
                                            OwnB{true, b.lower.get(), with_upper, b.upper.get()});
    chunk.bound->d_b_lower = std::move(b.lower);  // kept while bound
    chunk.bound->d_b_upper = std::move(b.upper);
    check(cudaStreamSynchronize(compute_), "binding vectors");
  }

  // The compute stream waits for the chunk's copies (their host thread first).
  void wait_for(Resident& chunk) {
    if (chunk.copied.valid()) chunk.copied.get();
    if (chunk.uploaded) check(cudaStreamWaitEvent(compute_, chunk.uploaded, 0), "cudaStreamWaitEvent");
  }

  // The call's shape where it names one (the equivalence tests), else the chunk's.
  static GroupShape group_of(const Resident& chunk, GroupShape asked) { return asked.lanes > 0 ? asked : chunk.shape; }
  // Sweeps over a window: as above, and where neither the call nor the upload named a
  // shape, a window short of the whole chunk gets one of its own (a level's rows may
  // be unlike the chunk's).
  // A chunk whose lanes go over rows keeps them in every window: its levels are
  // faster so than with shapes of their own (bench/NOTES.md, issue 22).
  // An adopted chunk has no host arrays to size a window's lanes from: its level
  // passes keep its shape (counting each level's rows on the device would cost a
  // wait per level), and an iterated window counts its rows there (once for its many
  // sweeps; a small window given the chunk's lanes is slow: bench/NOTES.md, issue 39).
  GroupShape group_of(const Resident& chunk, GroupShape asked, detail::Window window, bool iterated = false) const {
    if (asked.lanes > 0 || chunk.shape_forced || chunk.shape.over_rows) return group_of(chunk, asked);
    if (window.first == 0 && window.end == chunk.matrix.num_states()) return chunk.shape;
    if (!chunk.sized_on_device()) return choose_window_shape(chunk.host, window.first, window.end, concurrent_threads_);
    if (!iterated) return chunk.shape;
    wait_for_arrays(chunk);
    const bool short_of_device = window.end - window.first < concurrent_threads_;
    return shape_of_window(
        detail::device_window_rows(chunk.matrix.view(), window.first, window.end, short_of_device, sm_count_),
        concurrent_threads_);
  }
  GroupShape group_of(const Resident& chunk, const SweepSettings& settings) const {
    return group_of(chunk, settings.group, window_of(chunk, settings), /*iterated=*/true);
  }

  int device_ = 0;
  int sm_count_ = 1;
  std::uint64_t concurrent_threads_ = 0;  // resident at once on the whole device
  cudaStream_t copy_ = nullptr;
  cudaStream_t compute_ = nullptr;
  std::unique_ptr<Resident> slots_[2];
};

}  // namespace

std::unique_ptr<DeviceSolver> open_device() {
  if (!free_device_memory()) return nullptr;
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  return std::make_unique<CudaDeviceSolver>(device);
}

std::unique_ptr<DeviceSolver> open_device(int index) {
  if (!free_device_memory() || index < 0 || index >= usable_device_count()) return nullptr;
  return std::make_unique<CudaDeviceSolver>(index);
}

}  // namespace mdpvi::gpu
