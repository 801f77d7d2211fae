// The CUDA backend: resident chunks on a copy stream, sweeps on a compute stream.
#include "engine/model/stopwatch.h"
#include "gpu/batch_loop.h"
#include "gpu/cuda_support.cuh"
#include "gpu/device_solver.h"
#include "gpu/sweep_kernels.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

namespace mdpvi::gpu {

namespace {

using detail::check;
using detail::DeviceArray;
using detail::kBlockSize;

// Per-sweep results of one batch on the device: a largest change (or width) and a
// word of flags per sweep, read back together and cleared for the next batch.
class BatchResults {
 public:
  explicit BatchResults(cudaStream_t stream) : d_largest_(detail::kMaxBatch), d_flags_(detail::kMaxBatch) {
    clear(stream);
  }
  unsigned long long* largest(std::size_t slot) const { return d_largest_.get() + slot; }
  unsigned* flags(std::size_t slot) const { return d_flags_.get() + slot; }

  // Waits for the stream; clears what it read.
  void read(std::size_t count, cudaStream_t stream, std::vector<double>& largest, std::vector<unsigned>& flags) {
    std::vector<unsigned long long> bits(count);
    flags.resize(count);
    d_largest_.download(bits.data(), count, stream);
    d_flags_.download(flags.data(), count, stream);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    largest.resize(count);
    std::memcpy(largest.data(), bits.data(), count * sizeof(double));
    clear(stream);
  }

 private:
  void clear(cudaStream_t stream) {
    check(cudaMemsetAsync(d_largest_.get(), 0, detail::kMaxBatch * sizeof(unsigned long long), stream), "cudaMemset");
    check(cudaMemsetAsync(d_flags_.get(), 0, detail::kMaxBatch * sizeof(unsigned), stream), "cudaMemset");
  }

  DeviceArray<unsigned long long> d_largest_;
  DeviceArray<unsigned> d_flags_;
};

// An iterate on the device: two buffers, the one being read and the one being written.
class DeviceIterate {
 public:
  // Both buffers hold the start: a sweep over a window of the states leaves the
  // others as they are in either buffer.
  DeviceIterate(const double* host, std::size_t n, cudaStream_t stream) : n_(n), d_first_(n), d_second_(n) {
    d_first_.upload(host, n, stream);
    if (n > 0) {
      check(cudaMemcpyAsync(d_second_.get(), d_first_.get(), n * sizeof(double), cudaMemcpyDeviceToDevice, stream),
            "copy");
    }
  }
  double* d_in() const { return d_in_; }
  double* d_out() const { return d_out_; }
  double* d_first() const { return d_first_.get(); }
  double* d_second() const { return d_second_.get(); }
  void swap() { std::swap(d_in_, d_out_); }
  // The vector last written (after swap(): the one being read).
  void download(double* host, cudaStream_t stream) const {
    if (n_ > 0) check(cudaMemcpyAsync(host, d_in_, n_ * sizeof(double), cudaMemcpyDeviceToHost, stream), "download");
  }

