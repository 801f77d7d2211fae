// The parts of an SCC on the devices (gpu/partitioned_sweeps.h). Compiled without
// fused multiply-adds (gpu/CMakeLists.txt), and each min, max and sum written as the
// CPU's (engine/solve/bellman.h), so that every value equals the CPU's sweep.
#include "gpu/cuda_support.cuh"
#include "gpu/host_order_rows.cuh"
#include "gpu/partitioned_sweeps.h"

#include <cuda_runtime.h>
#include <math_constants.h>

#include <array>
#include <cstring>
#include <limits>

namespace mdpvi::gpu {

namespace {

using detail::check;
using detail::DeviceArray;
using detail::kBlockSize;

struct PartView {
  std::uint64_t own;
  const std::uint64_t* __restrict__ row_group_starts;
  detail::HostOrderRows rows;
};

template <bool kMaximize>
__device__ double best_of(const PartView& m, std::uint64_t s, const double* __restrict__ x) {
  double best = kMaximize ? -CUDART_INF : CUDART_INF;
  for (std::uint64_t r = m.row_group_starts[s]; r < m.row_group_starts[s + 1]; ++r) {
    const double value = m.rows.value(r, x);
    if constexpr (kMaximize) {
      best = best < value ? value : best;  // std::max
    } else {
      best = value < best ? value : best;  // std::min
    }
  }
  return best;
}

// Non-negative doubles order as their bits do.
__device__ void max_into(double value, unsigned long long* d_max) {
  atomicMax(d_max, static_cast<unsigned long long>(__double_as_longlong(value)));
}

template <bool kMaximize, bool kRelative>
__global__ void lower_kernel(PartView m, const double* __restrict__ x_in, double* __restrict__ x_out,
                             unsigned long long* d_change) {
  double largest = 0.0;
  for (std::uint64_t s = blockIdx.x * blockDim.x + threadIdx.x; s < m.own; s += gridDim.x * blockDim.x) {
    const double value = best_of<kMaximize>(m, s, x_in);
    double change = fabs(value - x_in[s]);
    if (kRelative && value != 0.0) change /= fabs(value);
    largest = largest < change ? change : largest;
    x_out[s] = value;
  }
  max_into(largest, d_change);
}

constexpr double kRaiseTolerance = 8 * std::numeric_limits<double>::epsilon();  // engine/solve/bellman.h's
enum : unsigned { kRaised = 1u, kCrossed = 2u };

template <bool kMaximize, bool kRelative>
__global__ void both_kernel(PartView m, const double* __restrict__ lower_in, const double* __restrict__ upper_in,
                            double* __restrict__ lower_out, double* __restrict__ upper_out, unsigned long long* d_width,
                            unsigned* d_flags) {
  double widest = 0.0;
  unsigned flags = 0;
  for (std::uint64_t s = blockIdx.x * blockDim.x + threadIdx.x; s < m.own; s += gridDim.x * blockDim.x) {
    const double swept = best_of<kMaximize>(m, s, lower_in), raised = best_of<kMaximize>(m, s, upper_in);
    const double lower = lower_in[s] < swept ? swept : lower_in[s];
    const double upper = raised < upper_in[s] ? raised : upper_in[s];
    double width = upper - lower;
    if (kRelative && lower > 0.0) width /= lower;
    widest = widest < width ? width : widest;
    if (raised > upper_in[s] * (1 + kRaiseTolerance)) flags |= kRaised;
    if (upper < lower) flags |= kCrossed;
    lower_out[s] = lower;
    upper_out[s] = upper;
  }
  max_into(widest, d_width);
  if (flags) atomicOr(d_flags, flags);
}

// upper holds the lower values kept a window of sweeps before.
__global__ void guess_kernel(std::uint64_t own, const double* __restrict__ lower, double* __restrict__ upper, double target,
                             GuessParameters p) {
  for (std::uint64_t s = blockIdx.x * blockDim.x + threadIdx.x; s < own; s += gridDim.x * blockDim.x) {
    upper[s] = guessed_upper(lower[s], fmin(lower[s], upper[s]), target, p);
  }
}

__global__ void fill_kernel(std::uint64_t own, double value, double* __restrict__ x) {
  for (std::uint64_t s = blockIdx.x * blockDim.x + threadIdx.x; s < own; s += gridDim.x * blockDim.x) x[s] = value;
}

__global__ void gather_kernel(std::uint64_t count, const std::uint32_t* __restrict__ locals, const double* __restrict__ x,
                              double* __restrict__ out) {
  for (std::uint64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) out[i] = x[locals[i]];
}

using LowerKernel = void (*)(PartView, const double*, double*, unsigned long long*);
using BothKernel = void (*)(PartView, const double*, const double*, double*, double*, unsigned long long*, unsigned*);

LowerKernel lower_kernel_for(bool maximize, bool relative) {
  if (maximize) return relative ? lower_kernel<true, true> : lower_kernel<true, false>;
  return relative ? lower_kernel<false, true> : lower_kernel<false, false>;
}

BothKernel both_kernel_for(bool maximize, bool relative) {
  if (maximize) return relative ? both_kernel<true, true> : both_kernel<true, false>;
  return relative ? both_kernel<false, true> : both_kernel<false, false>;
}

unsigned blocks_for(std::uint64_t n) {
  return static_cast<unsigned>(std::min<std::uint64_t>((n + kBlockSize - 1) / kBlockSize, 65535 * 8));
}

// The calling thread's device, as it was, at the end of a scope: the parts switch
// devices, and the single-device code around them works on the current one.
class KeepCurrentDevice {
 public:
  KeepCurrentDevice() {
    if (cudaGetDevice(&device_) != cudaSuccess) device_ = -1;
  }
  ~KeepCurrentDevice() {
    if (device_ >= 0) cudaSetDevice(device_);
  }
  KeepCurrentDevice(const KeepCurrentDevice&) = delete;
  KeepCurrentDevice& operator=(const KeepCurrentDevice&) = delete;

