// Compiled without fused multiply-adds (gpu/CMakeLists.txt): the leaving probabilities
// and the embedded system's entries are the host's bits.
#include "gpu/resident_chain.h"

#include "gpu/cuda_support.cuh"
#include "gpu/graph_device.cuh"
#include "gpu/host_copies.cuh"
#include "gpu/krylov.cuh"
#include "gpu/offsets_upload.cuh"
#include "gpu/stationary_sweeps.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <chrono>
#include <limits>

namespace mdpvi::gpu {

namespace {

using detail::ChainOnDevice;
using detail::check;
using detail::DeviceArray;
using detail::DeviceValueArray;
using detail::DeviceValues;
using detail::grid_for;
using detail::grid_stride;
using detail::HostCopies;
using detail::kBlockSize;
using detail::RowOffsets;
using detail::thread_index;
using detail::with_temp_storage;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// ---- the transpose: the entries sorted by column, stably, so that each state's
// entries come by source ascending (the host's order) ----

__global__ void count_columns(const std::uint32_t* columns, std::uint64_t entries, unsigned long long* counts) {
  for (std::uint64_t e = thread_index(); e < entries; e += grid_stride()) atomicAdd(counts + columns[e] + 1, 1ull);
}

// Each entry's row (its source state) and its own index, the sort's values.
__global__ void rows_and_indices(RowOffsets starts, std::uint64_t states, std::uint32_t* rows_of,
                                 std::uint32_t* indices) {
  for (std::uint64_t r = thread_index(); r < states; r += grid_stride()) {
    for (std::uint64_t e = starts[r]; e < starts[r + 1]; ++e) {
      rows_of[e] = static_cast<std::uint32_t>(r);
      indices[e] = static_cast<std::uint32_t>(e);
    }
  }
}

__global__ void gather_sources(std::uint64_t entries, const std::uint32_t* sorted_indices, const std::uint32_t* rows_of,
                               DeviceValues values, std::uint32_t* from, double* probabilities) {
  for (std::uint64_t e = thread_index(); e < entries; e += grid_stride()) {
    const std::uint32_t k = sorted_indices[e];
    from[e] = rows_of[k];
    probabilities[e] = values[k];
  }
}

__global__ void leaving_kernel(ChainOnDevice c, double* leaving) {
  for (std::uint64_t i = thread_index(); i < c.n; i += grid_stride()) {
    double left = 1.0;
    for (std::uint64_t e = c.starts[i]; e < c.starts[i + 1]; ++e) {
      if (c.from[e] == i) left -= c.probabilities[e];
    }
    leaving[i] = left;
  }
}

// ---- the embedded system relative to a reference (bottom_chain.h's embedded_system) ----

__device__ std::uint64_t unknown_of(std::uint64_t i, std::uint64_t reference) { return i < reference ? i : i - 1; }

// starts[unknown(i)]: state i's entries from states other than the reference and itself.
__global__ void embedded_counts(ChainOnDevice c, std::uint64_t reference, std::uint64_t* starts) {
  for (std::uint64_t i = thread_index(); i < c.n; i += grid_stride()) {
    if (i == reference) continue;
    std::uint64_t kept = 0;
    for (std::uint64_t e = c.starts[i]; e < c.starts[i + 1]; ++e) kept += c.from[e] != reference && c.from[e] != i;
    starts[unknown_of(i, reference)] = kept;
  }
}

__global__ void embedded_fill(ChainOnDevice c, std::uint64_t reference, const std::uint64_t* starts,
                              std::uint32_t* columns, double* values, double* constants) {
  for (std::uint64_t i = thread_index(); i < c.n; i += grid_stride()) {
    if (i == reference) continue;
    const std::uint64_t row = unknown_of(i, reference);
    std::uint64_t at = starts[row];
    double constant = 0.0;
    for (std::uint64_t e = c.starts[i]; e < c.starts[i + 1]; ++e) {
      const std::uint32_t j = c.from[e];
      if (j == i) continue;
      const double embedded = c.probabilities[e] / c.leaving[j];
      if (j == reference) {
        constant += embedded;
      } else {
        columns[at] = static_cast<std::uint32_t>(unknown_of(j, reference));
        values[at++] = embedded;
      }
    }
    constants[row] = constant;
  }
}

// Device bytes, each part counted once for the budget's check and the peak's report.
// The chain: starts, sources and probabilities, leaving.
std::size_t chain_bytes(std::uint64_t states, std::uint64_t entries) {
  return (states + 1) * 8 + entries * 12 + states * 8;
}
// The transpose's working arrays beside it: the sort's keys and indices (both buffers),
// each entry's row, the values (at most plain), the rows' starts.
std::size_t transpose_bytes(std::uint64_t states, std::uint64_t entries) {
  return entries * (5 * 4 + 8) + (states + 1) * 8;
}
// An embedded system of these rows and entries: starts, columns and values, constants.
std::size_t system_bytes(std::uint64_t rows, std::uint64_t entries) {
  return (rows + 1) * 8 + entries * 12 + rows * 8;
}
// BiCGStab's vectors over these rows: krylov.cu's eight.
std::size_t krylov_bytes(std::uint64_t rows) { return 8 * rows * sizeof(double); }

// The sort's arrays: keys (the columns) and values (entry indices), double-buffered.
struct SortBuffers {
  DeviceArray<std::uint32_t> keys[2], indices[2];
  explicit SortBuffers(std::uint64_t entries)
      : keys{DeviceArray<std::uint32_t>(entries), DeviceArray<std::uint32_t>(entries)},
        indices{DeviceArray<std::uint32_t>(entries), DeviceArray<std::uint32_t>(entries)} {}
};

class CudaResidentChain final : public ResidentChain {
 public:
  explicit CudaResidentChain(const ChainRows& rows)
      : n_(rows.states), entries_(rows.states == 0 ? 0 : rows.starts->back()), starts_(n_ + 1), from_(entries_),
        probabilities_(entries_), d_leaving_(n_), sm_count_(detail::multiprocessor_count()) {
    if (entries_ >= std::numeric_limits<std::uint32_t>::max()) {
      throw DeviceError("the chain's " + std::to_string(entries_) +
                        " entries exceed the device transpose's 4-byte indices");
    }
    peak_ = resident_bytes();
    transpose(rows);
    leaving_.resize(n_);
    d_leaving_.download(leaving_.data(), n_, 0);
    check(cudaStreamSynchronize(0), "downloading the leaving probabilities");
  }

