#pragma once
// The steps of uniformisation (engine/solve/uniformisation_sweeps.h) on the device:
// x_0 = start, x_{k+1} = A x_k + b, summed with Poisson weights, each operation in
// the host's order and without fused multiply-adds, so that the sums are the host's
// bit for bit. Plain C++ header.
#include "gpu/device_solver.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mdpvi::gpu {

struct WeightedSteps {
  std::vector<double> sum;
  std::uint64_t steps = 0;  // the steps taken
  // Where the steps settled (close >= 0): the weight of the steps after it, and the
  // least value then (the sum's gap is at most rest * (1 - least)).
  bool settled = false;
  double rest = 0.0, least = 1.0;
  double solve_s = 0.0, upload_s = 0.0;
  std::size_t device_bytes = 0;  // what the steps held on the device: the chain, b and four vectors
  std::size_t in_use_bytes = 0;  // measured: the device's memory in use at the end, before release
};

// engine/solve/uniformisation_sweeps.h's weighted_steps_towards_one over the system
// (one row per state: row_starts alone is read; its values plain), b and start one per
// state, on the current device. nullopt without CUDA; throws DeviceError.
std::optional<WeightedSteps> weighted_steps(const ChunkMatrix& system, const double* b, const double* start,
                                            const std::vector<double>& weights, std::uint64_t first, double close);

}  // namespace mdpvi::gpu
