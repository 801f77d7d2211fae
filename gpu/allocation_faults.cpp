#include "gpu/allocation_faults.h"

#include "gpu/device_solver.h"

#include <atomic>
#include <cstdlib>
#include <string>

namespace mdpvi::gpu {

namespace {

std::atomic<std::uint64_t> allocations{0};

// Whether the variable (read at every allocation, so that a test can set it between
// runs) makes the allocation numbered `number` fail.
bool injected_failure(std::uint64_t number) {
  const char* text = std::getenv(kFailDeviceAllocationsVariable);
  if (text == nullptr || *text == '\0') return false;
  char* end = nullptr;
  const unsigned long long first = std::strtoull(text, &end, 10);
  const bool and_later = end != nullptr && *end == '-';
  return and_later ? number >= first : number == first;
}

}  // namespace

std::uint64_t device_allocations_counted() { return allocations.load(); }

void restart_device_allocation_count() { allocations.store(0); }

void count_device_allocation() {
  const std::uint64_t number = allocations.fetch_add(1) + 1;
  if (injected_failure(number)) {
    throw OutOfDeviceMemory("device allocation " + std::to_string(number) + " failed (injected by " +
                            kFailDeviceAllocationsVariable + ")");
  }
}

}  // namespace mdpvi::gpu
