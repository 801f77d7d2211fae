#pragma once
// The process's memory as the kernel counts it (Linux): what the out-of-memory killer
// judges, and what the benchmark reports.
#include <cstddef>

namespace mdpvi {

// Resident memory now (0 where /proc is missing).
std::size_t resident_bytes();

// The peak resident memory so far.
std::size_t peak_resident_bytes();

}  // namespace mdpvi