 private:
  int device_ = -1;
};

// What a part sends to another: the source's locals and a buffer, on the source's device.
struct Outgoing {
  std::uint32_t destination = 0;
  std::uint64_t first_slot = 0;
  DeviceArray<std::uint32_t> locals;
  DeviceArray<double> buffer;
};

struct DevicePart {
  int device = 0;
  cudaStream_t stream = nullptr;
  std::uint64_t own = 0, columns = 0;
  DeviceArray<std::uint64_t> row_group_starts{0}, row_starts{0};
  DeviceArray<std::uint32_t> local_columns{0};
  DeviceArray<double> values{0}, b{0};
  std::array<DeviceArray<double>, 2> lower{DeviceArray<double>(0), DeviceArray<double>(0)};
  std::array<DeviceArray<double>, 2> upper{DeviceArray<double>(0), DeviceArray<double>(0)};
  DeviceArray<unsigned long long> measure{DeviceArray<unsigned long long>(0)};
  DeviceArray<unsigned> flags{DeviceArray<unsigned>(0)};
  std::vector<Outgoing> outgoing;

  PartView view() const {
    return {own, row_group_starts.get(), {row_starts.get(), local_columns.get(), values.get(), b.get()}};
  }
};

class DevicePartitionedSweeps final : public PartitionedDeviceSweeps {
 public:
  DevicePartitionedSweeps(const std::vector<PartArrays>& parts, const std::vector<std::vector<PartBlock>>& blocks,
                          bool with_upper, int devices)
      : with_upper_(with_upper) {
    const KeepCurrentDevice keep;
    parts_.reserve(parts.size());
    for (std::size_t p = 0; p < parts.size(); ++p) parts_.push_back(upload(parts[p], static_cast<int>(p) % devices));
    for (std::size_t p = 0; p < parts.size(); ++p) {
      for (const PartBlock& block : blocks[p]) {
        DevicePart& source = parts_[block.source_part];
        check(cudaSetDevice(source.device), "cudaSetDevice");
        Outgoing out{static_cast<std::uint32_t>(p), block.first_slot, DeviceArray<std::uint32_t>(block.source_locals, block.count),
                     DeviceArray<double>(block.count)};
        source.outgoing.push_back(std::move(out));
        detail::enable_peer_access(source.device, parts_[p].device);
      }
    }
    wait_all();
  }

  ~DevicePartitionedSweeps() override {
    const KeepCurrentDevice keep;
    for (DevicePart& part : parts_) {
      cudaSetDevice(part.device);
      if (part.stream) cudaStreamDestroy(part.stream);
    }
  }

