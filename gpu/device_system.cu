// The maybe-state system built on the device (gpu/device_system.cuh): the local
// index of each state of the system, the rows and the entries kept per state and per row,
// their offsets by scans, then each state's slices filled. The same two passes as
// the host's build (engine/solve/maybe_system.cpp), so that both keep the same rows
// and entries in the same order, and b sums in the same order. A view counts the same
// rows and entries in one pass and keeps none of them.
#include "gpu/device_system.cuh"
#include "gpu/kept_rows.cuh"

#include <cub/device/device_scan.cuh>

#include <optional>
#include <stdexcept>

namespace mdpvi::gpu::detail {

namespace {

__global__ void number_locally(const std::uint32_t* d_order, std::uint32_t count, std::uint32_t* d_local) {
  for (std::uint64_t i = thread_index(); i < count; i += grid_stride()) d_local[d_order[i]] = static_cast<std::uint32_t>(i);
}

// gpu/kept_rows.cuh's rows of model state s, from the resident graph.
template <typename Emit>
__device__ void kept_rows(const DeviceGraph& g, const RowConstants& c, const std::uint32_t* d_local, std::uint32_t s,
                          Emit emit) {
  detail::kept_rows(g.d_row_group_starts, g.d_row_starts, g.d_columns, c, d_local, s, emit);
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
      for (std::uint64_t k = g.d_row_starts[r]; k < g.d_row_starts[r + 1]; ++k) kept += d_local[g.d_columns[k]] != kOutsideChunk;
      d_entries_of[++row] = kept;
    });
    if (i == 0) d_entries_of[0] = 0;
  }
}

__device__ void mark_self_loop(unsigned long long* d_words, std::uint64_t i) { atomicOr(d_words + i / 64, 1ull << (i % 64)); }

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
        if (local == kOutsideChunk) continue;
        self_loop = self_loop || local == i;
        d_columns[entry] = local;
        values.copy(c.model_values, k, entry);
        ++entry;
      }
      d_b[row++] = constant;
    });
    if (self_loop) mark_self_loop(d_self_loop_words, i);
  }
}

// A view's sizes (SystemSizes, in this order) summed into d_sizes, and its self-loops
// (of the kept rows, as fill_entries marks them).
__global__ void __launch_bounds__(kBlockSize)
    survey_view(DeviceGraph g, RowConstants c, const std::uint32_t* d_order, std::uint32_t count,
                const std::uint32_t* d_local, unsigned long long* d_sizes, unsigned long long* d_self_loop_words) {
  unsigned long long sizes[4] = {0, 0, 0, 0};
  for (std::uint64_t i = thread_index(); i < count; i += grid_stride()) {
    const std::uint32_t s = d_order[i];
    bool self_loop = false;
    kept_rows(g, c, d_local, s, [&](std::uint64_t r, double) {
      ++sizes[0];
      for (std::uint64_t k = g.d_row_starts[r]; k < g.d_row_starts[r + 1]; ++k) {
        const std::uint32_t local = d_local[g.d_columns[k]];
        sizes[1] += local != kOutsideChunk;
        self_loop = self_loop || local == i;
      }
    });
    const std::uint64_t first_row = g.d_row_group_starts[s], end_row = g.d_row_group_starts[s + 1];
    sizes[2] += end_row - first_row;
    sizes[3] += g.d_row_starts[end_row] - g.d_row_starts[first_row];
    if (self_loop) mark_self_loop(d_self_loop_words, i);
  }
  block_sums_into(sizes, d_sizes);
}

// d[0, n) summed in place (d[0] = 0 stays: offsets).
void scan_in_place(std::uint64_t* d, std::uint64_t n, const char* what) {
  auto* words = reinterpret_cast<unsigned long long*>(d);
  with_temp_storage(what, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::InclusiveSum(temp, bytes, words, words, static_cast<std::int64_t>(n));
  });
}

// Per model state its index in the system, kOutsideChunk for the others.
DeviceArray<std::uint32_t> local_indices(const DeviceGraph& g, const std::uint32_t* d_order, std::uint32_t count,
                                         int sm_count) {
  DeviceArray<std::uint32_t> d_local(g.num_states);
  static_assert(kOutsideChunk == 0xFFFFFFFFu, "every byte 0xFF");
  check(cudaMemset(d_local.get(), 0xFF, std::uint64_t{g.num_states} * sizeof(std::uint32_t)), "cudaMemset");
  number_locally<<<grid_for(count, sm_count), kBlockSize>>>(d_order, count, d_local.get());
  check(cudaGetLastError(), "numbering the system's states");
  return d_local;
}

