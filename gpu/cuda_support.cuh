#pragma once
// What the CUDA translation units of gpu/ share: error checks, owned device arrays,
// the resident matrix, the block size and the choice of kernel instances. Internal to gpu/.
#include "gpu/allocation_faults.h"
#include "gpu/device_solver.h"
#include "gpu/host_copies.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace mdpvi::gpu::detail {

inline void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // clear it, so that the CPU fallback starts clean
  std::string message = std::string("CUDA error in ") + what + ": " + cudaGetErrorString(status);
  if (status == cudaErrorMemoryAllocation) throw OutOfDeviceMemory(message);
  throw DeviceError(message);
}

// Makes device the calling thread's current one while the scope lives, then the one
// before again: a solver bound to one device may be called from any thread.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    check(cudaGetDevice(&previous_), "cudaGetDevice");
    changed_ = previous_ != device;
    if (changed_) check(cudaSetDevice(device), "cudaSetDevice");
  }
  ~DeviceScope() {
    if (changed_) cudaSetDevice(previous_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
  bool changed_ = false;
};

// Lets from read and write to's memory directly (NVLink or PCIe), where the two can;
// elsewhere copies between them go through the host. Leaves from current.
// The current device's memory in use by every process and context (total less free).
inline std::size_t memory_in_use() {
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  return total_bytes - free_bytes;
}

inline void enable_peer_access(int from, int to) {
  if (from == to) return;
  int can = 0;
  if (cudaDeviceCanAccessPeer(&can, from, to) == cudaSuccess && can) {
    check(cudaSetDevice(from), "cudaSetDevice");
    const cudaError_t status = cudaDeviceEnablePeerAccess(to, 0);
    if (status != cudaSuccess && status != cudaErrorPeerAccessAlreadyEnabled) check(status, "peer access");
    cudaGetLastError();
  }
}

// Owns one device allocation.
template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t count) : count_(count) {
    if (count == 0) return;
    count_device_allocation();
    check(cudaMalloc(&data_, count * sizeof(T)), "cudaMalloc");
  }
  DeviceArray(const T* host, std::size_t count) : DeviceArray(count) { upload(host, count); }
  ~DeviceArray() {
    if (data_) cudaFree(data_);
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& other) noexcept : data_(std::exchange(other.data_, nullptr)), count_(other.count_) {}
  DeviceArray& operator=(DeviceArray&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    return *this;
  }

  void upload(const T* host, std::size_t count, cudaStream_t stream = 0) {
    if (count > 0) check(cudaMemcpyAsync(data_, host, count * sizeof(T), cudaMemcpyHostToDevice, stream), "upload");
  }
  // Large pageable arrays through locked pieces: done at uploads.finish().
  void upload(const T* host, std::size_t count, HostCopies& uploads) { uploads.to_device(data_, host, count * sizeof(T)); }
  void download(T* host, std::size_t count, cudaStream_t stream) const {
    if (count > 0) check(cudaMemcpyAsync(host, data_, count * sizeof(T), cudaMemcpyDeviceToHost, stream), "download");
  }
  T* get() const { return data_; }
  std::size_t size() const { return count_; }

 private:
  T* data_ = nullptr;
  std::size_t count_;
};

// One value from device memory to the host (a count, an offset, a flag), waited for:
// after the work before it on the stream (the default: after all the device's work on
// blocking streams).
template <typename T>
T read_from_device(const T* d_value, const char* what, cudaStream_t stream = 0) {
  T value{};
  if (stream == 0) {
    check(cudaMemcpy(&value, d_value, sizeof(T), cudaMemcpyDeviceToHost), what);
  } else {
    check(cudaMemcpyAsync(&value, d_value, sizeof(T), cudaMemcpyDeviceToHost, stream), what);
    check(cudaStreamSynchronize(stream), what);
  }
  return value;
}

constexpr int kBlockSize = 256;

// Per-entry numbers on the device as gpu/device_solver.h's ValuesView has them on
// the host: plain, or indices into a table (read through the cache: a few entries).
// The form is the same for every entry, so the switch is uniform across a warp.
struct DeviceValues {
  const double* __restrict__ d_plain = nullptr;
  const std::uint8_t* __restrict__ d_indices = nullptr;
  const double* __restrict__ d_table = nullptr;
  unsigned index_bytes = 0;

