#pragma once
// A reachability property's maybe-state system built on the device, from the model
// whose structure the graph searches hold there (gpu/graph_search.h): its matrix and
// b never cross PCIe: for a large acyclic system, building it on the host and
// uploading it takes far longer than solving it (bench/NOTES.md, issue 22). A DeviceSolver
// adopts it as a resident chunk (gpu/device_solver.h). Plain C++ header.
#include <cstdint>
#include <vector>

namespace mdpvi::gpu {

// engine/solve/maybe_system.h's arrays, for the equivalence tests.
struct HostSystemArrays {
  std::vector<std::uint64_t> row_group_starts, row_starts;
  std::vector<std::uint32_t> columns;
  std::vector<double> values, row_constants;
};

class DeviceSystem {
 public:
  DeviceSystem(std::uint32_t states, std::uint64_t rows, std::uint64_t entries, std::uint64_t self_loops)
      : states_(states), rows_(rows), entries_(entries), self_loops_(self_loops) {}
  virtual ~DeviceSystem() = default;
  DeviceSystem(const DeviceSystem&) = delete;
  DeviceSystem& operator=(const DeviceSystem&) = delete;

  std::uint32_t num_states() const { return states_; }
  std::uint64_t num_rows() const { return rows_; }
  std::uint64_t num_entries() const { return entries_; }
  // States with an entry into themselves: a trivial SCC with one is iterated.
  std::uint64_t self_loops() const { return self_loops_; }
  // Whether the arrays are still here (a DeviceSolver that adopted them holds them).
  virtual bool holds_arrays() const = 0;
  // The arrays to the host. Throws DeviceError, or std::logic_error once adopted.
  virtual HostSystemArrays download() const = 0;

 private:
  std::uint32_t states_;
  std::uint64_t rows_, entries_, self_loops_;
};

}  // namespace mdpvi::gpu