// The self-loop bits of count states, cleared.
DeviceArray<unsigned long long> cleared_words(std::uint32_t count) {
  const std::uint64_t words = words_of(count);
  DeviceArray<unsigned long long> d_words(words);
  check(cudaMemset(d_words.get(), 0, words * sizeof(unsigned long long)), "cudaMemset");
  return d_words;
}

std::vector<std::uint64_t> download_words(const DeviceArray<unsigned long long>& d_words) {
  std::vector<std::uint64_t> words(d_words.size());
  d_words.download(reinterpret_cast<unsigned long long*>(words.data()), words.size(), 0);
  return words;
}

struct CopiedSystem {
  std::unique_ptr<SystemArrays> arrays;
  SystemSizes sizes;
  std::vector<std::uint64_t> self_loop_words;
};

// The system's own arrays (SystemStorage::copy), from d_local's numbering.
CopiedSystem copy_system(const DeviceGraph& g, const RowConstants& c, std::size_t table_size, const std::uint32_t* d_order,
                         std::uint32_t count, const std::uint32_t* d_local, int sm_count) {
  auto arrays = std::make_unique<SystemArrays>(SystemArrays{
      DeviceArray<std::uint64_t>(std::uint64_t{count} + 1), DeviceArray<std::uint64_t>(0),
      DeviceArray<std::uint32_t>(0), DeviceValueArray(), DeviceArray<double>(0)});
  std::uint64_t* d_rows_of = arrays->row_group_starts.get();
  if (count == 0) check(cudaMemset(d_rows_of, 0, sizeof(std::uint64_t)), "cudaMemset");
  count_rows<<<grid_for(count, sm_count), kBlockSize>>>(g, c, d_order, count, d_local, d_rows_of);
  check(cudaGetLastError(), "counting rows");
  scan_in_place(d_rows_of, std::uint64_t{count} + 1, "row offsets");
  const std::uint64_t rows = read_from_device(d_rows_of + count, "reading the row count");

  arrays->row_starts = DeviceArray<std::uint64_t>(rows + 1);
  std::uint64_t* d_entries_of = arrays->row_starts.get();
  if (count == 0) check(cudaMemset(d_entries_of, 0, sizeof(std::uint64_t)), "cudaMemset");
  count_entries<<<grid_for(count, sm_count), kBlockSize>>>(g, c, d_order, count, d_local, d_rows_of, d_entries_of);
  check(cudaGetLastError(), "counting entries");
  scan_in_place(d_entries_of, rows + 1, "entry offsets");
  const std::uint64_t entries = read_from_device(d_entries_of + rows, "reading the entry count");

  arrays->columns = DeviceArray<std::uint32_t>(entries);
  const unsigned index_bytes = c.model_values.index_bytes;
  arrays->values = DeviceValueArray(entries, ValuesView{nullptr, nullptr, index_bytes, nullptr, table_size});
  if (index_bytes != 0) {
    check(cudaMemcpy(arrays->values.table().get(), c.model_values.d_table, table_size * sizeof(double),
                     cudaMemcpyDeviceToDevice),
          "copying the value table");
  }
  arrays->row_constants = DeviceArray<double>(rows);
  DeviceArray<unsigned long long> d_self_loop_words = cleared_words(count);
  fill_entries<<<grid_for(count, sm_count), kBlockSize>>>(g, c, d_order, count, d_local, d_rows_of, d_entries_of,
                                                           arrays->columns.get(),
                                                           ValueSink{arrays->values.plain().get(),
                                                                     arrays->values.indices().get(), index_bytes},
                                                           arrays->row_constants.get(), d_self_loop_words.get());
  check(cudaGetLastError(), "filling the system");
  std::vector<std::uint64_t> self_loop_words = download_words(d_self_loop_words);
  check(cudaDeviceSynchronize(), "building the system");
  return {std::move(arrays), {rows, entries, rows, entries}, std::move(self_loop_words)};
}

struct Survey {
  SystemSizes sizes;
  std::vector<std::uint64_t> self_loop_words;
};

