#pragma once
// What the CUDA backend's sweeps run on beside the matrix: an iterate's two buffers on
// the device, the per-sweep results that batch_loop.h reads back, and a run's vectors
// (b, the iterates, the targets). Internal to gpu/.
#include "gpu/batch_loop.h"
#include "gpu/cuda_support.cuh"
#include "gpu/host_copies.cuh"
#include "gpu/sweep_kernels.cuh"
#include "engine/numeric/width_target.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace mdpvi::gpu::detail {

// Per-sweep results on the device: a largest change (or width) and a word of flags
// per sweep, in two halves of kMaxBatch slots (a batch read while the next runs),
// each half copied back into pinned memory and cleared once read.
class BatchResults {
 public:
  explicit BatchResults(cudaStream_t stream) : d_largest_(kBatchSlots), d_flags_(kBatchSlots) {
    check(cudaMallocHost(&host_largest_, kBatchSlots * sizeof(unsigned long long)), "cudaMallocHost");
    check(cudaMallocHost(&host_flags_, kBatchSlots * sizeof(unsigned)), "cudaMallocHost");
    for (cudaEvent_t& e : copied_) check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    clear(0, kBatchSlots, stream);
  }
  ~BatchResults() {
    for (cudaEvent_t e : copied_) cudaEventDestroy(e);
    cudaFreeHost(host_largest_);
    cudaFreeHost(host_flags_);
  }
  BatchResults(const BatchResults&) = delete;
  BatchResults& operator=(const BatchResults&) = delete;

  unsigned long long* largest(std::size_t slot) const { return d_largest_.get() + slot; }
  unsigned* flags(std::size_t slot) const { return d_flags_.get() + slot; }

  // Enqueues the copy back of slots [first, first + count) (one half).
  void send(std::size_t first, std::size_t count, cudaStream_t stream) {
    check(cudaMemcpyAsync(host_largest_ + first, d_largest_.get() + first, count * sizeof(unsigned long long),
                          cudaMemcpyDeviceToHost, stream),
          "download");
    check(cudaMemcpyAsync(host_flags_ + first, d_flags_.get() + first, count * sizeof(unsigned), cudaMemcpyDeviceToHost,
                          stream),
          "download");
    check(cudaEventRecord(copied_[first / kMaxBatch], stream), "cudaEventRecord");
    clear(first, count, stream);  // after the copy, in stream order
  }
  // Waits for the copy of slots [first, first + count) that send enqueued.
  void receive(std::size_t first, std::size_t count, std::vector<double>& largest, std::vector<unsigned>& flags) const {
    check(cudaEventSynchronize(copied_[first / kMaxBatch]), "reading sweep results");
    largest.resize(count);
    std::memcpy(largest.data(), host_largest_ + first, count * sizeof(double));
    flags.assign(host_flags_ + first, host_flags_ + first + count);
  }
  // A batch of count sweeps in the first slots, sent and received.
  void read(std::size_t count, cudaStream_t stream, std::vector<double>& largest, std::vector<unsigned>& flags) {
    send(0, count, stream);
    receive(0, count, largest, flags);
  }
  // Every slot cleared: a run that stopped with a batch unread leaves its results.
  void clear_all(cudaStream_t stream) { clear(0, kBatchSlots, stream); }

 private:
  void clear(std::size_t first, std::size_t count, cudaStream_t stream) {
    check(cudaMemsetAsync(d_largest_.get() + first, 0, count * sizeof(unsigned long long), stream), "cudaMemset");
    check(cudaMemsetAsync(d_flags_.get() + first, 0, count * sizeof(unsigned), stream), "cudaMemset");
  }

  DeviceArray<unsigned long long> d_largest_;
  DeviceArray<unsigned> d_flags_;
  unsigned long long* host_largest_ = nullptr;
  unsigned* host_flags_ = nullptr;
  cudaEvent_t copied_[2] = {nullptr, nullptr};
};

// Width targets to the device's floats (engine/numeric/width_target.h), converted a
// piece at a time (a model-sized array is not copied whole on the host), and back.
inline void upload_width_targets(DeviceArray<float>& d_targets, const double* host, std::size_t n, cudaStream_t stream) {
  constexpr std::size_t kPiece = std::size_t{1} << 22;
  std::vector<float> piece;
  for (std::size_t first = 0; first < n; first += kPiece) {
    const std::size_t count = std::min(kPiece, n - first);
    piece.resize(count);
    for (std::size_t i = 0; i < count; ++i) piece[i] = static_cast<float>(width_target_as_float(host[first + i]));
    check(cudaMemcpyAsync(d_targets.get() + first, piece.data(), count * sizeof(float), cudaMemcpyHostToDevice, stream),
          "upload");
    check(cudaStreamSynchronize(stream), "upload");  // before the piece is written again
  }
}
inline void download_width_targets(const DeviceArray<float>& d_targets, double* host, std::size_t n,
                                   cudaStream_t stream) {
  std::vector<float> all(n);
  d_targets.download(all.data(), n, stream);
  check(cudaStreamSynchronize(stream), "download");
  std::copy(all.begin(), all.end(), host);
}

