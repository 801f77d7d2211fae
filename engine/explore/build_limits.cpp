#include "engine/explore/build_limits.h"

#include "engine/model/process_memory.h"

#include <algorithm>

namespace mdpvi {

void BuildLimits::check_wave(std::uint64_t found, std::uint64_t explored, std::uint64_t waves, std::size_t arrays_bytes) {
  std::size_t bytes_in_use = arrays_bytes;
  const std::size_t step = std::max<std::size_t>(memory / 256, std::size_t{1} << 20);
  const bool due = waves_at_reading_ == 0 || arrays_bytes >= arrays_at_reading_ + step ||
                   waves >= waves_at_reading_ + kWavesPerReading;
  if (memory > 0 && due) {
    bytes_in_use = memory_in_use(arrays_bytes);
    arrays_at_reading_ = arrays_bytes;
    waves_at_reading_ = waves;
  }
  auto so_far = [&] {
    return std::to_string(found) + " states found, " + std::to_string(explored) + " of them explored in " +
           std::to_string(waves) + " waves";
  };
  if (states > 0 && found > states) {
    throw BuildLimitReached("state limit reached: " + so_far() + " (--state-limit " + std::to_string(states) + ")");
  }
  if (memory > 0 && bytes_in_use > memory) {
    throw BuildLimitReached("memory limit reached: the process takes " + megabytes(bytes_in_use) + " after " + so_far() +
                            " (--memory-limit " + megabytes(memory) + ")");
  }
}

void BuildLimits::check_labels(std::size_t labels, std::uint64_t states_built, std::size_t arrays_bytes) const {
  if (memory == 0) return;
  const std::size_t bytes_in_use = memory_in_use(arrays_bytes);
  const std::size_t bytes = labels * ((states_built + 63) / 64 * 8);
  if (bytes_in_use + bytes > memory) {
    throw BuildLimitReached("memory limit reached: " + std::to_string(labels) + " labels of " +
                            std::to_string(states_built) + " states would take " + megabytes(bytes) +
                            " beside the process's " + megabytes(bytes_in_use) + " (--memory-limit " +
                            megabytes(memory) + ")");
  }
}

std::size_t memory_in_use(std::size_t arrays_bytes) { return std::max(resident_bytes(), arrays_bytes); }

std::string megabytes(std::size_t bytes) {
  if (bytes < (1u << 20)) return std::to_string(bytes) + " bytes";
  return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

}  // namespace mdpvi
