#pragma once
// The process's memory as the kernel counts it (Linux): what the out-of-memory killer
// judges, and what the benchmark reports.
#include <cstddef>

namespace mdpvi {

// Resident memory now (0 where /proc is missing).
std::size_t resident_bytes();

// The peak resident memory so far.
std::size_t peak_resident_bytes();

// The bytes of memory the process can have: physical memory, or its container's
// limit (cgroup v2 memory.max, v1 memory.limit_in_bytes) where that is smaller.
std::size_t usable_memory_bytes();

// What is left of usable_memory_bytes() beside the resident memory (0 where none).
std::size_t unused_memory_bytes();

}  // namespace mdpvi
