#pragma once
// How many states the builder's next wave may hold, given what its block pool costs.
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace mdpvi {

struct WaveBudget {
  std::uint64_t least_states, most_states;  // the bounds, whatever the budget
  std::size_t least_pool_bytes;              // the budget of a small model
  std::size_t model_share;                   // the budget is model bytes / model_share
};

// The block pool keeps the capacity of the widest wave it held, so its bytes per
// state are pool_bytes / widest_wave. The next wave's states times that stay within
// the budget: max(least_pool_bytes, model_bytes / model_share), so that the pool grows
// with the model instead of with the widest breadth-first level. Before any wave
// (widest_wave 0) there is no estimate, and the wave is as wide as allowed.
inline std::uint64_t next_wave_states(const WaveBudget& budget, std::size_t pool_bytes, std::uint64_t widest_wave,
                                      std::size_t model_bytes) {
  if (widest_wave == 0 || pool_bytes == 0) return budget.most_states;
  const double bytes_per_state = static_cast<double>(pool_bytes) / static_cast<double>(widest_wave);
  const double bytes = static_cast<double>(std::max(budget.least_pool_bytes, model_bytes / budget.model_share));
  const double fitting = bytes / bytes_per_state;
  if (fitting >= static_cast<double>(budget.most_states)) return budget.most_states;
  return std::max(budget.least_states, static_cast<std::uint64_t>(fitting));
}

}  // namespace mdpvi
