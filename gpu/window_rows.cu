#include "gpu/window_rows.cuh"

#include "gpu/graph_device.cuh"

#include <cub/block/block_reduce.cuh>

namespace mdpvi::gpu::detail {

namespace {

// The sum of the squared row lengths of rows [first_row, end_row), exact in
// integers, into *d_squares.
__global__ void __launch_bounds__(kBlockSize)
    sum_squared_rows(const std::uint64_t* d_row_starts, std::uint64_t first_row, std::uint64_t end_row,
                     unsigned long long* d_squares) {
  unsigned long long squares = 0;
  for (std::uint64_t r = first_row + thread_index(); r < end_row; r += grid_stride()) {
    const unsigned long long length = d_row_starts[r + 1] - d_row_starts[r];
    squares += length * length;
  }
  using BlockReduce = cub::BlockReduce<unsigned long long, kBlockSize>;
  __shared__ typename BlockReduce::TempStorage scratch;
  const unsigned long long block_sum = BlockReduce(scratch).Sum(squares);
  if (threadIdx.x == 0 && block_sum > 0) atomicAdd(d_squares, block_sum);
}

// A view's window: its states' model rows and entries, and the sum of the squared
// row lengths (with_squares), into d_sums[0..2], exact in integers.
__global__ void __launch_bounds__(kBlockSize)
    sum_view_rows(DeviceChunk m, std::uint64_t first, std::uint64_t end, bool with_squares, unsigned long long* d_sums) {
  unsigned long long sums[3] = {0, 0, 0};
  for (std::uint64_t i = first + thread_index(); i < end; i += grid_stride()) {
    const std::uint64_t s = m.model_state(i);
    for (std::uint64_t r = m.d_row_group_starts[s]; r < m.d_row_group_starts[s + 1]; ++r) {
      const unsigned long long length = m.view_row_starts[r + 1] - m.view_row_starts[r];
      sums[0] += 1;
      sums[1] += length;
      if (with_squares) sums[2] += length * length;
    }
  }
  block_sums_into(sums, d_sums);
}

WindowRows view_window_rows(const DeviceChunk& m, std::uint64_t first, std::uint64_t end, bool with_squares,
                            int sm_count) {
  DeviceArray<unsigned long long> d_sums(3);
  check(cudaMemset(d_sums.get(), 0, 3 * sizeof(unsigned long long)), "cudaMemset");
  if (end > first) {
    sum_view_rows<<<grid_for(end - first, sm_count), kBlockSize>>>(m, first, end, with_squares, d_sums.get());
    check(cudaGetLastError(), "counting a window's rows");
  }
  unsigned long long sums[3];
  check(cudaMemcpy(sums, d_sums.get(), sizeof(sums), cudaMemcpyDeviceToHost), "reading a window's rows");
  return {end - first, sums[0], sums[1], with_squares ? static_cast<double>(sums[2]) : 0.0};
}

}  // namespace

WindowRows device_window_rows(const DeviceChunk& m, std::uint64_t first, std::uint64_t end, bool with_squares,
                              int sm_count) {
  end = std::min(end, m.num_states);
  first = std::min(first, end);
  if (m.is_view()) return view_window_rows(m, first, end, with_squares, sm_count);
  const auto read = [](const std::uint64_t* d_value) { return read_from_device(d_value, "reading a window's bounds"); };
  // A chunk's own offsets are 8 bytes (DeviceMatrix); only a view's are the graph's.
  const std::uint64_t* d_groups = m.d_row_group_starts.wide;
  const std::uint64_t first_row = read(d_groups + first), end_row = read(d_groups + end);
  WindowRows w{end - first, end_row - first_row, read(m.d_row_starts + end_row) - read(m.d_row_starts + first_row), 0.0};
  if (!with_squares || w.rows == 0) return w;
  DeviceArray<unsigned long long> d_squares(1);
  check(cudaMemset(d_squares.get(), 0, sizeof(unsigned long long)), "cudaMemset");
  sum_squared_rows<<<grid_for(w.rows, sm_count), kBlockSize>>>(m.d_row_starts, first_row, end_row, d_squares.get());
  check(cudaGetLastError(), "counting a window's rows");
  w.squares = static_cast<double>(read_from_device(d_squares.get(), "reading a window's rows"));
  return w;
}

}  // namespace mdpvi::gpu::detail
