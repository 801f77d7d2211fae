#include "gpu/chunk_solver.h"
#include "gpu/cuda_support.cuh"
#include "engine/stopwatch.h"

#include <cub/block/block_reduce.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace mdpvi::gpu {

namespace {

using detail::check;
using detail::DeviceArray;
using detail::DeviceChunk;
using detail::kBlockSize;
using detail::Maximum;


// One Bellman sweep, fused: G lanes share a state; each row's dot product is split
// over the lanes and reduced with shuffles inside the group; the group's lane 0
// takes the min/max over the rows, writes the value and its change. The largest
// change of the block goes to *d_change with one atomic (non-negative doubles order
// like their bit patterns). Groups stride over the states (grid-stride loop).
template <int G, bool kMaximize, bool kRelative>
__global__ void __launch_bounds__(kBlockSize)
    sweep_kernel(DeviceChunk m, const double* __restrict__ x_in, double* __restrict__ x_out,
                 unsigned long long* d_change) {
  const unsigned lane = threadIdx.x % G;
  const unsigned group_in_warp = (threadIdx.x % 32) / G;
  const unsigned mask = G == 32 ? 0xffffffffu : (((1u << G) - 1u) << (group_in_warp * G));
  const std::uint64_t groups = static_cast<std::uint64_t>(gridDim.x) * blockDim.x / G;
  double largest_change = 0.0;
  for (std::uint64_t s = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / G; s < m.num_states;
       s += groups) {
    double best = kMaximize ? -INFINITY : INFINITY;
    const std::uint64_t row_end = m.row_group_starts[s + 1];
    for (std::uint64_t r = m.row_group_starts[s]; r < row_end; ++r) {
      double sum = 0.0;
      const std::uint64_t k_end = m.row_starts[r + 1];
      for (std::uint64_t k = m.row_starts[r] + lane; k < k_end; k += G) sum += m.values[k] * x_in[m.columns[k]];
      if constexpr (G > 1) {
        for (int offset = G / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(mask, sum, offset, G);
      }
      sum += m.row_constants[r];
      best = kMaximize ? fmax(best, sum) : fmin(best, sum);
    }
    if (lane == 0) {
      double change = fabs(best - x_in[s]);
      if (kRelative && best != 0.0) change /= fabs(best);
      largest_change = fmax(largest_change, change);
      x_out[s] = best;
    }
  }
  using BlockReduce = cub::BlockReduce<double, kBlockSize>;
  __shared__ typename BlockReduce::TempStorage scratch;
  double block_largest = BlockReduce(scratch).Reduce(largest_change, Maximum());
  if (threadIdx.x == 0 && block_largest > 0.0) {
    atomicMax(d_change, static_cast<unsigned long long>(__double_as_longlong(block_largest)));
  }
}

using SweepKernel = void (*)(DeviceChunk, const double*, double*, unsigned long long*);

struct SweepKernels {
  template <int G, bool Maximize, bool Relative>
  static SweepKernel get() { return sweep_kernel<G, Maximize, Relative>; }
};

SweepKernel kernel_for(int group_size, bool maximize, bool relative) {
  return detail::kernel_variant<SweepKernels>(group_size, maximize, relative);
}

// The chunk on the device, with both value vectors and the changes of a batch of
// sweeps. Every operation runs on the chunk's stream.
class ResidentChunk {
 public:
  static constexpr std::size_t kMaxBatch = 64;

  // Allocates the chunk and starts copying its matrix (b too, when with_b).
  ResidentChunk(const ChunkMatrix& c, cudaStream_t stream, bool with_b)
      : states_(c.num_states),
        rows_(c.num_rows),
        matrix_(c, stream),
        row_constants_(c.num_rows),
        x_(c.num_states),
        y_(c.num_states),
        changes_(kMaxBatch),
        stream_(stream) {
    if (with_b) row_constants_.upload(c.row_constants, c.num_rows, stream);
    sm_count_ = detail::multiprocessor_count();
  }

  void use_stream(cudaStream_t stream) { stream_ = stream; }
  void upload_b(const double* b) { row_constants_.upload(b, rows_, stream_); }
  void upload_x(const double* x) { x_.upload(x, states_, stream_); }
  double* x() const { return x_.get(); }
  double* y() const { return y_.get(); }

  void clear_changes(std::size_t count) {
    check(cudaMemsetAsync(changes_.get(), 0, count * sizeof(unsigned long long), stream_), "cudaMemset");
  }

  // One sweep from in to out; its largest change goes to slot (asynchronous).
  void launch_sweep(SweepKernel kernel, int group_size, const double* in, double* out, std::size_t slot = 0) {
    unsigned blocks = detail::sweep_blocks(states_, group_size, sm_count_);
    kernel<<<blocks, kBlockSize, 0, stream_>>>(matrix_.view(row_constants_.get()), in, out, changes_.get() + slot);
    check(cudaGetLastError(), "sweep kernel launch");
  }

  // The largest changes of the last count sweeps (waits for the stream).
  std::vector<double> read_changes(std::size_t count) {
    std::vector<unsigned long long> bits(count);
    check(cudaMemcpyAsync(bits.data(), changes_.get(), count * sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream_),
          "download");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    std::vector<double> changes(count);
    std::memcpy(changes.data(), bits.data(), count * sizeof(double));
    return changes;
  }

  void download(const double* from, double* x) {
    check(cudaMemcpyAsync(x, from, states_ * sizeof(double), cudaMemcpyDeviceToHost, stream_), "download");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

 private:
  std::uint32_t states_;
  std::uint64_t rows_;
  detail::DeviceMatrix matrix_;
  DeviceArray<double> row_constants_, x_, y_;
  DeviceArray<unsigned long long> changes_;
  cudaStream_t stream_;
  int sm_count_ = 1;
};


}  // namespace

std::size_t chunk_footprint_bytes(std::uint64_t states, std::uint64_t rows, std::uint64_t entries) {
  return (states + 1) * 8 + (rows + 1) * 8 + entries * (4 + 8) + rows * 8 + states * 8 * 2 + 256;
}

std::optional<std::size_t> free_device_memory() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    return std::nullopt;
  }
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;
  }
  return free_bytes;
}