// An iterate on the device: two buffers, the one being read and the one being written.
class DeviceIterate {
 public:
  // Both buffers hold the start, host's or, without one, constant everywhere: a
  // sweep over a window of the states leaves the others as they are in either buffer.
  DeviceIterate(const double* host, double constant, std::size_t n, cudaStream_t stream, HostCopies& uploads)
      : n_(n), d_first_(n), d_second_(n) {
    if (n == 0) return;
    if (!host) {
      fill_kernel<<<kFillBlocks, kBlockSize, 0, stream>>>({0, n}, constant, d_first_.get(), d_second_.get());
      check(cudaGetLastError(), "fill kernel launch");
      return;
    }
    d_first_.upload(host, n, uploads);
    check(cudaMemcpyAsync(d_second_.get(), d_first_.get(), n * sizeof(double), cudaMemcpyDeviceToDevice, stream), "copy");
  }
  static constexpr unsigned kFillBlocks = 1024;  // grid-stride: enough to fill any device
  double* d_in() const { return d_in_; }
  double* d_out() const { return d_out_; }
  double* d_first() const { return d_first_.get(); }
  double* d_second() const { return d_second_.get(); }
  void swap() { std::swap(d_in_, d_out_); }
  // The vector last written (after swap(): the one being read), through locked pieces.
  // (Through the driver's staging buffer, pageable memory comes back far slower.)
  void download(double* host, HostCopies& copies) const { copies.to_host(host, d_in_, n_ * sizeof(double)); }
  // States [first, end) of the vector last written, copied into the other buffer.
  void settle(std::uint64_t first, std::uint64_t end, cudaStream_t stream) {
    if (end > first) {
      check(cudaMemcpyAsync(d_out_ + first, d_in_ + first, (end - first) * sizeof(double), cudaMemcpyDeviceToDevice,
                            stream),
            "settle");
    }
  }
 private:
  std::size_t n_;
  DeviceArray<double> d_first_, d_second_;
  double* d_in_ = d_first_.get();
  double* d_out_ = d_second_.get();
};

// A chunk's own b for its bound vectors: used, where on the device (none for a view,
// whose sweeps make it), and whether an upper iterate goes with it.
struct OwnB {
  bool used = false;
  const double* d_b = nullptr;
  bool with_upper = false;
  const double* d_b_upper = nullptr;  // the upper iterate's, where it differs from d_b
};

// What a run reads and writes beside the matrix: b and the iterate of value
// iteration, or both b, the targets and both iterates of interval iteration (the
// upper parts empty without b_upper). Made for one call, or bound to a resident
// chunk for many (a chunk solved level by level).
struct Vectors {
  DeviceArray<double> d_b_lower, d_b_upper;
  DeviceArray<float> d_targets;  // 4 bytes a state: engine/numeric/width_target.h
  DeviceIterate lower, upper;
  BatchResults results;
  // An iterate's start without host values (lower_start or upper_start none) is its
  // constant everywhere.
  // With own.used, the chunk's own b on the device (an adopted system's, or none
  // for a view, whose sweeps make it) serves both iterates in place of b_lower and
  // b_upper, and own.with_upper says whether there is an upper iterate.
  Vectors(const detail::DeviceMatrix& m, const double* b_lower, const double* b_upper, const double* targets,
          const double* lower_start, const double* upper_start, cudaStream_t stream, double lower_constant = 0.0,
          double upper_constant = 0.0, OwnB own = {})
      : Vectors(m, b_lower, b_upper, targets, lower_start, upper_start, stream, detail::HostCopies(stream),
                lower_constant, upper_constant, own) {}
  // The copies from locked pieces are done when it returns; memory already pinned
  // copies asynchronously (callers synchronise the stream before using the vectors).
  Vectors(const detail::DeviceMatrix& m, const double* b_lower, const double* b_upper, const double* targets,
          const double* lower_start, const double* upper_start, cudaStream_t stream, detail::HostCopies&& uploads,
          double lower_constant, double upper_constant, OwnB own)
      : d_b_lower(own.used ? 0 : rows_of_host_b(m)),
        // The same host b for both iterates (nothing precedes the chunk, or the
        // entries into earlier chunks are none): one copy on the device.
        d_b_upper(!own.used && b_upper && b_upper != b_lower ? m.num_rows() : 0),
        d_targets(targets ? m.num_states() : 0),
        lower(lower_start, lower_constant, m.num_states(), stream, uploads),
        upper(upper_start, upper_constant, (own.used ? own.with_upper : b_upper != nullptr) ? m.num_states() : 0, stream,
              uploads),
        results(stream),
        with_upper(own.used ? own.with_upper : b_upper != nullptr) {
    if (own.used) {
      b_lower_on_device = own.d_b;
      b_upper_on_device = own.d_b_upper ? own.d_b_upper : own.d_b;
    } else {
      d_b_lower.upload(b_lower, m.num_rows(), uploads);
      if (b_upper && b_upper != b_lower) d_b_upper.upload(b_upper, m.num_rows(), uploads);
      b_lower_on_device = d_b_lower.get();
      b_upper_on_device = b_upper == b_lower ? d_b_lower.get() : d_b_upper.get();
    }
    if (targets) upload_width_targets(d_targets, targets, m.num_states(), stream);
    uploads.finish();
  }
  bool has_upper() const { return with_upper; }
  bool with_upper;
  // Width targets bound one per height level (DeviceSolver::bind_level_width_targets),
  // kept on the host: a window inside one level reads its level's target as one
  // number, and d_targets is filled in per state only for a window across levels.
  std::vector<std::uint64_t> level_starts;  // chunk-local, levels + 1
  std::vector<double> level_targets;
  bool has_targets() const { return d_targets.get() != nullptr || !level_targets.empty(); }
  // The rows of a b from the host. A view's b is made by its sweeps, per model row: a
  // b from the host has no rows to match (std::logic_error).
  static std::size_t rows_of_host_b(const detail::DeviceMatrix& m) {
    if (m.is_view()) throw std::logic_error("DeviceSolver: a view takes no b from the host");
    return m.num_rows();
  }
  const double* b_lower_on_device = nullptr;  // d_b_lower, or the chunk's own
  const double* b_upper_on_device = nullptr;  // d_b_upper, or d_b_lower where both are one, or the chunk's own
};

}  // namespace mdpvi::gpu::detail
