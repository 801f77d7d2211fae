#pragma once
// Copies of large arrays between pageable host memory (the maybe-state system, b, the
// iterates) and the device, either way. The driver copies pageable memory through its
// own staging buffer, slowly whatever the number of host threads; pages locked with
// cudaHostRegister copy several times faster, and locking them is faster still on
// huge pages (as PodVector's). So each 64 MiB piece is locked and its copy enqueued
// while the pieces before it copy (the rates: tools/bench/transfer_bench.cu,
// bench/NOTES.md). Internal to gpu/.
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace mdpvi::gpu::detail {

class HostCopies {
 public:
  explicit HostCopies(cudaStream_t stream) : stream_(stream) {}
  ~HostCopies() { finish_quietly(); }
  HostCopies(const HostCopies&) = delete;
  HostCopies& operator=(const HostCopies&) = delete;

  // Enqueue device[0, bytes) = host[0, bytes), or host[0, bytes) = device[0, bytes),
  // on the stream. Memory already pinned copies asynchronously as it is; small arrays
  // and pieces the driver will not lock copy as pageable memory.
  void to_device(void* device, const void* host, std::size_t bytes);
  void to_host(void* host, const void* device, std::size_t bytes);
  // Waits for the copies from or into locked pages and unlocks them: after it, the
  // host arrays may change (or be read). Throws DeviceError.
  void finish();

  static constexpr std::size_t kPiece = std::size_t{64} << 20;
  // Below this an array copies as it is: locking costs more than it saves.
  static constexpr std::size_t kLockFrom = std::size_t{16} << 20;

 private:
  // to_device when device_to_host is false, else to_host.
  void copy(char* device, char* host, std::size_t bytes, bool device_to_host);
  void finish_quietly() noexcept;
  void unlock() noexcept;  // Pre: the copies from or into the locked pieces are done

  cudaStream_t stream_;
  std::vector<void*> locked_;
};

}  // namespace mdpvi::gpu::detail