  const std::vector<double>& leaving() const override { return leaving_; }

  PowerSweeps lazy_power_sweeps(std::uint64_t max_sweeps, std::uint64_t block_states,
                                const std::function<bool(double)>& after_sweep) override {
    return sweeps(max_sweeps, block_states, after_sweep, detail::SweepsEnd::mass);
  }
  PowerSweeps likeliest_after_sweeps(std::uint64_t max_sweeps, std::uint64_t block_states,
                                     const std::function<bool(double)>& after_sweep) override {
    return sweeps(max_sweeps, block_states, after_sweep, detail::SweepsEnd::likeliest);
  }

  KrylovChunkStats solve_embedded(std::uint64_t reference, const KrylovLimits& limits, double* y) override {
    const EmbeddedSystem system = build_embedded(reference);
    // BiCGStab's vectors: krylov.cu's eight, with its partial sums.
    peak_ =
        std::max(peak_, resident_bytes() + system_bytes(system.rows, system.entries) + krylov_bytes(system.rows));
    const detail::DeviceRows rows{system.rows, system.starts.get(), system.columns.get(),
                                  DeviceValues{system.values.get(), nullptr, nullptr, 0}};
    const KrylovChunkStats solved = detail::solve_rows_on_device(rows, 0, system.constants.get(), limits, y);
    solve_in_use_ = detail::memory_in_use();
    return solved;
  }

