// Locked-piece copies (gpu/host_copies.cuh).
#include "gpu/cuda_support.cuh"
#include "gpu/host_copies.cuh"

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

void copy_as_is(char* device, char* host, std::size_t bytes, bool device_to_host, cudaStream_t stream) {
  if (bytes == 0) return;
  if (device_to_host) {
    check(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream), "download");
  } else {
    check(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream), "upload");
  }
}

}  // namespace

void HostCopies::to_device(void* device, const void* host, std::size_t bytes) {
  // Only read: the const is taken off for the shared path, which writes host memory
  // only when copying the other way.
  copy(static_cast<char*>(device), static_cast<char*>(const_cast<void*>(host)), bytes, false);
}

void HostCopies::to_host(void* host, const void* device, std::size_t bytes) {
  copy(static_cast<char*>(const_cast<void*>(device)), static_cast<char*>(host), bytes, true);
}

void HostCopies::copy(char* device, char* host, std::size_t bytes, bool device_to_host) {
  if (bytes < kLockFrom || already_pinned(host)) return copy_as_is(device, host, bytes, device_to_host, stream_);
  // Whole pages only: the first and last partial pages may belong to other arrays,
  // which someone else may lock.
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(host);
  const std::uintptr_t first = (begin + page - 1) / page * page;
  const std::uintptr_t end = (begin + bytes) / page * page;
  copy_as_is(device, host, first - begin, device_to_host, stream_);
  for (std::uintptr_t at = first; at < end; at += kPiece) {
    const std::size_t size = std::min<std::uintptr_t>(kPiece, end - at);
    auto* piece = reinterpret_cast<char*>(at);
    if (cudaHostRegister(piece, size, cudaHostRegisterDefault) == cudaSuccess) {
      locked_.push_back(piece);
    } else {
      cudaGetLastError();  // not lockable (or locked by someone else): as it is
    }
    copy_as_is(device + (at - begin), piece, size, device_to_host, stream_);
  }
  copy_as_is(device + (end - begin), reinterpret_cast<char*>(end), begin + bytes - end, device_to_host, stream_);
}

void HostCopies::finish() {
  if (locked_.empty()) return;
  check(cudaStreamSynchronize(stream_), "copies through locked pages");
  unlock();
}

void HostCopies::finish_quietly() noexcept {
  if (locked_.empty()) return;
  // After a failure: the copies must still end before the pages are unlocked.
  cudaStreamSynchronize(stream_);
  unlock();
  cudaGetLastError();
}

void HostCopies::unlock() noexcept {
  for (void* piece : locked_) cudaHostUnregister(piece);
  locked_.clear();
}

}  // namespace mdpvi::gpu::detail