  void load(std::uint32_t p, const double* lower, const double* upper) override {
    const KeepCurrentDevice keep;
    DevicePart& part = parts_[p];
    check(cudaSetDevice(part.device), "cudaSetDevice");
    for (int i = 0; i < 2; ++i) {
      part.lower[i].upload(lower, part.columns, part.stream);
      if (with_upper_ && upper) part.upper[i].upload(upper, part.columns, part.stream);
    }
    check(cudaStreamSynchronize(part.stream), "loading a part's iterates");
  }

  double sweep_lower(bool maximize, bool relative) override {
    const KeepCurrentDevice keep;
    for (DevicePart& part : parts_) {
      begin_measure(part);
      if (part.own == 0) continue;
      const LowerKernel kernel = lower_kernel_for(maximize, relative);
      kernel<<<blocks_for(part.own), kBlockSize, 0, part.stream>>>(part.view(), part.lower[lower_].get(),
                                                                   part.lower[1 - lower_].get(), part.measure.get());
      check(cudaGetLastError(), "a part's sweep");
    }
    lower_ = 1 - lower_;
    exchange(true);
    double largest = 0.0;
    for (const DevicePart& part : parts_) largest = std::max(largest, measured(part));
    return largest;
  }

  PartsIntervalSweep sweep_both(bool maximize, bool relative) override {
    const KeepCurrentDevice keep;
    for (DevicePart& part : parts_) {
      begin_measure(part);
      if (part.own == 0) continue;
      const BothKernel kernel = both_kernel_for(maximize, relative);
      kernel<<<blocks_for(part.own), kBlockSize, 0, part.stream>>>(
          part.view(), part.lower[lower_].get(), part.upper[upper_].get(), part.lower[1 - lower_].get(),
          part.upper[1 - upper_].get(), part.measure.get(), part.flags.get());
      check(cudaGetLastError(), "a part's interval sweep");
    }
    lower_ = 1 - lower_;
    upper_ = 1 - upper_;
    exchange(true);
    exchange(false);
    PartsIntervalSweep all;
    for (const DevicePart& part : parts_) {
      all.width = std::max(all.width, measured(part));
      const unsigned flags = detail::read_from_device(part.flags.get(), "a part's flags");
      all.upper_raised = all.upper_raised || (flags & kRaised);
      all.crossed = all.crossed || (flags & kCrossed);
    }
    return all;
  }

  void keep_lower_in_upper() override {
    const KeepCurrentDevice keep;
    for (DevicePart& part : parts_) {  // own values only: the halo's upper values outside the range are final
      if (part.own == 0) continue;
      check(cudaSetDevice(part.device), "cudaSetDevice");
      check(cudaMemcpyAsync(part.upper[upper_].get(), part.lower[lower_].get(), part.own * sizeof(double),
                            cudaMemcpyDeviceToDevice, part.stream),
            "keeping the lower iterate");
    }
    wait_all();
  }

  void guess_upper(double target, const GuessParameters& guess) override {
    const KeepCurrentDevice keep;
    for (DevicePart& part : parts_) {
      if (part.own == 0) continue;
      check(cudaSetDevice(part.device), "cudaSetDevice");
      guess_kernel<<<blocks_for(part.own), kBlockSize, 0, part.stream>>>(part.own, part.lower[lower_].get(),
                                                                         part.upper[upper_].get(), target, guess);
      check(cudaGetLastError(), "a part's guess");
    }
    wait_all();
    exchange(false);
  }

  void fill_upper(double bound) override {
    const KeepCurrentDevice keep;
    for (DevicePart& part : parts_) {
      if (part.own == 0) continue;
      check(cudaSetDevice(part.device), "cudaSetDevice");
      fill_kernel<<<blocks_for(part.own), kBlockSize, 0, part.stream>>>(part.own, bound, part.upper[upper_].get());
      check(cudaGetLastError(), "a part's fill");
    }
    exchange(false);
  }