  __host__ __device__ bool empty() const { return d_plain == nullptr && d_indices == nullptr; }
  __device__ double operator[](std::uint64_t k) const {
    if (index_bytes == 0) return d_plain[k];
    if (index_bytes == 1) return __ldg(d_table + d_indices[k]);
    return __ldg(d_table + reinterpret_cast<const std::uint16_t*>(d_indices)[k]);
  }
};

// Where the system's values go: plain doubles, or the source's indices copied
// (a system built from the model's rows, a chunk cut from the system's).
struct ValueSink {
  double* d_plain;
  std::uint8_t* d_indices;
  unsigned index_bytes;

  __device__ void copy(const DeviceValues& source, std::uint64_t from, std::uint64_t to) const {
    if (index_bytes == 0) {
      d_plain[to] = source[from];
    } else if (index_bytes == 1) {
      d_indices[to] = source.d_indices[from];
    } else {
      reinterpret_cast<std::uint16_t*>(d_indices)[to] = reinterpret_cast<const std::uint16_t*>(source.d_indices)[from];
    }
  }
};

// Owns the device arrays of a DeviceValues: the plain array, or the indices and the table.
class DeviceValueArray {
 public:
  DeviceValueArray() = default;
  // count entries of the form of `form` (its pointers are not read), unfilled.
  DeviceValueArray(std::size_t count, const ValuesView& form)
      : plain_(form.index_bytes == 0 ? count : 0),
        indices_(form.index_bytes == 0 ? 0 : count * form.index_bytes),
        table_(form.index_bytes == 0 ? 0 : form.table_size),
        index_bytes_(form.index_bytes) {}
  // Large pageable arrays through locked pieces: done at uploads.finish().
  void upload(const ValuesView& host, std::size_t count, HostCopies& uploads) {
    if (index_bytes_ == 0) {
      plain_.upload(host.plain, count, uploads);
    } else {
      indices_.upload(host.indices, count * index_bytes_, uploads);
      table_.upload(host.table, host.table_size, uploads);
    }
  }
  DeviceValues view() const { return {plain_.get(), indices_.get(), table_.get(), index_bytes_}; }
  // count values as doubles into host (through the table where indexed, as the
  // sweeps read them), on the default stream, waited for.
  void download_expanded(double* host, std::size_t count) const {
    if (index_bytes_ == 0) {
      plain_.download(host, count, 0);
    } else if (index_bytes_ == 1) {
      expand<std::uint8_t>(host, count);
    } else {
      expand<std::uint16_t>(host, count);
    }
    check(cudaStreamSynchronize(0), "downloading values");
  }
  bool allocated() const { return plain_.get() || indices_.get(); }
  std::size_t bytes() const { return plain_.size() * sizeof(double) + indices_.size() + table_.size() * sizeof(double); }
  unsigned index_bytes() const { return index_bytes_; }
  std::size_t table_size() const { return table_.size(); }
  const DeviceArray<std::uint8_t>& indices() const { return indices_; }
  const DeviceArray<double>& table() const { return table_; }
  const DeviceArray<double>& plain() const { return plain_; }

 private:
  template <typename Index>
  void expand(double* host, std::size_t count) const {
    std::vector<Index> indices(count);
    std::vector<double> table(table_.size());
    indices_.download(reinterpret_cast<std::uint8_t*>(indices.data()), count * sizeof(Index), 0);
    table_.download(table.data(), table.size(), 0);
    check(cudaStreamSynchronize(0), "downloading values");
    for (std::size_t k = 0; k < count; ++k) host[k] = table[indices[k]];
  }

  DeviceArray<double> plain_{0};
  DeviceArray<std::uint8_t> indices_{0};
  DeviceArray<double> table_{0};
  unsigned index_bytes_ = 0;
};

// The resident model's offsets (its row groups' first rows, its rows' first entries):
// 4 bytes each where what they count is fewer than 2^32, else 8 (the one that is set).
// A branch per read, the same in every thread.
struct RowOffsets {
  const std::uint64_t* __restrict__ wide = nullptr;
  const std::uint32_t* __restrict__ narrow = nullptr;

  __device__ std::uint64_t operator[](std::uint64_t r) const { return narrow ? narrow[r] : wide[r]; }
};

// The states a kernel updates: [first, end) of the chunk's.
struct Window {
  std::uint64_t first, end;
};

