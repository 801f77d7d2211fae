#pragma once
// The stationary power sweeps (stationary_sweeps.h) over a chain already on the device:
// what gpu/resident_chain.cu runs on the chain it transposed there. Internal to gpu/.
#include "gpu/stationary_sweeps.h"

#include <cstdint>
#include <functional>

namespace mdpvi::gpu::detail {

// A transposed chain on the device (stationary_sweeps.h's TransposedChain).
struct ChainOnDevice {
  std::uint64_t n;
  const std::uint64_t* starts;
  const std::uint32_t* from;
  const double* probabilities;
  const double* leaving;
};

// What the sweeps leave on the host: the mass, or only its likeliest state.
enum class SweepsEnd { mass, likeliest };

// lazy_power_sweeps' sweeps and stop on c: fills out's z (or likeliest), sweeps,
// solve_s and in_use_bytes, and adds the sweeps' vectors to out's device_bytes (they
// are freed on return).
void run_power_sweeps(const ChainOnDevice& c, std::uint64_t max_sweeps, std::uint64_t block_states,
                      const std::function<bool(double moved)>& after_sweep, SweepsEnd end, PowerSweeps& out);

}  // namespace mdpvi::gpu::detail