  HostSystemArrays download_embedded(std::uint64_t reference) const override {
    const EmbeddedSystem system = build_embedded(reference);
    HostSystemArrays host;
    host.row_starts.resize(system.rows + 1);
    host.columns.resize(system.entries);
    host.values.resize(system.entries);
    host.row_constants.resize(system.rows);
    system.starts.download(host.row_starts.data(), system.rows + 1, 0);
    system.columns.download(host.columns.data(), system.entries, 0);
    system.values.download(host.values.data(), system.entries, 0);
    system.constants.download(host.row_constants.data(), system.rows, 0);
    check(cudaStreamSynchronize(0), "downloading the embedded system");
    return host;
  }

  double upload_s() const override { return upload_s_; }
  double transpose_s() const override { return transpose_s_; }
  std::size_t peak_bytes() const override { return peak_; }
  std::size_t solve_in_use_bytes() const override { return solve_in_use_; }
  std::uint64_t entries() const override { return entries_; }

 private:
  PowerSweeps sweeps(std::uint64_t max_sweeps, std::uint64_t block_states,
                     const std::function<bool(double)>& after_sweep, detail::SweepsEnd end) {
    PowerSweeps out;
    out.device_bytes = resident_bytes();
    detail::run_power_sweeps(view(), max_sweeps, block_states, after_sweep, end, out);
    peak_ = std::max(peak_, out.device_bytes);
    return out;
  }

  ChainOnDevice view() const { return {n_, starts_.get(), from_.get(), probabilities_.get(), d_leaving_.get()}; }

  // The embedded system relative to reference: one row a state but the reference.
  struct EmbeddedSystem {
    std::uint64_t rows, entries = 0;
    DeviceArray<std::uint64_t> starts;  // rows + 1
    DeviceArray<std::uint32_t> columns{0};
    DeviceArray<double> values{0}, constants;
    explicit EmbeddedSystem(std::uint64_t n) : rows(n - 1), starts(n), constants(n - 1) {}
  };
  EmbeddedSystem build_embedded(std::uint64_t reference) const {
    EmbeddedSystem system(n_);
    const unsigned grid = grid_for(n_, sm_count_);
    check(cudaMemset(system.starts.get(), 0, n_ * sizeof(std::uint64_t)), "cudaMemset");
    embedded_counts<<<grid, kBlockSize>>>(view(), reference, system.starts.get());
    check(cudaGetLastError(), "counting the embedded system's entries");
    with_temp_storage("the embedded system's row starts", [&](void* temp, std::size_t& bytes) {
      return cub::DeviceScan::ExclusiveSum(temp, bytes, system.starts.get(), system.starts.get(),
                                           static_cast<std::int64_t>(n_));
    });
    system.entries = detail::read_from_device(system.starts.get() + system.rows, "reading the embedded system's size");
    system.columns = DeviceArray<std::uint32_t>(system.entries);
    system.values = DeviceArray<double>(system.entries);
    embedded_fill<<<grid, kBlockSize>>>(view(), reference, system.starts.get(), system.columns.get(),
                                        system.values.get(), system.constants.get());
    check(cudaGetLastError(), "filling the embedded system");
    return system;
  }
  std::size_t resident_bytes() const { return chain_bytes(n_, entries_); }