 private:
  std::size_t n_;
  DeviceArray<double> d_first_, d_second_;
  double* d_in_ = d_first_.get();
  double* d_out_ = d_second_.get();
};

class CudaDeviceSolver final : public DeviceSolver {
 public:
  CudaDeviceSolver() : sm_count_(detail::multiprocessor_count()) {
    check(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~CudaDeviceSolver() override {
    for (auto& slot : slots_) slot.reset();
    cudaStreamDestroy(copy_);
    cudaStreamDestroy(compute_);
  }

  std::string name() const override {
    int device = 0;
    cudaDeviceProp properties{};
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
    return properties.name;
  }

  std::size_t free_memory() const override {
    std::size_t free_bytes = 0, total_bytes = 0;
    check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    return free_bytes;
  }

  int upload(const ChunkMatrix& chunk) override {
    const int ticket = slots_[0] == nullptr ? 0 : 1;
    if (slots_[ticket] != nullptr) throw std::logic_error("DeviceSolver: two chunks are resident already");
    auto slot = std::make_unique<Resident>(chunk, copy_);
    check(cudaEventCreateWithFlags(&slot->uploaded, cudaEventDisableTiming), "cudaEventCreate");
    check(cudaEventRecord(slot->uploaded, copy_), "cudaEventRecord");
    slots_[ticket] = std::move(slot);
    return ticket;
  }

  void release(int ticket) override {
    if (ticket >= 0 && ticket <= 1) slots_[ticket].reset();
  }

  ChunkSolveStats iterate(int ticket, const double* b, const SweepSettings& settings, double* x) override {
    Resident& chunk = resident(ticket);
    ChunkSolveStats stats;
    stats.group_size = group_size(chunk, settings);
    auto start = std::chrono::steady_clock::now();
    wait_for(chunk);
    PlainVectors v(chunk, b, x, compute_);
    check(cudaStreamSynchronize(compute_), "upload");
    stats.upload_s = seconds_since(start);

    start = std::chrono::steady_clock::now();
    auto kernel = detail::kernel_variant<detail::SweepKernels>(stats.group_size, settings.maximize, settings.relative);
    const detail::Window window = window_of(chunk, settings);
    const unsigned blocks = detail::sweep_blocks(window.end - window.first, stats.group_size, sm_count_);
    bool converged = settings.fixed_sweeps;
    std::vector<double> changes;
    std::vector<unsigned> unused;
    std::uint64_t sweeps_read = 0;
    stats.iterations = detail::run_in_batches(
        settings.max_sweeps, !settings.fixed_sweeps,
        [&](std::size_t slot) { launch_sweep(kernel, blocks, chunk, window, v, slot); },
        [&](std::size_t count) {
          v.results.read(count, compute_, changes, unused);
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
    check(cudaStreamSynchronize(compute_), "sweeps");
    stats.converged = converged;
    stats.solve_s = seconds_since(start);

    start = std::chrono::steady_clock::now();
    v.values.download(x, compute_);
    check(cudaStreamSynchronize(compute_), "download");
    stats.download_s = seconds_since(start);
    return stats;
  }

  IntervalChunkStats iterate_interval(int ticket, const IntervalInputs& inputs, const SweepSettings& settings,
                                      double* lower, double* upper) override {
    Resident& chunk = resident(ticket);
    IntervalChunkStats result;
    ChunkSolveStats& stats = result.stats;
    stats.group_size = group_size(chunk, settings);
    auto start = std::chrono::steady_clock::now();
    wait_for(chunk);
    IntervalVectors v(chunk, inputs, lower, upper, compute_);
    check(cudaStreamSynchronize(compute_), "upload");
    stats.upload_s = seconds_since(start);

    start = std::chrono::steady_clock::now();
    auto kernel = detail::kernel_variant<detail::IntervalKernels>(stats.group_size, settings.maximize, settings.relative);
    const detail::Window window = window_of(chunk, settings);
    const unsigned blocks = detail::sweep_blocks(window.end - window.first, stats.group_size, sm_count_);
    // Sweeps of a batch after a crossing only move both iterates closer together.
    bool done = false;
    result.verified = !inputs.verify_upper;
    std::vector<double> widths;
    std::vector<unsigned> flags;
    stats.iterations = detail::run_in_batches(
        settings.max_sweeps, true,
        [&](std::size_t slot) { launch_interval(kernel, blocks, chunk, window, v, slot); },
        [&](std::size_t count) {
          v.results.read(count, compute_, widths, flags);
          stats.last_measure = widths.back();
          if (settings.on_batch) settings.on_batch(count, stats.last_measure);
          for (unsigned f : flags) {
            if (!result.verified && (f & detail::kCrossed)) result.crossed = true;
            if (!result.crossed) result.verified = result.verified || !(f & detail::kUpperRaised);
            done = done || (result.verified && !(f & detail::kAboveTarget));
          }
          return done || result.crossed;
        });
    stats.converged = done;
    stats.solve_s = seconds_since(start);

    start = std::chrono::steady_clock::now();
    v.download(lower, upper, compute_);
    stats.download_s = seconds_since(start);
    return result;
  }

  ChunkSolveStats pass_levels(int ticket, const LevelPasses& passes, double* lower, double* upper) override {
    Resident& chunk = resident(ticket);
    ChunkSolveStats stats;
    SweepSettings for_group;
    for_group.group_size = passes.group_size;
    stats.group_size = group_size(chunk, for_group);
    auto start = std::chrono::steady_clock::now();
    wait_for(chunk);
    PassState state(chunk, passes, lower, upper, compute_);
    check(cudaStreamSynchronize(compute_), "upload");
    stats.upload_s = seconds_since(start);

    start = std::chrono::steady_clock::now();
    if (passes.b_upper) {
      launch_passes<2>(chunk, passes, state, stats.group_size);
    } else {
      launch_passes<1>(chunk, passes, state, stats.group_size);
    }
    check(cudaStreamSynchronize(compute_), "level passes");
    stats.iterations = passes.num_levels;
    stats.solve_s = seconds_since(start);

    start = std::chrono::steady_clock::now();
    // The passes wrote both buffers; the first is read.
    const std::size_t n = chunk.matrix.num_states();
    if (n > 0) {
      check(cudaMemcpyAsync(lower, state.lower.d_first(), n * sizeof(double), cudaMemcpyDeviceToHost, compute_), "download");
      if (passes.b_upper) {
        check(cudaMemcpyAsync(upper, state.upper.d_first(), n * sizeof(double), cudaMemcpyDeviceToHost, compute_),
              "download");
      }
    }
    check(cudaStreamSynchronize(compute_), "download");
    stats.download_s = seconds_since(start);
    return stats;
  }

  double sweep_once(int ticket, const double* b, const SweepSettings& settings, const double* x_in,
                    double* x_out) override {
    Resident& chunk = resident(ticket);
    wait_for(chunk);
    PlainVectors v(chunk, b, x_in, compute_);
    const int g = group_size(chunk, settings);
    auto kernel = detail::kernel_variant<detail::SweepKernels>(g, settings.maximize, settings.relative);
    launch_sweep(kernel, detail::sweep_blocks(chunk.matrix.num_states(), g, sm_count_), chunk, window_of(chunk, settings), v, 0);
    std::vector<double> change;
    std::vector<unsigned> unused;
    v.results.read(1, compute_, change, unused);
    v.values.download(x_out, compute_);
    check(cudaStreamSynchronize(compute_), "download");
    return change.front();
  }

  IntervalSweepResult interval_sweep_once(int ticket, const IntervalInputs& inputs, const SweepSettings& settings,
                                          const double* lower_in, const double* upper_in, double* lower_out,
                                          double* upper_out) override {
    Resident& chunk = resident(ticket);
    wait_for(chunk);
    IntervalVectors v(chunk, inputs, lower_in, upper_in, compute_);
    const int g = group_size(chunk, settings);
    auto kernel = detail::kernel_variant<detail::IntervalKernels>(g, settings.maximize, settings.relative);
    launch_interval(kernel, detail::sweep_blocks(chunk.matrix.num_states(), g, sm_count_), chunk, window_of(chunk, settings),
                    v, 0);
    std::vector<double> widths;
    std::vector<unsigned> flags;
    v.results.read(1, compute_, widths, flags);
    v.download(lower_out, upper_out, compute_);
    IntervalSweepResult result;
    result.width = widths.front();
    result.above_target = flags.front() & detail::kAboveTarget;
    result.upper_raised = flags.front() & detail::kUpperRaised;
    result.crossed = flags.front() & detail::kCrossed;
    return result;
  }

 private:
  struct Resident {
    ChunkMatrix host;
    detail::DeviceMatrix matrix;
    cudaEvent_t uploaded = nullptr;
    Resident(const ChunkMatrix& chunk, cudaStream_t stream) : host(chunk), matrix(chunk, stream) {}
    ~Resident() {
      if (uploaded) cudaEventDestroy(uploaded);
    }
  };

  // Value iteration's vectors: b, the iterate, the results.
  struct PlainVectors {
    DeviceArray<double> d_b;
    DeviceIterate values;
    BatchResults results;
    PlainVectors(const Resident& chunk, const double* b, const double* x, cudaStream_t stream)
        : d_b(chunk.matrix.num_rows()), values(x, chunk.matrix.num_states(), stream), results(stream) {
      d_b.upload(b, chunk.matrix.num_rows(), stream);
    }
  };

  // One sweep from the iterate's current vector into the other, its result into slot.
  void launch_sweep(detail::SweepKernel kernel, unsigned blocks, const Resident& chunk, detail::Window window,
                    PlainVectors& v, std::size_t slot) {
    kernel<<<blocks, kBlockSize, 0, compute_>>>(chunk.matrix.view(), window, v.d_b.get(), v.values.d_in(),
                                                v.values.d_out(), v.results.largest(slot));
    check(cudaGetLastError(), "sweep kernel launch");
    v.values.swap();
  }

  // Interval iteration's vectors: both b, the targets, both iterates, the results.
  struct IntervalVectors {
    std::uint64_t n;
    DeviceArray<double> d_b_lower, d_b_upper, d_targets;
    DeviceIterate lower, upper;
    BatchResults results;
    IntervalVectors(const Resident& chunk, const IntervalInputs& in, const double* lower_start,
                    const double* upper_start, cudaStream_t stream)
        : n(chunk.matrix.num_states()),
          d_b_lower(chunk.matrix.num_rows()),
          d_b_upper(chunk.matrix.num_rows()),
          d_targets(n),
          lower(lower_start, n, stream),
          upper(upper_start, n, stream),
          results(stream) {
      d_b_lower.upload(in.b_lower, chunk.matrix.num_rows(), stream);
      d_b_upper.upload(in.b_upper, chunk.matrix.num_rows(), stream);
      d_targets.upload(in.targets, n, stream);
    }
    void download(double* lower_host, double* upper_host, cudaStream_t stream) {
      lower.download(lower_host, stream);
      upper.download(upper_host, stream);
      check(cudaStreamSynchronize(stream), "download");
    }
  };

  // One interval sweep from both iterates' current vectors into the others.
  void launch_interval(detail::IntervalKernel kernel, unsigned blocks, const Resident& chunk, detail::Window window,
                       IntervalVectors& v, std::size_t slot) {
    kernel<<<blocks, kBlockSize, 0, compute_>>>(chunk.matrix.view(), window, v.d_b_lower.get(), v.d_b_upper.get(),
                                                v.d_targets.get(), v.lower.d_in(), v.upper.d_in(), v.lower.d_out(),
                                                v.upper.d_out(), v.results.largest(slot), v.results.flags(slot));
    check(cudaGetLastError(), "interval kernel launch");
    v.lower.swap();
    v.upper.swap();
  }

  // The settings' window, clamped to the chunk.
  static detail::Window window_of(const Resident& chunk, const SweepSettings& settings) {
    const std::uint64_t n = chunk.matrix.num_states();
    const std::uint64_t end = std::min<std::uint64_t>(settings.end_state, n);
    return {std::min<std::uint64_t>(settings.first_state, end), end};
  }

  // Both iterates' vectors for level passes (the upper one only with b_upper).
  struct PassState {
    DeviceArray<double> d_b_lower, d_b_upper;
    DeviceIterate lower, upper;
    PassState(const Resident& chunk, const LevelPasses& p, const double* lower_start, const double* upper_start,
              cudaStream_t stream)
        : d_b_lower(chunk.matrix.num_rows()),
          d_b_upper(p.b_upper ? chunk.matrix.num_rows() : 0),
          lower(lower_start, chunk.matrix.num_states(), stream),
          upper(upper_start, p.b_upper ? chunk.matrix.num_states() : 0, stream) {
      d_b_lower.upload(p.b_lower, chunk.matrix.num_rows(), stream);
      if (p.b_upper) d_b_upper.upload(p.b_upper, chunk.matrix.num_rows(), stream);
    }
  };

  // One launch per level, in order on the stream; each reads what the launches before
  // it wrote.
  template <int K>
  void launch_passes(const Resident& chunk, const LevelPasses& p, const PassState& state, int group_size) {
    detail::PassVectors<K> v{};
    const DeviceIterate* iterates[2] = {&state.lower, &state.upper};
    const double* b[2] = {state.d_b_lower.get(), state.d_b_upper.get()};
    for (int i = 0; i < K; ++i) {
      v.x[i] = iterates[i]->d_first();
      v.b[i] = b[i];
      v.first[i] = iterates[i]->d_first();
      v.second[i] = iterates[i]->d_second();
    }
    auto kernel = detail::kernel_variant<detail::LevelPassKernels<K>>(group_size, p.maximize, false);
    for (std::size_t level = 0; level < p.num_levels; ++level) {
      const detail::Window window{p.level_starts[level], p.level_starts[level + 1]};
      if (window.end == window.first) continue;
      const unsigned blocks = detail::sweep_blocks(window.end - window.first, group_size, sm_count_);
      kernel<<<blocks, kBlockSize, 0, compute_>>>(chunk.matrix.view(), window, v);
      check(cudaGetLastError(), "level pass launch");
    }
  }

  Resident& resident(int ticket) {
    if (ticket < 0 || ticket > 1 || !slots_[ticket]) throw std::logic_error("DeviceSolver: no chunk under this ticket");
    return *slots_[ticket];
  }

  void wait_for(const Resident& chunk) { check(cudaStreamWaitEvent(compute_, chunk.uploaded, 0), "cudaStreamWaitEvent"); }

  static int group_size(const Resident& chunk, const SweepSettings& settings) {
    return settings.group_size > 0 ? settings.group_size : choose_group_size(chunk.host);
  }

  int sm_count_ = 1;
  cudaStream_t copy_ = nullptr;
  cudaStream_t compute_ = nullptr;
  std::unique_ptr<Resident> slots_[2];
};

}  // namespace

std::unique_ptr<DeviceSolver> open_device() {
  if (!free_device_memory()) return nullptr;
  return std::make_unique<CudaDeviceSolver>();
}

}  // namespace mdpvi::gpu
