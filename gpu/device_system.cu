// The maybe-state system built on the device (gpu/device_system.cuh): the local
// index of each state of the system, the rows and the entries kept per state and per row,
// their offsets by scans, then each state's slices filled. The same two passes as
// the host's build (engine/solve/maybe_system.cpp), so that both keep the same rows
// and entries in the same order, and b sums in the same order.
#include "gpu/device_system.cuh"

#include <cub/device/device_scan.cuh>

#include <limits>
#include <stdexcept>

namespace mdpvi::gpu::detail {

namespace {

constexpr std::uint32_t kOutside = std::numeric_limits<std::uint32_t>::max();

__global__ void number_locally(const std::uint32_t* d_order, std::uint32_t count, std::uint32_t* d_local) {
  for (std::uint64_t i = thread_index(); i < count; i += grid_stride()) d_local[d_order[i]] = static_cast<std::uint32_t>(i);
}

// The rows of model state s that the system keeps, emit(r, b) for each with its
// constant: the host's kept_rows (engine/solve/maybe_system.cpp), rounding alike (no
// fused multiply-add).
template <typename Emit>
__device__ void kept_rows(const DeviceGraph& g, const RowConstants& c, const std::uint32_t* d_local, std::uint32_t s,
                          Emit emit) {
  bool kept_any = false;
  const std::uint64_t end = g.d_row_group_starts[s + 1];
  for (std::uint64_t r = g.d_row_group_starts[s]; r < end; ++r) {
    double constant = __dadd_rn(c.state_rewards.empty() ? 0.0 : c.state_rewards[s], c.choice_rewards.empty() ? 0.0 : c.choice_rewards[r]);
    for (std::uint64_t k = g.d_row_starts[r]; k < g.d_row_starts[r + 1]; ++k) {
      const std::uint32_t t = g.d_columns[k];
      if (d_local[t] != kOutside) continue;
      const double outside = test_bit(c.d_marked, t) ? c.marked_value : c.unmarked_value;
      constant = __dadd_rn(constant, __dmul_rn(c.model_values[k], outside));
    }
    const bool last_chance = r + 1 == end && !kept_any;
    if (isinf(constant) && constant > 0 && !last_chance) continue;
    kept_any = true;
    emit(r, constant);
  }
}

// Per local state i: its kept rows into d_rows_of[i + 1] (d_rows_of[0] = 0 for the scan).
__global__ void count_rows(DeviceGraph g, RowConstants c, const std::uint32_t* d_order, std::uint32_t count,
                           const std::uint32_t* d_local, std::uint64_t* d_rows_of) {
  for (std::uint64_t i = thread_index(); i < count; i += grid_stride()) {
    std::uint64_t rows = 0;
    kept_rows(g, c, d_local, d_order[i], [&](std::uint64_t, double) { ++rows; });
    d_rows_of[i + 1] = rows;
    if (i == 0) d_rows_of[0] = 0;
  }
}

// Per kept row: its entries into the system's states, into d_entries_of[row + 1].
__global__ void count_entries(DeviceGraph g, RowConstants c, const std::uint32_t* d_order, std::uint32_t count,
                              const std::uint32_t* d_local, const std::uint64_t* d_rows_of,
                              std::uint64_t* d_entries_of) {
  for (std::uint64_t i = thread_index(); i < count; i += grid_stride()) {
    std::uint64_t row = d_rows_of[i];
    kept_rows(g, c, d_local, d_order[i], [&](std::uint64_t r, double) {
      std::uint64_t kept = 0;
      for (std::uint64_t k = g.d_row_starts[r]; k < g.d_row_starts[r + 1]; ++k) kept += d_local[g.d_columns[k]] != kOutside;
      d_entries_of[++row] = kept;
    });
    if (i == 0) d_entries_of[0] = 0;
  }
}

// Where the system's values go: plain doubles, or the model's indices copied.
struct ValueSink {
  double* d_plain;
  std::uint8_t* d_indices;
  unsigned index_bytes;

  __device__ void copy(const DeviceValues& model, std::uint64_t from, std::uint64_t to) const {
    if (index_bytes == 0) {
      d_plain[to] = model[from];
    } else if (index_bytes == 1) {
      d_indices[to] = model.d_indices[from];
    } else {
      reinterpret_cast<std::uint16_t*>(d_indices)[to] = reinterpret_cast<const std::uint16_t*>(model.d_indices)[from];
    }
  }
};

__global__ void fill_entries(DeviceGraph g, RowConstants c, const std::uint32_t* d_order, std::uint32_t count,
                             const std::uint32_t* d_local, const std::uint64_t* d_rows_of,
                             const std::uint64_t* d_entries_of, std::uint32_t* d_columns, ValueSink values, double* d_b,
                             unsigned long long* d_self_loop_words) {
  for (std::uint64_t i = thread_index(); i < count; i += grid_stride()) {
    std::uint64_t row = d_rows_of[i];
    bool self_loop = false;
    kept_rows(g, c, d_local, d_order[i], [&](std::uint64_t r, double constant) {
      std::uint64_t entry = d_entries_of[row];
      for (std::uint64_t k = g.d_row_starts[r]; k < g.d_row_starts[r + 1]; ++k) {
        const std::uint32_t local = d_local[g.d_columns[k]];
        if (local == kOutside) continue;
        self_loop = self_loop || local == i;
        d_columns[entry] = local;
        values.copy(c.model_values, k, entry);
        ++entry;
      }
      d_b[row++] = constant;
    });
    if (self_loop) atomicOr(d_self_loop_words + i / 64, 1ull << (i % 64));
  }
}

// d[0, n) summed in place (d[0] = 0 stays: offsets).
void scan_in_place(std::uint64_t* d, std::uint64_t n, const char* what) {
  auto* words = reinterpret_cast<unsigned long long*>(d);
  with_temp_storage(what, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::InclusiveSum(temp, bytes, words, words, static_cast<std::int64_t>(n));
  });
}

}  // namespace

