#include "gpu/device_system.h"

#include <bit>
#include <numeric>

namespace mdpvi::gpu {

DeviceSystem::DeviceSystem(std::uint32_t states, const SystemSizes& sizes, SystemStorage storage, unsigned value_bytes,
                           std::vector<std::uint64_t> self_loop_words)
    : states_(states),
      sizes_(sizes),
      storage_(storage),
      value_bytes_(value_bytes),
      self_loops_(std::accumulate(self_loop_words.begin(), self_loop_words.end(), std::uint64_t{0},
                                  [](std::uint64_t sum, std::uint64_t word) { return sum + std::popcount(word); })),
      self_loop_words_(std::move(self_loop_words)) {}

}  // namespace mdpvi::gpu