// What a maybe-state system's b is made of (gpu/graph_search.h's SystemInputs): per
// row, the state's and the choice's rewards, then P times the value of each state
// outside the system: marked_value on d_marked's states, unmarked_value elsewhere.
// Summed without fused multiply-adds, as the host's build sums it.
struct RowConstants {
  DeviceValues model_values;           // per entry
  const unsigned long long* d_marked;  // per model state
  double marked_value, unmarked_value;
  DeviceValues state_rewards;   // per model state, or none (no array)
  DeviceValues choice_rewards;  // per row, or none

  __device__ double reward(std::uint64_t state, std::uint64_t row) const {
    return __dadd_rn(state_rewards.empty() ? 0.0 : state_rewards[state], choice_rewards.empty() ? 0.0 : choice_rewards[row]);
  }
  __device__ double outside_value(std::uint32_t state) const {
    return (d_marked[state / 64] >> (state % 64)) & 1ull ? marked_value : unmarked_value;
  }
  // constant plus an entry of probability p into state outside the system, rounded as
  // the host's build rounds it (the build and a view's sweep both add it so).
  __device__ double plus_outside(double constant, double p, std::uint32_t state) const {
    return __dadd_rn(constant, __dmul_rn(p, outside_value(state)));
  }
};

// A view's local index of a model state that is not in its chunk.
constexpr std::uint32_t kOutsideChunk = 0xFFFFFFFFu;

// A chunk's matrix on the device, as the kernels read it (b is passed beside it:
// interval iteration has two).
// Or a view over the resident model (gpu/device_system.h's SystemStorage::view): local
// state s is model state d_order[s], whose rows are the model's (their offsets
// view_row_starts, the model's width); an entry's column is
// the model's, local through d_local (kOutsideChunk: outside the chunk, its value a
// part of b); and b is made per row from `constants`, a row whose b is +infinity left out
// (the state's value is +infinity where every row is), as the system's build leaves it out.
struct DeviceChunk {
  std::uint64_t num_states;
  RowOffsets d_row_group_starts;  // a chunk's own: wide; a view's: the resident graph's
  const std::uint64_t* __restrict__ d_row_starts;
  const std::uint32_t* __restrict__ d_columns;
  DeviceValues values;
  const std::uint32_t* __restrict__ d_order = nullptr;
  const std::uint32_t* __restrict__ d_local = nullptr;
  RowConstants constants{};
  RowOffsets view_row_starts{};

  __host__ __device__ bool is_view() const { return d_local != nullptr; }
  __device__ std::uint64_t model_state(std::uint64_t s) const { return d_order ? d_order[s] : s; }
};

// A chunk's matrix on the device: allocated when made, filled by upload.
class DeviceMatrix {
 public:
  explicit DeviceMatrix(const ChunkMatrix& c)
      : states_(c.num_states),
        rows_(c.num_rows),
        d_row_group_starts_(c.num_states + 1),
        d_row_starts_(c.num_rows + 1),
        d_columns_(c.num_entries),
        d_values_(c.num_entries, c.values) {}
  // Arrays already on the device (an adopted system, gpu/device_system.h); c gives their sizes.
  DeviceMatrix(const ChunkMatrix& c, DeviceArray<std::uint64_t>&& row_group_starts, DeviceArray<std::uint64_t>&& row_starts,
               DeviceArray<std::uint32_t>&& columns, DeviceValueArray&& values)
      : states_(c.num_states),
        rows_(c.num_rows),
        d_row_group_starts_(std::move(row_group_starts)),
        d_row_starts_(std::move(row_starts)),
        d_columns_(std::move(columns)),
        d_values_(std::move(values)) {}
  // A view over the resident model (an adopted system stored as one): c gives the
  // model's rows and entries that its sweeps read; `arrays` keeps the view's own.
  DeviceMatrix(const ChunkMatrix& c, const DeviceChunk& view, std::shared_ptr<const void> arrays)
      : states_(c.num_states),
        rows_(c.num_rows),
        d_row_group_starts_(0),
        d_row_starts_(0),
        d_columns_(0),
        view_(view),
        view_arrays_(std::move(arrays)) {}
  // Pageable arrays (the system's own) are locked piece by piece and waited for;
  // pinned ones copy asynchronously on the stream.
  void upload(const ChunkMatrix& c, cudaStream_t stream) {
    HostCopies uploads(stream);
    d_row_group_starts_.upload(c.row_group_starts, c.num_states + 1, uploads);
    d_row_starts_.upload(c.row_starts, c.num_rows + 1, uploads);
    d_columns_.upload(c.columns, c.num_entries, uploads);
    d_values_.upload(c.values, c.num_entries, uploads);
    uploads.finish();
  }
  // The arrays of a matrix made with its sizes alone (empty arrays), once they are
  // ready: a chunk cut on the device, on its copy's thread, while the caller reads
  // only the sizes.
  void take_arrays(DeviceArray<std::uint64_t>&& row_group_starts, DeviceArray<std::uint64_t>&& row_starts,
                   DeviceArray<std::uint32_t>&& columns, DeviceValueArray&& values) {
    d_row_group_starts_ = std::move(row_group_starts);
    d_row_starts_ = std::move(row_starts);
    d_columns_ = std::move(columns);
    d_values_ = std::move(values);
  }
  DeviceChunk view() const {
    if (is_view()) return view_;
    return {states_, RowOffsets{d_row_group_starts_.get()}, d_row_starts_.get(), d_columns_.get(), d_values_.view()};
  }
  bool is_view() const { return view_arrays_ != nullptr; }
  std::uint64_t num_states() const { return states_; }
  std::uint64_t num_rows() const { return rows_; }

