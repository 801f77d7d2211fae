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

// How the system is kept on the device.
// copy: its own matrix and b, the model's rows restricted to the system and
// renumbered (what the host builds; the sweeps read the fewest bytes).
// view: no matrix of its own; the sweeps read the resident model's rows through the
// system's order of states and a local index per model state, and make b as they read
// each row (8 bytes a model state, whatever the rows: the model is on the device once).
// automatic: a view, the model on the device once (resolved at the build: a system's
// storage is copy or view). leader9's solve takes 0.94 s as a view and 0.68 s as a
// copy, with 17.6 GB of the device in use against 31.6 GB (bench/NOTES.md, session 25).
enum class SystemStorage { automatic, copy, view };

// The sizes of a system: its rows and entries (the same for both storages), and the
// model's rows and entries that its sweeps read (a copy's own; a view's, its states'
// rows whole, entries out of the system and rows left out included).
// A view also tells the device memory it holds beyond the model's arrays (its order,
// its local index per model state, the outside states' marks and the rewards).
struct SystemSizes {
  std::uint64_t rows = 0, entries = 0;
  std::uint64_t swept_rows = 0, swept_entries = 0;
  unsigned swept_offset_bytes = 8;  // a swept row offset's width (a view's: the model's on the device)
  std::uint64_t view_bytes = 0;
};

class DeviceSystem {
 public:
  // self_loop_words: bit i (bit i%64 of word i/64) set where local state i has an
  // entry into itself.
  // value_bytes: what an entry's value takes there (8 plain, else its index's bytes).
  DeviceSystem(std::uint32_t states, const SystemSizes& sizes, SystemStorage storage, unsigned value_bytes,
               std::vector<std::uint64_t> self_loop_words);
  virtual ~DeviceSystem() = default;
  DeviceSystem(const DeviceSystem&) = delete;
  DeviceSystem& operator=(const DeviceSystem&) = delete;

  std::uint32_t num_states() const { return states_; }
  std::uint64_t num_rows() const { return sizes_.rows; }
  std::uint64_t num_entries() const { return sizes_.entries; }
  const SystemSizes& sizes() const { return sizes_; }
  SystemStorage storage() const { return storage_; }
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
  // The arrays to the host (a view's made for the call). Throws DeviceError, or
  // std::logic_error once adopted.
  virtual HostSystemArrays download() const = 0;

 private:
  std::uint32_t states_;
  SystemSizes sizes_;
  SystemStorage storage_;
  unsigned value_bytes_;
  std::uint64_t self_loops_;
  std::vector<std::uint64_t> self_loop_words_;
};

}  // namespace mdpvi::gpu