  void read_own(std::uint32_t p, double* lower, double* upper) override {
    const KeepCurrentDevice keep;
    DevicePart& part = parts_[p];
    check(cudaSetDevice(part.device), "cudaSetDevice");
    part.lower[lower_].download(lower, part.own, part.stream);
    copy_buffer(part, part.lower[1 - lower_], part.lower[lower_]);
    if (with_upper_) {
      if (upper) part.upper[upper_].download(upper, part.own, part.stream);
      copy_buffer(part, part.upper[1 - upper_], part.upper[upper_]);
    }
    check(cudaStreamSynchronize(part.stream), "reading a part's values");
  }

 private:
  DevicePart upload(const PartArrays& a, int device) {
    check(cudaSetDevice(device), "cudaSetDevice");
    DevicePart part;
    part.device = device;
    check(cudaStreamCreateWithFlags(&part.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    part.own = a.own;
    part.columns = a.own + a.halo;
    const std::uint64_t rows = a.row_group_starts[a.own], entries = a.row_starts[rows];
    part.row_group_starts = DeviceArray<std::uint64_t>(a.row_group_starts, a.own + 1);
    part.row_starts = DeviceArray<std::uint64_t>(a.row_starts, rows + 1);
    part.local_columns = DeviceArray<std::uint32_t>(a.columns, entries);
    part.values = DeviceArray<double>(a.values, entries);
    part.b = DeviceArray<double>(a.b, rows);
    for (int i = 0; i < 2; ++i) {
      part.lower[i] = DeviceArray<double>(part.columns);
      if (with_upper_) part.upper[i] = DeviceArray<double>(part.columns);
    }
    part.measure = DeviceArray<unsigned long long>(1);
    part.flags = DeviceArray<unsigned>(1);
    return part;
  }


  static void begin_measure(DevicePart& part) {
    check(cudaSetDevice(part.device), "cudaSetDevice");
    check(cudaMemsetAsync(part.measure.get(), 0, sizeof(unsigned long long), part.stream), "cudaMemset");
    check(cudaMemsetAsync(part.flags.get(), 0, sizeof(unsigned), part.stream), "cudaMemset");
  }

  double measured(const DevicePart& part) const {
    const unsigned long long bits = detail::read_from_device(part.measure.get(), "a part's measure");
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }

  static void copy_buffer(DevicePart& part, DeviceArray<double>& to, const DeviceArray<double>& from) {
    if (part.columns == 0) return;
    check(cudaMemcpyAsync(to.get(), from.get(), part.columns * sizeof(double), cudaMemcpyDeviceToDevice, part.stream),
          "copying an iterate");
  }

  // Every part's outgoing blocks of the current lower (or upper) iterate, gathered on
  // its device and copied into the receivers' halos; then every stream waited for.
  void exchange(bool lower) {
    for (DevicePart& source : parts_) {
      check(cudaSetDevice(source.device), "cudaSetDevice");
      const double* own = lower ? source.lower[lower_].get() : source.upper[upper_].get();
      for (Outgoing& out : source.outgoing) {
        const std::uint64_t count = out.locals.size();
        gather_kernel<<<blocks_for(count), kBlockSize, 0, source.stream>>>(count, out.locals.get(), own, out.buffer.get());
        DevicePart& to = parts_[out.destination];
        double* halo = (lower ? to.lower[lower_].get() : to.upper[upper_].get()) + to.own + out.first_slot;
        check(cudaMemcpyPeerAsync(halo, to.device, out.buffer.get(), source.device, count * sizeof(double), source.stream),
              "a halo exchange");
      }
    }
    wait_all();
  }

  void wait_all() {
    for (DevicePart& part : parts_) {
      check(cudaSetDevice(part.device), "cudaSetDevice");
      check(cudaStreamSynchronize(part.stream), "a sweep of the parts");
    }
  }

  bool with_upper_;
  std::vector<DevicePart> parts_;
  int lower_ = 0, upper_ = 0;  // the current buffer of each iterate
};

}  // namespace

int usable_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

std::unique_ptr<PartitionedDeviceSweeps> open_partitioned_sweeps(const std::vector<PartArrays>& parts,
                                                                 const std::vector<std::vector<PartBlock>>& blocks,
                                                                 bool with_upper) {
  const int devices = usable_device_count();
  if (devices == 0) throw DeviceError("no CUDA device for the parts of an SCC");
  return std::make_unique<DevicePartitionedSweeps>(parts, blocks, with_upper, devices);
}

}  // namespace mdpvi::gpu
