#pragma once
// A bottom SCC's chain resident on the device, for its stationary distribution
// (engine/solve/bottom_solver.h): its rows go up once, in the model's form, and are
// transposed there; the power sweeps, the embedded system relative to a reference
// state and its BiCGStab solve all run on that copy. On the host the same steps
// take a transpose on all cores and a system built there, and both go over the bus
// (bench/NOTES.md, session 17). Plain C++ header.
#include "engine/model/packed_offsets.h"
#include "engine/numeric/bicgstab_steps.h"
#include "gpu/device_solver.h"
#include "gpu/device_system.h"
#include "gpu/stationary_sweeps.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace mdpvi::gpu {

// A DTMC's rows on the host: one per state, every column below states.
struct ChainRows {
  std::uint64_t states = 0;
  const PackedOffsets* starts = nullptr;  // states + 1
  const std::uint32_t* columns = nullptr;
  ValuesView values{};
};

class ResidentChain {
 public:
  virtual ~ResidentChain() = default;

  // 1 - P(i, i) per state, as engine/solve/bottom_chain.h's transpose_bottom makes it.
  virtual const std::vector<double>& leaving() const = 0;
  // lazy_power_sweeps (stationary_sweeps.h) on the resident chain; its upload_s is 0
  // and its device_bytes include the chain's.
  virtual PowerSweeps lazy_power_sweeps(std::uint64_t max_sweeps, std::uint64_t block_states,
                                        const std::function<bool(double moved)>& after_sweep) = 0;
  // The same sweeps, leaving only their likeliest state on the host (PowerSweeps'
  // likeliest; z empty): what picks a reference needs, without the mass's download.
  virtual PowerSweeps likeliest_after_sweeps(std::uint64_t max_sweeps, std::uint64_t block_states,
                                             const std::function<bool(double moved)>& after_sweep) = 0;
  // engine/solve/bottom_chain.h's embedded_system relative to the state `reference`,
  // built here bit for bit as the host builds it, and solved by BiCGStab within limits
  // from y (states - 1 values, in embedded_unknown's order), which receives the result.
  virtual KrylovChunkStats solve_embedded(std::uint64_t reference, const KrylovLimits& limits, double* y) = 0;
  // That system's rows, starts, columns, values and constants, as built here: for the
  // equivalence tests.
  virtual HostSystemArrays download_embedded(std::uint64_t reference) const = 0;

  // The rows' upload and their transpose, in seconds.
  virtual double upload_s() const = 0;
  virtual double transpose_s() const = 0;
  // The most this chain and its steps have held on the device so far.
  virtual std::size_t peak_bytes() const = 0;
  // The device's memory in use at the end of the last solve_embedded, its system still
  // there, measured (0 before one).
  virtual std::size_t solve_in_use_bytes() const = 0;
  virtual std::uint64_t entries() const = 0;
};

// Uploads rows and transposes them on the current device, where the most the chain
// and its steps would hold at once is within budget_bytes. nullptr without CUDA;
// throws DeviceError (over the budget, out of the device's memory, or entries beyond
// 4-byte indices).
std::unique_ptr<ResidentChain> make_resident_chain(const ChainRows& rows, std::size_t budget_bytes);

}  // namespace mdpvi::gpu