  void transpose(const ChainRows& rows) {
    auto start = std::chrono::steady_clock::now();
    SortBuffers sort(entries_);
    DeviceArray<std::uint32_t> rows_of(entries_);
    DeviceValueArray values(entries_, rows.values);
    const bool narrow = rows.starts->fit_32_bits();
    DeviceArray<std::uint32_t> narrow_starts(0);
    DeviceArray<std::uint64_t> wide_starts(0);
    if (narrow) {
      narrow_starts = detail::upload_narrow(*rows.starts);
    } else {
      wide_starts = detail::upload_wide(*rows.starts, sm_count_);
    }
    {
      HostCopies copies(0);
      sort.keys[0].upload(rows.columns, entries_, copies);
      values.upload(rows.values, entries_, copies);
      copies.finish();
    }
    check(cudaDeviceSynchronize(), "uploading the chain's rows");
    upload_s_ = seconds_since(start);
    start = std::chrono::steady_clock::now();
    peak_ = std::max(peak_, resident_bytes() + transpose_bytes(n_, entries_));

    auto* counts = reinterpret_cast<unsigned long long*>(starts_.get());
    check(cudaMemset(counts, 0, (n_ + 1) * sizeof(std::uint64_t)), "cudaMemset");
    count_columns<<<grid_for(entries_, sm_count_), kBlockSize>>>(sort.keys[0].get(), entries_, counts);
    rows_and_indices<<<grid_for(n_, sm_count_), kBlockSize>>>(RowOffsets{wide_starts.get(), narrow_starts.get()}, n_,
                                                               rows_of.get(), sort.indices[0].get());
    check(cudaGetLastError(), "the transpose's counts");
    with_temp_storage("the transpose's starts", [&](void* temp, std::size_t& bytes) {
      return cub::DeviceScan::InclusiveSum(temp, bytes, counts, counts, static_cast<std::int64_t>(n_ + 1));
    });
    // A stable sort by column keeps each column's entries in row order: by source.
    cub::DoubleBuffer<std::uint32_t> keys(sort.keys[0].get(), sort.keys[1].get());
    cub::DoubleBuffer<std::uint32_t> indices(sort.indices[0].get(), sort.indices[1].get());
    int end_bit = 1;  // the bits of the largest column
    while (end_bit < 32 && ((n_ - 1) >> end_bit) != 0) ++end_bit;
    with_temp_storage("the transpose's sort", [&](void* temp, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, indices, static_cast<std::int64_t>(entries_), 0,
                                             end_bit);
    });
    gather_sources<<<grid_for(entries_, sm_count_), kBlockSize>>>(entries_, indices.Current(), rows_of.get(),
                                                                   values.view(), from_.get(), probabilities_.get());
    leaving_kernel<<<grid_for(n_, sm_count_), kBlockSize>>>(view(), d_leaving_.get());
    check(cudaGetLastError(), "the transpose");
    check(cudaDeviceSynchronize(), "transposing the chain");
    transpose_s_ = seconds_since(start);
  }

  std::uint64_t n_, entries_;
  DeviceArray<std::uint64_t> starts_;
  DeviceArray<std::uint32_t> from_;
  DeviceArray<double> probabilities_, d_leaving_;
  std::vector<double> leaving_;
  int sm_count_;
  double upload_s_ = 0.0, transpose_s_ = 0.0;
  std::size_t peak_ = 0, solve_in_use_ = 0;
};

// The most device memory a chain of these sizes and its steps hold at once.
std::size_t resident_chain_bytes(std::uint64_t states, std::uint64_t entries) {
  // The system at most: every entry kept, one row a state.
  const std::size_t solve = system_bytes(states, entries) + krylov_bytes(states);
  return chain_bytes(states, entries) + std::max(transpose_bytes(states, entries), solve) +
         (std::size_t{64} << 20);  // and the sort's and scans' scratch
}

}  // namespace

std::unique_ptr<ResidentChain> make_resident_chain(const ChainRows& rows, std::size_t budget_bytes) {
  const std::uint64_t entries = rows.states == 0 ? 0 : rows.starts->back();
  const std::size_t needed = resident_chain_bytes(rows.states, entries);
  if (needed > budget_bytes) {
    throw DeviceError("the chain resident on the device would take " + std::to_string(needed) + " bytes, over the " +
                      std::to_string(budget_bytes) + " allowed");
  }
  return std::make_unique<CudaResidentChain>(rows);
}

}  // namespace mdpvi::gpu
