#pragma once
// How much memory a run may take by default: the machine's, or its container's when
// that is smaller (cgroup v2 memory.max, v1 memory.limit_in_bytes).
#include <cstddef>

namespace mdpvi::pipeline {

// mdpvi's default --memory-limit for the build: three quarters of the usable memory
// (engine/model/process_memory.h), leaving a quarter for what the later phases add
// beside the model (vectors, graphs). A build that outgrows it stops with a message
// instead of meeting the out-of-memory killer.
std::size_t default_memory_limit();

}  // namespace mdpvi::pipeline
