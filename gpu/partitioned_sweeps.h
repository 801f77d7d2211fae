#pragma once
// An SCC's parts (engine/solve/partitioned_system.h) on the devices: each part's
// local system and iterates on a device of its own where there are as many devices
// as parts (else shared, part p on device p % count). After each sweep every part
// gathers what the others read of it and copies it straight into their halos
// (device to device, over NVLink where the devices have it), and the host takes the
// largest change of all parts. The sums are made as the CPU makes them (no fused
// multiply-add), so the values equal the CPU's sweeps. Plain C++ header.
#include "engine/numeric/optimistic_guess.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace mdpvi::gpu {

// A part's local system, as the host holds it: own states first, then the halo.
struct PartArrays {
  std::uint64_t own = 0, halo = 0;
  const std::uint64_t* row_group_starts = nullptr;  // own + 1
  const std::uint64_t* row_starts = nullptr;        // rows + 1 (rows: row_group_starts[own])
  const std::uint32_t* columns = nullptr;           // local: < own + halo
  const double* values = nullptr;
  const double* b = nullptr;                        // per row
};

// Halo slots [first_slot, first_slot + count) of a part take source_part's own
// states source_locals[0 .. count).
struct PartBlock {
  std::uint32_t source_part = 0;
  std::uint64_t first_slot = 0;
  const std::uint32_t* source_locals = nullptr;
  std::uint64_t count = 0;
};

struct PartsIntervalSweep {
  double width = 0.0;
  bool upper_raised = false;
  bool crossed = false;
};

class PartitionedDeviceSweeps {
 public:
  virtual ~PartitionedDeviceSweeps() = default;
  // Part p's iterates, both buffers: own values then halo (own + halo values each;
  // upper may be null where there is no upper iterate).
  virtual void load(std::uint32_t part, const double* lower, const double* upper) = 0;
  // As engine/solve/scc_sweeps.h's SccSweeps: one sweep of the lower iterate (the
  // largest change), of both, the lower values kept in the upper iterate, the guess
  // from the lower values and the kept ones, the upper fill.
  virtual double sweep_lower(bool maximize, bool relative) = 0;
  virtual PartsIntervalSweep sweep_both(bool maximize, bool relative) = 0;
  virtual void keep_lower_in_upper() = 0;
  virtual void guess_upper(double target, const GuessParameters& guess) = 0;
  virtual void fill_upper(double bound) = 0;
  // Part p's own values to the host (upper may be null); each iterate's second
  // buffer made equal to its first.
  virtual void read_own(std::uint32_t part, double* lower, double* upper) = 0;
};

// The devices mdpvi can use (0 without CUDA or a device).
int usable_device_count();

// parts[p] with its blocks[p]; throws DeviceError where there is no device or the
// parts do not fit.
std::unique_ptr<PartitionedDeviceSweeps> open_partitioned_sweeps(const std::vector<PartArrays>& parts,
                                                                 const std::vector<std::vector<PartBlock>>& blocks,
                                                                 bool with_upper);

}  // namespace mdpvi::gpu
