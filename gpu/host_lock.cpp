#include "gpu/host_lock.h"

namespace mdpvi::gpu {

HostLock::~HostLock() {
  wait();
  for (const Locking& range : ranges_) {
    if (range.held) unlock_host_pages(range.data);
  }
}

void HostLock::lock(void* data, std::size_t bytes) {
  if (data == nullptr || bytes < kLockFrom) return;
  Locking range;
  range.data = data;
  range.locked = std::async(std::launch::async, [data, bytes] { return lock_host_pages(data, bytes); });
  ranges_.push_back(std::move(range));
}

void HostLock::wait() {
  for (Locking& range : ranges_) {
    if (range.done) continue;
    range.held = range.locked.get();
    range.done = true;
  }
}

}  // namespace mdpvi::gpu
