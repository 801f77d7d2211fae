#pragma once
// The process's memory as the kernel counts it (Linux): what the out-of-memory killer
// judges, and what the benchmark reports.
#include <cstddef>
#include <string>

namespace mdpvi {

// Resident memory now (0 where /proc is missing).
std::size_t resident_bytes();

// The peak resident memory so far: never below an earlier answer of this or of
// resident_bytes() (the kernel's counts are approximate).
std::size_t peak_resident_bytes();

// "peak P GB, resident R GB": for the log at a stage's end, so that a run's peak can
// be placed in the stage that made it.
std::string memory_so_far();

// The bytes of memory the process can have: physical memory, or its container's
// limit (cgroup v2 memory.max, v1 memory.limit_in_bytes) where that is smaller.
std::size_t usable_memory_bytes();

// What is left of usable_memory_bytes() beside the resident memory (0 where none).
std::size_t unused_memory_bytes();

// Blocks of a few megabytes and more come from their own mappings and go back to the
// kernel when freed. glibc's default raises that threshold after each large free (up
// to 32 MiB), so the searches' and the SCCs' freed arrays stay in the heaps of the
// threads that made them and are counted in the peak on top of the system built next
// (bench/NOTES.md, session 11). A process-wide setting: the command calls it first.
// Does nothing where the C library is not glibc.
void return_large_frees_to_the_kernel();

}  // namespace mdpvi