std::unique_ptr<SystemArrays> CudaDeviceSystem::take() {
  if (!arrays_) throw std::logic_error("DeviceSystem: adopted already");
  return std::move(arrays_);
}

HostSystemArrays CudaDeviceSystem::download() const {
  if (!arrays_) throw std::logic_error("DeviceSystem: adopted already");
  HostSystemArrays h;
  h.row_group_starts.resize(std::uint64_t{num_states()} + 1);
  h.row_starts.resize(num_rows() + 1);
  h.columns.resize(num_entries());
  h.values.resize(num_entries());
  h.row_constants.resize(num_rows());
  arrays_->row_group_starts.download(h.row_group_starts.data(), h.row_group_starts.size(), 0);
  arrays_->row_starts.download(h.row_starts.data(), h.row_starts.size(), 0);
  arrays_->columns.download(h.columns.data(), h.columns.size(), 0);
  arrays_->row_constants.download(h.row_constants.data(), h.row_constants.size(), 0);
  arrays_->values.download_expanded(h.values.data(), h.values.size());  // waits for the others too
  return h;
}

std::unique_ptr<DeviceSystem> build_device_system(const DeviceGraph& g, const RowConstants& c,
                                                  const DeviceValueArray& model_values, const std::uint32_t* d_order,
                                                  std::uint32_t count, int sm_count) {
  DeviceArray<std::uint32_t> d_local(g.num_states);
  static_assert(kOutside == 0xFFFFFFFFu, "every byte 0xFF");
  check(cudaMemset(d_local.get(), 0xFF, std::uint64_t{g.num_states} * sizeof(std::uint32_t)), "cudaMemset");
  number_locally<<<grid_for(count, sm_count), kBlockSize>>>(d_order, count, d_local.get());
  check(cudaGetLastError(), "numbering the system's states");

  auto arrays = std::make_unique<SystemArrays>(SystemArrays{
      DeviceArray<std::uint64_t>(std::uint64_t{count} + 1), DeviceArray<std::uint64_t>(0),
      DeviceArray<std::uint32_t>(0), DeviceValueArray(), DeviceArray<double>(0)});
  std::uint64_t* d_rows_of = arrays->row_group_starts.get();
  if (count == 0) check(cudaMemset(d_rows_of, 0, sizeof(std::uint64_t)), "cudaMemset");
  count_rows<<<grid_for(count, sm_count), kBlockSize>>>(g, c, d_order, count, d_local.get(), d_rows_of);
  check(cudaGetLastError(), "counting rows");
  scan_in_place(d_rows_of, std::uint64_t{count} + 1, "row offsets");
  const std::uint64_t rows = read_from_device(d_rows_of + count, "reading the row count");

  arrays->row_starts = DeviceArray<std::uint64_t>(rows + 1);
  std::uint64_t* d_entries_of = arrays->row_starts.get();
  if (count == 0) check(cudaMemset(d_entries_of, 0, sizeof(std::uint64_t)), "cudaMemset");
  count_entries<<<grid_for(count, sm_count), kBlockSize>>>(g, c, d_order, count, d_local.get(), d_rows_of, d_entries_of);
  check(cudaGetLastError(), "counting entries");
  scan_in_place(d_entries_of, rows + 1, "entry offsets");
  const std::uint64_t entries = read_from_device(d_entries_of + rows, "reading the entry count");

  arrays->columns = DeviceArray<std::uint32_t>(entries);
  const unsigned index_bytes = model_values.index_bytes();
  arrays->values = DeviceValueArray(entries, ValuesView{nullptr, nullptr, index_bytes, nullptr, model_values.table_size()});
  if (index_bytes != 0) {
    check(cudaMemcpy(arrays->values.table().get(), model_values.table().get(), model_values.table_size() * sizeof(double),
                     cudaMemcpyDeviceToDevice),
          "copying the value table");
  }
  arrays->row_constants = DeviceArray<double>(rows);
  const std::uint64_t words = words_of(count);
  DeviceArray<unsigned long long> d_self_loop_words(words);
  check(cudaMemset(d_self_loop_words.get(), 0, words * sizeof(unsigned long long)), "cudaMemset");
  fill_entries<<<grid_for(count, sm_count), kBlockSize>>>(g, c, d_order, count, d_local.get(), d_rows_of, d_entries_of,
                                                           arrays->columns.get(),
                                                           ValueSink{arrays->values.plain().get(),
                                                                     arrays->values.indices().get(), index_bytes},
                                                           arrays->row_constants.get(), d_self_loop_words.get());
  check(cudaGetLastError(), "filling the system");
  std::vector<std::uint64_t> self_loop_words(words);
  d_self_loop_words.download(reinterpret_cast<unsigned long long*>(self_loop_words.data()), words, 0);
  check(cudaDeviceSynchronize(), "building the system");
  return std::make_unique<CudaDeviceSystem>(count, rows, entries, std::move(self_loop_words), std::move(arrays));
}

}  // namespace mdpvi::gpu::detail