std::string device_name() {
  int device = 0;
  cudaDeviceProp properties{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&properties, device) != cudaSuccess) {
    cudaGetLastError();
    return "no device";
  }
  return properties.name;
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

namespace {

// Iterates a resident chunk whose x holds the start values; returns in stats and
// leaves the result in x (host).
void iterate(ResidentChunk& resident, const SweepSettings& settings, ChunkSolveStats& stats, double* x) {
  SweepKernel kernel = kernel_for(stats.group_size, settings.maximize, settings.relative);
  auto start = std::chrono::steady_clock::now();
  double* in = resident.x();
  double* out = resident.y();
  // Reading the change back costs a synchronisation (~10-20 us), as much as a whole
  // sweep of a small chunk: sweeps run in batches, each writing its change to its own
  // slot, and the batch is read at once. Batches grow with the sweeps done so far (at
  // most a tenth of them), so sweeps past convergence stay under ~10%; they only bring
  // the values closer to the fixed point.
  bool converged = false;
  while (!converged && stats.iterations < settings.max_iterations) {
    std::size_t batch = std::clamp<std::uint64_t>(stats.iterations / 10, 1, ResidentChunk::kMaxBatch);
    batch = std::min<std::uint64_t>(batch, settings.max_iterations - stats.iterations);
    resident.clear_changes(batch);
    for (std::size_t i = 0; i < batch; ++i) {
      resident.launch_sweep(kernel, stats.group_size, in, out, i);
      std::swap(in, out);
    }
    stats.iterations += batch;
    for (double change : resident.read_changes(batch)) converged = converged || change < settings.epsilon;
  }
  stats.converged = converged;
  stats.solve_s = seconds_since(start);
  start = std::chrono::steady_clock::now();
  resident.download(in, x);
  stats.download_s = seconds_since(start);
}

ChunkSolveStats initial_stats(const ChunkMatrix& chunk, const SweepSettings& settings) {
  ChunkSolveStats stats;
  stats.group_size = settings.group_size > 0 ? settings.group_size : choose_group_size(chunk);
  return stats;
}

}  // namespace

ChunkSolveStats solve_chunk_on_device(const ChunkMatrix& chunk, const SweepSettings& settings, double* x) {
  ChunkSolveStats stats = initial_stats(chunk, settings);
  if (chunk.num_states == 0) return stats;
  auto start = std::chrono::steady_clock::now();
  ResidentChunk resident(chunk, 0, /*with_b=*/true);
  resident.upload_x(x);
  check(cudaStreamSynchronize(0), "upload");
  stats.upload_s = seconds_since(start);
  iterate(resident, settings, stats, x);
  return stats;
}

struct ChunkPipeline::Streams {
  cudaStream_t copy = nullptr;
  cudaStream_t compute = nullptr;
};

struct ChunkPipeline::Slot {
  std::unique_ptr<ResidentChunk> resident;
  ChunkMatrix matrix;
  cudaEvent_t uploaded = nullptr;
  ~Slot() {
    if (uploaded) cudaEventDestroy(uploaded);
  }
};

