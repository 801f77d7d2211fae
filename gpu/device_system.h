#pragma once
// A reachability property's maybe-state system built on the device, from the model
// whose structure the graph searches hold there (gpu/graph_search.h): its matrix and
// b never cross PCIe: for a large acyclic system, building it on the host and
// uploading it takes far longer than solving it (bench/NOTES.md, issue 22). A DeviceSolver
// adopts it as a resident chunk (gpu/device_solver.h). Plain C++ header.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mdpvi::gpu {

// Per-entry numbers as engine/model/compact_values.h keeps them: plain doubles, or
// index_bytes-byte indices (1 or 2) into a table of the distinct values.
struct ValuesView {
  const double* plain = nullptr;
  const std::uint8_t* indices = nullptr;
  unsigned index_bytes = 0;
  const double* table = nullptr;
  std::size_t table_size = 0;

  bool empty() const { return plain == nullptr && indices == nullptr; }
};


// engine/solve/maybe_system.h's arrays, for the equivalence tests.
struct HostSystemArrays {
  std::vector<std::uint64_t> row_group_starts, row_starts;
  std::vector<std::uint32_t> columns;
  std::vector<double> values, row_constants;
};

class DeviceSystem {
 public:
  // self_loop_words: bit i (bit i%64 of word i/64) set where local state i has an
  // entry into itself.
  // value_bytes: what an entry's value takes there (8 plain, else its index's bytes).
  DeviceSystem(std::uint32_t states, std::uint64_t rows, std::uint64_t entries, unsigned value_bytes,
               std::vector<std::uint64_t> self_loop_words);
  virtual ~DeviceSystem() = default;
  DeviceSystem(const DeviceSystem&) = delete;
  DeviceSystem& operator=(const DeviceSystem&) = delete;

  std::uint32_t num_states() const { return states_; }
  std::uint64_t num_rows() const { return rows_; }
  std::uint64_t num_entries() const { return entries_; }
  unsigned value_bytes() const { return value_bytes_; }
  // States with an entry into themselves: a trivial SCC with one is iterated. Kept on
  // the host (a bit a state), so that the solve can tell its trivial SCCs without
  // the matrix.
  std::uint64_t self_loops() const { return self_loops_; }
  bool has_self_loop(std::uint32_t local_state) const {
    return (self_loop_words_[local_state / 64] >> (local_state % 64)) & 1u;
  }
  // Whether the arrays are still here (a DeviceSolver that adopted them holds them).
  virtual bool holds_arrays() const = 0;
  // The arrays to the host. Throws DeviceError, or std::logic_error once adopted.
  virtual HostSystemArrays download() const = 0;

 private:
  std::uint32_t states_;
  std::uint64_t rows_, entries_;
  unsigned value_bytes_;
  std::uint64_t self_loops_;
  std::vector<std::uint64_t> self_loop_words_;
};

}  // namespace mdpvi::gpu
