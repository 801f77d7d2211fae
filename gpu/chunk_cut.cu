// The device's cut of a chunk (gpu/chunk_cut.cuh): per row its kept entries counted,
// their offsets by a scan, then each row's kept entries copied in order; the same
// pass as engine/solve/prepared_chunk.cpp's inside arrays.
#include "gpu/chunk_cut.cuh"
#include "gpu/graph_device.cuh"

#include <cub/device/device_scan.cuh>

namespace mdpvi::gpu::detail {

namespace {

// The raw rows' offsets are the system's: entry k of the raw arrays is the system's
// first_entry + k.
struct RawRows {
  const std::uint64_t* d_row_starts;  // rows + 1, system-wide
  std::uint64_t rows;
  std::uint64_t first_entry;
  const std::uint32_t* d_columns;
  std::uint32_t first_state;

  __device__ std::uint64_t begin(std::uint64_t r) const { return d_row_starts[r] - first_entry; }
  __device__ std::uint64_t end(std::uint64_t r) const { return d_row_starts[r + 1] - first_entry; }
  __device__ bool kept(std::uint64_t k) const { return d_columns[k] >= first_state; }
};

// Per row r its kept entries into d_kept[r + 1]; d_kept[0] = 0 for the scan.
__global__ void count_kept(RawRows raw, std::uint64_t* d_kept) {
  for (std::uint64_t r = thread_index(); r < raw.rows; r += grid_stride()) {
    std::uint64_t kept = 0;
    for (std::uint64_t k = raw.begin(r); k < raw.end(r); ++k) kept += raw.kept(k);
    d_kept[r + 1] = kept;
    if (r == 0) d_kept[0] = 0;
  }
}

__global__ void fill_kept(RawRows raw, DeviceValues raw_values, const std::uint64_t* d_kept_starts,
                          std::uint32_t* d_columns, ValueSink values) {
  for (std::uint64_t r = thread_index(); r < raw.rows; r += grid_stride()) {
    std::uint64_t entry = d_kept_starts[r];
    for (std::uint64_t k = raw.begin(r); k < raw.end(r); ++k) {
      if (!raw.kept(k)) continue;
      d_columns[entry] = raw.d_columns[k] - raw.first_state;
      values.copy(raw_values, k, entry++);
    }
  }
}

__global__ void replace_rows(const std::uint64_t* d_rows, std::uint64_t count, const double* d_values, double* d_b) {
  for (std::uint64_t i = thread_index(); i < count; i += grid_stride()) d_b[d_rows[i]] = d_values[i];
}

__global__ void rebase(std::uint64_t* d, std::uint64_t n, std::uint64_t base) {
  for (std::uint64_t i = thread_index(); i < n; i += grid_stride()) d[i] -= base;
}

// The kept entries' offsets per row (rows + 1), from the raw rows' columns.
DeviceArray<std::uint64_t> kept_starts(const RawRows& raw, cudaStream_t stream, int sm_count) {
  DeviceArray<std::uint64_t> d_kept(raw.rows + 1);
  if (raw.rows == 0) check(cudaMemsetAsync(d_kept.get(), 0, sizeof(std::uint64_t), stream), "cudaMemset");
  count_kept<<<grid_for(raw.rows, sm_count), kBlockSize, 0, stream>>>(raw, d_kept.get());
  check(cudaGetLastError(), "counting a chunk's entries");
  auto* words = reinterpret_cast<unsigned long long*>(d_kept.get());
  with_temp_storage("a chunk's entry offsets", [&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::InclusiveSum(temp, bytes, words, words, static_cast<std::int64_t>(raw.rows + 1), stream);
  });
  return d_kept;
}

}  // namespace

CutChunk cut_rows(const SystemRows& rows, cudaStream_t stream, int sm_count) {
  CutChunk cut;
  cut.row_group_starts = DeviceArray<std::uint64_t>(std::uint64_t{rows.num_states} + 1);
  {
    DeviceArray<std::uint64_t> raw_row_starts(rows.num_rows + 1);
    DeviceArray<std::uint32_t> raw_columns(rows.num_entries);
    DeviceValueArray raw_values(rows.num_entries, rows.values);
    {
      HostCopies uploads(stream);
      cut.row_group_starts.upload(rows.row_group_starts, std::uint64_t{rows.num_states} + 1, uploads);
      raw_row_starts.upload(rows.row_starts, rows.num_rows + 1, uploads);
      raw_columns.upload(rows.columns, rows.num_entries, uploads);
      raw_values.upload(rows.values, rows.num_entries, uploads);
      if (rows.row_constants) {
        cut.row_constants = DeviceArray<double>(rows.num_rows);
        cut.row_constants.upload(rows.row_constants, rows.num_rows, uploads);
      }
      uploads.finish();
    }
    const RawRows raw{raw_row_starts.get(), rows.num_rows, rows.row_starts[0], raw_columns.get(), rows.first_state};
    cut.row_starts = kept_starts(raw, stream, sm_count);
    cut.entries = read_from_device(cut.row_starts.get() + rows.num_rows, "reading a chunk's entry count", stream);
    cut.columns = DeviceArray<std::uint32_t>(cut.entries);
    cut.values = DeviceValueArray(cut.entries, rows.values);
    if (rows.values.index_bytes != 0) {
      check(cudaMemcpyAsync(cut.values.table().get(), raw_values.table().get(), rows.values.table_size * sizeof(double),
                            cudaMemcpyDeviceToDevice, stream),
            "copying a chunk's value table");
    }
    fill_kept<<<grid_for(rows.num_rows, sm_count), kBlockSize, 0, stream>>>(
        raw, raw_values.view(), cut.row_starts.get(), cut.columns.get(),
        ValueSink{cut.values.plain().get(), cut.values.indices().get(), rows.values.index_bytes});
    check(cudaGetLastError(), "cutting a chunk's entries");
    check(cudaStreamSynchronize(stream), "cutting a chunk");  // before the raw rows are freed
  }
  rebase<<<grid_for(std::uint64_t{rows.num_states} + 1, sm_count), kBlockSize, 0, stream>>>(
      cut.row_group_starts.get(), std::uint64_t{rows.num_states} + 1, rows.row_group_starts[0]);
  check(cudaGetLastError(), "rebasing a chunk's rows");
  check(cudaStreamSynchronize(stream), "cutting a chunk");
  return cut;
}

CorrectedB corrected_b(DeviceArray<double>&& row_constants, const RowCorrectionsView& corrections, cudaStream_t stream,
                       int sm_count) {
  CorrectedB b;
  b.lower = std::move(row_constants);
  const std::uint64_t rows = b.lower.size();
  if (corrections.with_upper) {
    b.upper = DeviceArray<double>(rows);
    if (rows > 0) {
      check(cudaMemcpyAsync(b.upper.get(), b.lower.get(), rows * sizeof(double), cudaMemcpyDeviceToDevice, stream),
            "copying a chunk's b");
    }
  }
  const std::uint64_t count = corrections.count;
  DeviceArray<std::uint64_t> at(count);
  DeviceArray<double> lower(count), upper(corrections.with_upper ? count : 0);
  if (count > 0) {
    {
      HostCopies uploads(stream);
      at.upload(corrections.rows, count, uploads);
      lower.upload(corrections.lower, count, uploads);
      if (corrections.with_upper) upper.upload(corrections.upper, count, uploads);
      uploads.finish();
    }
    replace_rows<<<grid_for(count, sm_count), kBlockSize, 0, stream>>>(at.get(), count, lower.get(), b.lower.get());
    if (corrections.with_upper) {
      replace_rows<<<grid_for(count, sm_count), kBlockSize, 0, stream>>>(at.get(), count, upper.get(), b.upper.get());
    }
    check(cudaGetLastError(), "correcting a chunk's b");
  }
  check(cudaStreamSynchronize(stream), "correcting a chunk's b");  // before the corrections are freed
  return b;
}

}  // namespace mdpvi::gpu::detail

namespace mdpvi::gpu {

HostSystemArrays cut_on_device(const SystemRows& rows) {
  detail::CutChunk cut = detail::cut_rows(rows, 0, detail::multiprocessor_count());
  HostSystemArrays h;
  h.row_group_starts.resize(std::uint64_t{rows.num_states} + 1);
  h.row_starts.resize(rows.num_rows + 1);
  h.columns.resize(cut.entries);
  h.values.resize(cut.entries);
  cut.row_group_starts.download(h.row_group_starts.data(), h.row_group_starts.size(), 0);
  cut.row_starts.download(h.row_starts.data(), h.row_starts.size(), 0);
  cut.columns.download(h.columns.data(), h.columns.size(), 0);
  cut.values.download_expanded(h.values.data(), h.values.size());  // waits for the others too
  return h;
}

}  // namespace mdpvi::gpu
