#pragma once
// Host arrays locked in memory ("pinned") for the devices' copies while a HostLock
// lives: the driver copies locked pages at the link's rate, and pageable ones through
// its staging buffer several times slower (54 against 5-7 GB/s on the H100 machine;
// HostCopies locks and unlocks a copy's pieces each time, at about 19 GB/s). Worth
// it for arrays copied piece by piece many times, as a chunked solve's iterates are
// (bench/NOTES.md, session 22). Plain C++ header; without CUDA nothing is locked.
#include <cstddef>
#include <future>
#include <vector>

namespace mdpvi::gpu {

class HostLock {
 public:
  HostLock() = default;
  ~HostLock();  // waits for the locking under way, then unlocks what it locked
  HostLock(const HostLock&) = delete;
  HostLock& operator=(const HostLock&) = delete;

  // Starts locking [data, data + bytes) on a thread of its own (one call of the
  // driver, so that a copy of any part of it finds it locked whole). Arrays below
  // kLockFrom are left as they are. The array must outlive the lock.
  void lock(void* data, std::size_t bytes);
  // Waits for the locking started: after it, copies find the arrays locked (or, where
  // the driver refused, copy them as before).
  void wait();

  static constexpr std::size_t kLockFrom = std::size_t{16} << 20;

 private:
  struct Locking {
    void* data = nullptr;
    std::future<bool> locked;
    bool done = false, held = false;
  };
  std::vector<Locking> ranges_;
};

// The driver's locking of one host range, and its undoing (host_copies.cu; without
// CUDA, lock_host_pages refuses). Never throw.
bool lock_host_pages(void* data, std::size_t bytes) noexcept;
void unlock_host_pages(void* data) noexcept;
// Whether the byte at data is in locked host memory (for tests).
bool host_pages_locked(const void* data) noexcept;

}  // namespace mdpvi::gpu
