// Locked-piece uploads (gpu/host_uploads.cuh).
#include "gpu/cuda_support.cuh"
#include "gpu/host_uploads.cuh"

#include <unistd.h>

#include <algorithm>
#include <cstdint>

namespace mdpvi::gpu::detail {

namespace {

bool already_pinned(const void* host) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, host) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

void copy_as_is(char* device, const char* host, std::size_t bytes, cudaStream_t stream) {
  if (bytes > 0) check(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream), "upload");
}

}  // namespace

void HostUploads::copy(void* device_start, const void* host_start, std::size_t bytes) {
  auto* device = static_cast<char*>(device_start);
  const auto* host = static_cast<const char*>(host_start);
  if (bytes < kLockFrom || already_pinned(host)) return copy_as_is(device, host, bytes, stream_);
  // Whole pages only: the first and last partial pages may belong to other arrays,
  // which someone else may lock.
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(host);
  const std::uintptr_t first = (begin + page - 1) / page * page;
  const std::uintptr_t end = (begin + bytes) / page * page;
  copy_as_is(device, host, first - begin, stream_);
  for (std::uintptr_t at = first; at < end; at += kPiece) {
    const std::size_t size = std::min<std::uintptr_t>(kPiece, end - at);
    auto* piece = reinterpret_cast<char*>(at);
    if (cudaHostRegister(piece, size, cudaHostRegisterDefault) == cudaSuccess) {
      locked_.push_back(piece);
    } else {
      cudaGetLastError();  // not lockable (or locked by someone else): as it is
    }
    copy_as_is(device + (at - begin), piece, size, stream_);
  }
  copy_as_is(device + (end - begin), reinterpret_cast<const char*>(end), begin + bytes - end, stream_);
}

void HostUploads::finish() {
  if (locked_.empty()) return;
  check(cudaStreamSynchronize(stream_), "upload");
  unlock();
}

void HostUploads::finish_quietly() noexcept {
  if (locked_.empty()) return;
  // After a failure: the copies must still end before the pages are unlocked.
  cudaStreamSynchronize(stream_);
  unlock();
  cudaGetLastError();
}

void HostUploads::unlock() noexcept {
  for (void* piece : locked_) cudaHostUnregister(piece);
  locked_.clear();
}

}  // namespace mdpvi::gpu::detail
