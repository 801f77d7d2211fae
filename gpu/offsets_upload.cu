#include "gpu/offsets_upload.cuh"

#include "gpu/graph_device.cuh"
#include "gpu/host_copies.cuh"

#include <algorithm>
#include <vector>

namespace mdpvi::gpu::detail {

namespace {

__global__ void widen_kernel(const std::uint32_t* d_narrow, std::uint64_t count, std::uint64_t* d_wide) {
  for (std::uint64_t i = thread_index(); i < count; i += grid_stride()) d_wide[i] = d_narrow[i];
}

}  // namespace

DeviceArray<std::uint32_t> upload_narrow(const PackedOffsets& host) {
  DeviceArray<std::uint32_t> narrow(host.size());
  HostCopies copies(0);
  narrow.upload(host.lows(), host.size(), copies);
  copies.finish();
  return narrow;
}

DeviceArray<std::uint64_t> upload_wide(const PackedOffsets& host, int sm_count) {
  const std::uint64_t count = host.size();
  DeviceArray<std::uint64_t> wide(count);
  constexpr std::uint64_t kPiece = HostCopies::kPiece / sizeof(std::uint64_t);
  if (host.fit_32_bits()) {
    DeviceArray<std::uint32_t> staging(std::min(count, kPiece));
    for (std::uint64_t first = 0; first < count; first += kPiece) {
      const std::uint64_t n = std::min(kPiece, count - first);
      HostCopies copies(0);
      staging.upload(host.lows() + first, n, copies);
      copies.finish();
      widen_kernel<<<grid_for(n, sm_count), kBlockSize>>>(staging.get(), n, wide.get() + first);
      check(cudaGetLastError(), "widening row offsets");
    }
  } else {
    std::vector<std::uint64_t> piece(std::min(count, kPiece));
    for (std::uint64_t first = 0; first < count; first += kPiece) {
      const std::uint64_t n = std::min(kPiece, count - first);
      host.copy_to(piece.data(), first, n);
      check(cudaMemcpy(wide.get() + first, piece.data(), n * sizeof(std::uint64_t), cudaMemcpyHostToDevice), "upload");
    }
  }
  return wide;
}

}  // namespace mdpvi::gpu::detail
