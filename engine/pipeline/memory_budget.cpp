#include "engine/pipeline/memory_budget.h"

#include "engine/model/process_memory.h"

namespace mdpvi::pipeline {

std::size_t default_memory_limit() { return mdpvi::usable_memory_bytes() / 4 * 3; }

}  // namespace mdpvi::pipeline