// A view's sizes and self-loops, in one pass (survey_view).
Survey survey(const DeviceGraph& g, const RowConstants& c, const std::uint32_t* d_order, std::uint32_t count,
              const std::uint32_t* d_local, int sm_count) {
  DeviceArray<unsigned long long> d_sizes(4);
  check(cudaMemset(d_sizes.get(), 0, 4 * sizeof(unsigned long long)), "cudaMemset");
  DeviceArray<unsigned long long> d_self_loop_words = cleared_words(count);
  survey_view<<<grid_for(count, sm_count), kBlockSize>>>(g, c, d_order, count, d_local, d_sizes.get(),
                                                          d_self_loop_words.get());
  check(cudaGetLastError(), "surveying the system");
  unsigned long long sizes[4];
  d_sizes.download(sizes, 4, 0);
  std::vector<std::uint64_t> self_loop_words = download_words(d_self_loop_words);
  check(cudaDeviceSynchronize(), "surveying the system");
  return {{sizes[0], sizes[1], sizes[2], sizes[3]}, std::move(self_loop_words)};
}

HostSystemArrays download_arrays(const SystemArrays& arrays, std::uint32_t states, std::uint64_t rows, std::uint64_t entries) {
  HostSystemArrays h;
  h.row_group_starts.resize(std::uint64_t{states} + 1);
  h.row_starts.resize(rows + 1);
  h.columns.resize(entries);
  h.values.resize(entries);
  h.row_constants.resize(rows);
  arrays.row_group_starts.download(h.row_group_starts.data(), h.row_group_starts.size(), 0);
  arrays.row_starts.download(h.row_starts.data(), h.row_starts.size(), 0);
  arrays.columns.download(h.columns.data(), h.columns.size(), 0);
  arrays.row_constants.download(h.row_constants.data(), h.row_constants.size(), 0);
  arrays.values.download_expanded(h.values.data(), h.values.size());  // waits for the others too
  return h;
}

}  // namespace

std::unique_ptr<SystemArrays> CudaDeviceSystem::take() {
  if (!arrays_) throw std::logic_error("DeviceSystem: adopted already, or a view");
  return std::move(arrays_);
}

std::shared_ptr<SystemView> CudaDeviceSystem::take_view() {
  if (!view_) throw std::logic_error("DeviceSystem: adopted already, or a copy");
  return std::move(view_);
}

HostSystemArrays CudaDeviceSystem::download() const {
  if (arrays_) return download_arrays(*arrays_, num_states(), num_rows(), num_entries());
  if (!view_) throw std::logic_error("DeviceSystem: adopted already");
  const SystemView& v = *view_;
  const CopiedSystem copy = copy_system(v.graph, v.sources.constants(v.values), v.table_size, v.sources.order.get(),
                                        num_states(), v.local.get(), multiprocessor_count());
  return download_arrays(*copy.arrays, num_states(), copy.sizes.rows, copy.sizes.entries);
}

std::unique_ptr<DeviceSystem> build_device_system(const DeviceGraph& g, const DeviceValues& model_values,
                                                  std::size_t table_size, SystemSources&& sources, std::uint32_t count,
                                                  SystemStorage storage, int sm_count) {
  DeviceArray<std::uint32_t> d_local = local_indices(g, sources.order.get(), count, sm_count);
  const RowConstants c = sources.constants(model_values);
  std::optional<Survey> surveyed;
  if (storage != SystemStorage::copy) surveyed = survey(g, c, sources.order.get(), count, d_local.get(), sm_count);
  if (storage == SystemStorage::copy) {
    CopiedSystem copy = copy_system(g, c, table_size, sources.order.get(), count, d_local.get(), sm_count);
    return std::make_unique<CudaDeviceSystem>(count, copy.sizes, model_values.index_bytes, std::move(copy.self_loop_words),
                                              std::move(copy.arrays));
  }
  auto view = std::make_shared<SystemView>(SystemView{std::move(sources), std::move(d_local), g, model_values, table_size});
  surveyed->sizes.view_bytes = view->bytes();
  surveyed->sizes.swept_offset_bytes = g.d_row_starts.narrow ? sizeof(std::uint32_t) : sizeof(std::uint64_t);
  return std::make_unique<CudaDeviceSystem>(count, surveyed->sizes, model_values.index_bytes,
                                            std::move(surveyed->self_loop_words), std::move(view));
}

}  // namespace mdpvi::gpu::detail
