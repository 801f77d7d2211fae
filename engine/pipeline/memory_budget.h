#pragma once
// How much memory a run may take by default: the machine's, or its container's when
// that is smaller (cgroup v2 memory.max, v1 memory.limit_in_bytes).
#include <cstddef>

namespace mdpvi::pipeline {

// The bytes of memory the process can have: physical memory, or the container's limit.
std::size_t usable_memory_bytes();

// mdpvi's default --memory-limit for the build: three quarters of usable_memory_bytes(),
// leaving a quarter for what the later phases add beside the model (vectors, graphs).
// A build that outgrows it stops with a message instead of meeting the out-of-memory
// killer.
std::size_t default_memory_limit();

}  // namespace mdpvi::pipeline
