#pragma once
// Host-to-device copies of large arrays in pageable memory (the maybe-state system,
// b, the iterates). The driver copies pageable memory through its own staging buffer
// at about 7 GB/s on the H100 machine, whatever the number of host threads; pages
// locked with cudaHostRegister copy at 54 GB/s, and locking runs at 17-22 GB/s. So
// each 64 MiB piece is locked and its copy enqueued while the pieces before it copy:
// 19 GB/s for 3.4 GB against 7 (tools/bench/transfer_bench.cu, bench/NOTES.md).
// Internal to gpu/.
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace mdpvi::gpu::detail {

class HostUploads {
 public:
  explicit HostUploads(cudaStream_t stream) : stream_(stream) {}
  ~HostUploads() { finish_quietly(); }
  HostUploads(const HostUploads&) = delete;
  HostUploads& operator=(const HostUploads&) = delete;

  // Enqueues device[0, bytes) = host[0, bytes) on the stream. Memory already pinned
  // copies asynchronously as it is; small arrays and pieces the driver will not lock
  // copy as pageable memory.
  void copy(void* device, const void* host, std::size_t bytes);
  // Waits for the copies from locked pages and unlocks them: after it, the host arrays
  // may change. Throws DeviceError.
  void finish();

  static constexpr std::size_t kPiece = std::size_t{64} << 20;
  // Below this an array copies as it is: locking costs more than it saves.
  static constexpr std::size_t kLockFrom = std::size_t{16} << 20;

 private:
  void finish_quietly() noexcept;
  void unlock() noexcept;  // Pre: the copies from the locked pieces are done

  cudaStream_t stream_;
  std::vector<void*> locked_;
};

}  // namespace mdpvi::gpu::detail