 private:
  std::uint64_t states_, rows_;
  DeviceArray<std::uint64_t> d_row_group_starts_, d_row_starts_;
  DeviceArray<std::uint32_t> d_columns_;
  DeviceValueArray d_values_;
  DeviceChunk view_{};
  std::shared_ptr<const void> view_arrays_;
};

// Blocks for a sweep: enough to fill the device, few enough that the atomics stay cheap.
inline unsigned sweep_blocks(std::uint64_t states, int group_size, int sm_count) {
  std::uint64_t threads = states * static_cast<std::uint64_t>(group_size);
  std::uint64_t blocks = (threads + kBlockSize - 1) / kBlockSize;
  return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(blocks, static_cast<std::uint64_t>(sm_count) * 8)));
}

inline int multiprocessor_count() {
  int device = 0, count = 1;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  return count;
}

// Threads the whole device holds at once.
inline std::uint64_t concurrent_threads() {
  int device = 0, per_sm = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device), "cudaDeviceGetAttribute");
  return static_cast<std::uint64_t>(per_sm) * static_cast<std::uint64_t>(multiprocessor_count());
}

// The one place where a runtime group size becomes a template parameter: calls
// pick(std::integral_constant<int, G>{}) for G = group_size.
template <typename Pick>
auto for_group_size(int group_size, Pick pick) {
  switch (group_size) {
    case 1: return pick(std::integral_constant<int, 1>{});
    case 2: return pick(std::integral_constant<int, 2>{});
    case 4: return pick(std::integral_constant<int, 4>{});
    case 8: return pick(std::integral_constant<int, 8>{});
    case 16: return pick(std::integral_constant<int, 16>{});
    case 32: return pick(std::integral_constant<int, 32>{});
    default: throw std::invalid_argument("group size must be 1, 2, 4, 8, 16 or 32, found " + std::to_string(group_size));
  }
}

// pick(std::true_type{}) or pick(std::false_type{}), as flag says.
template <typename Pick>
auto for_flag(bool flag, Pick pick) {
  return flag ? pick(std::true_type{}) : pick(std::false_type{});
}

// A kernel instance for run-time settings: Kernels::get<G, maximize, relative,
// over_rows, view>() for G = shape.lanes (Kernels names one kernel template; its get
// returns a pointer to the instance). One lane has no rows to share: over_rows is
// moot there. view: the chunk is a view (DeviceChunk::is_view), whose sweeps are
// instances of their own, so that a copy's read no more than they did.
template <typename Kernels>
auto kernel_variant(GroupShape shape, bool maximize, bool relative, bool view) {
  return for_group_size(shape.lanes, [&](auto g) {
    constexpr int G = decltype(g)::value;
    return for_flag(shape.over_rows, [&](auto over_rows) {
      constexpr bool R = decltype(over_rows)::value && G > 1;
      return for_flag(view, [&](auto as_view) {
        constexpr bool V = decltype(as_view)::value;
        if (maximize) {
          return relative ? Kernels::template get<G, true, true, R, V>() : Kernels::template get<G, true, false, R, V>();
        }
        return relative ? Kernels::template get<G, false, true, R, V>() : Kernels::template get<G, false, false, R, V>();
      });
    });
  });
}

}  // namespace mdpvi::gpu::detail