ChunkPipeline::ChunkPipeline() {
  auto streams = std::make_unique<Streams>();
  check(cudaStreamCreateWithFlags(&streams->copy, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaStreamCreateWithFlags(&streams->compute, cudaStreamNonBlocking), "cudaStreamCreate");
  streams_ = streams.release();
}

ChunkPipeline::~ChunkPipeline() {
  for (Slot*& slot : slots_) {
    delete slot;
    slot = nullptr;
  }
  if (streams_) {
    cudaStreamDestroy(streams_->copy);
    cudaStreamDestroy(streams_->compute);
    delete streams_;
  }
}

int ChunkPipeline::upload(const ChunkMatrix& chunk) {
  int ticket = slots_[0] == nullptr ? 0 : 1;
  if (slots_[ticket] != nullptr) throw std::logic_error("ChunkPipeline: both slots are in use");
  auto slot = std::make_unique<Slot>();
  slot->matrix = chunk;
  slot->resident = std::make_unique<ResidentChunk>(chunk, streams_->copy, /*with_b=*/false);
  check(cudaEventCreateWithFlags(&slot->uploaded, cudaEventDisableTiming), "cudaEventCreate");
  check(cudaEventRecord(slot->uploaded, streams_->copy), "cudaEventRecord");
  slots_[ticket] = slot.release();
  return ticket;
}

ChunkSolveStats ChunkPipeline::solve(int ticket, const double* b, const SweepSettings& settings, double* x) {
  std::unique_ptr<Slot> slot(slots_[ticket]);
  slots_[ticket] = nullptr;
  if (!slot) throw std::logic_error("ChunkPipeline: no chunk uploaded under this ticket");
  ChunkSolveStats stats = initial_stats(slot->matrix, settings);
  // upload_s: how long the solve waited for its matrix, the part the overlap missed.
  auto start = std::chrono::steady_clock::now();
  check(cudaEventSynchronize(slot->uploaded), "waiting for the upload");
  ResidentChunk& resident = *slot->resident;
  resident.use_stream(streams_->compute);
  resident.upload_b(b);
  resident.upload_x(x);
  check(cudaStreamSynchronize(streams_->compute), "upload");
  stats.upload_s = seconds_since(start);
  iterate(resident, settings, stats, x);
  return stats;
}

void* allocate_pinned(std::size_t bytes) {
  // A header records how the block was allocated, so that free_pinned can tell.
  constexpr std::size_t kHeader = 64;
  void* block = nullptr;
  bool pinned = cudaHostAlloc(&block, bytes + kHeader, cudaHostAllocDefault) == cudaSuccess;
  if (!pinned) {
    cudaGetLastError();
    block = std::malloc(bytes + kHeader);
    if (block == nullptr) throw std::bad_alloc();
  }
  *static_cast<bool*>(block) = pinned;
  return static_cast<char*>(block) + kHeader;
}

void free_pinned(void* pointer) noexcept {
  if (pointer == nullptr) return;
  void* block = static_cast<char*>(pointer) - 64;
  if (*static_cast<bool*>(block)) {
    cudaFreeHost(block);
  } else {
    std::free(block);
  }
}

double sweep_once_on_device(const ChunkMatrix& chunk, const SweepSettings& settings, const double* x_in, double* x_out) {
  int group_size = settings.group_size > 0 ? settings.group_size : choose_group_size(chunk);
  SweepKernel kernel = kernel_for(group_size, settings.maximize, settings.relative);
  ResidentChunk resident(chunk, 0, /*with_b=*/true);
  resident.upload_x(x_in);
  resident.clear_changes(1);
  resident.launch_sweep(kernel, group_size, resident.x(), resident.y());
  double change = resident.read_changes(1).front();
  resident.download(resident.y(), x_out);
  return change;
}

double measure_copy_bandwidth(std::size_t bytes) {
  DeviceArray<char> a(bytes), b(bytes);
  check(cudaMemset(a.get(), 1, bytes), "cudaMemset");
  cudaEvent_t begin, end;
  check(cudaEventCreate(&begin), "cudaEventCreate");
  check(cudaEventCreate(&end), "cudaEventCreate");
  check(cudaMemcpy(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice), "warm-up copy");
  constexpr int kRepeats = 10;
  check(cudaEventRecord(begin), "cudaEventRecord");
  for (int i = 0; i < kRepeats; ++i) check(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice), "copy");
  check(cudaEventRecord(end), "cudaEventRecord");
  check(cudaEventSynchronize(end), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
  cudaEventDestroy(begin);
  cudaEventDestroy(end);
  return 2.0 * bytes * kRepeats / (ms / 1000.0);  // read + write
}

}  // namespace mdpvi::gpu
