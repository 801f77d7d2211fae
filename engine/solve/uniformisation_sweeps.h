#pragma once
// The sweeps of uniformisation (engine/check/transient.h): the steps of a DTMC's
// system, x_0 = start and x_{k+1} = A x_k + b, summed with Poisson weights. One row
// per state: the system of a DTMC (a CTMC's uniformised chain), built over all the
// states that move (engine/solve/maybe_system.h; b holds what the fixed ones add).
#include "engine/model/state_numbers.h"
#include "engine/solve/chunk_driver.h"
#include "engine/solve/maybe_system.h"

#include <cstdint>
#include <vector>

namespace mdpvi {

// sum over k = first .. first + weights.size() - 1 of weights[k - first] * x_k, per
// system state. Pre: the system is on the host, one row per state; start has
// num_states entries.
StateNumbers weighted_steps(const MaybeSystem& system, const double* start, const std::vector<double>& weights,
                            std::uint64_t first);

// The steps of a reachability within k steps where every state reaches the target
// almost surely: they rise towards 1. Once the least is within close of 1 (checked
// from step `first` on), the rest of the weights go to that step's values, and
// settled_gap says what that may leave out: the rest's weight times 1 - the least.
// A close below 0 never stops early (weighted_steps).
struct WeightedSum {
  StateNumbers sum;
  double settled_gap = 0.0;
  std::uint64_t steps = 0;  // the steps taken
};
WeightedSum weighted_steps_towards_one(const MaybeSystem& system, const double* start,
                                       const std::vector<double>& weights, std::uint64_t first, double close);

// weighted_steps_towards_one on the device where the options allow one and the
// system is large enough to gain (or the GPU is required), else on all cores: the
// same sums bit for bit. A device that fails leaves them to the CPU (said in the log).
// report gets the run (a chunk on the GPU or not, its steps and seconds).
WeightedSum weighted_steps_on(const MaybeSystem& system, const double* start, const std::vector<double>& weights,
                              std::uint64_t first, double close, const DeviceOptions& device, SolveReport& report);

// The same, one state at a time on one core: the reference the parallel one is
// tested against.
StateNumbers weighted_steps_reference(const MaybeSystem& system, const double* start,
                                      const std::vector<double>& weights, std::uint64_t first);

}  // namespace mdpvi
