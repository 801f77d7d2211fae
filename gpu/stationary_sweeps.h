#pragma once
// Power iteration on a bottom SCC's lazy embedded chain (engine/solve/bottom_chain.h's
// lazy_power_sweeps) on the device: each sweep pulls every state's terms along its
// transposed entries in the host's order, with the host's operations and without
// fused multiply-adds, and the mass it moved is summed per block of states as the
// host sums it, so that the sweeps, their stop and their result are the host's bit
// for bit. Plain C++ header.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace mdpvi::gpu {

// A transposed chain on the host: for each state i, the entries (from[e], P(from[e],
// i)) for e in [starts[i], starts[i + 1]), and each state's probability of leaving
// itself.
struct TransposedChain {
  std::uint64_t states = 0;
  const std::uint64_t* starts = nullptr;  // states + 1
  const std::uint32_t* from = nullptr;
  const double* probabilities = nullptr;
  const double* leaving = nullptr;
};

struct PowerSweeps {
  std::vector<double> z;  // the embedded chain's mass (not divided by leaving)
  // Where asked for in z's place (ResidentChain::likeliest_after_sweeps): the state
  // of the largest z_i / leaving_i, the first of equals.
  std::uint64_t likeliest = 0;
  std::uint64_t sweeps = 0;
  double upload_s = 0.0, solve_s = 0.0;
  std::size_t device_bytes = 0;  // the chain and the sweeps' vectors
  std::size_t in_use_bytes = 0;  // the device's memory in use at their end, measured
};

// From the uniform distribution, until after_sweep, told the mass each sweep moved
// (summed per block of block_states states, the blocks' sums added in order), says to
// stop, or max_sweeps have run. nullopt without CUDA; throws DeviceError.
std::optional<PowerSweeps> lazy_power_sweeps(const TransposedChain& chain, std::uint64_t max_sweeps,
                                             std::uint64_t block_states,
                                             const std::function<bool(double moved)>& after_sweep);

}  // namespace mdpvi::gpu
