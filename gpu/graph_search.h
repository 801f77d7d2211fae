#pragma once
// The CUDA backend of the qualitative searches (graph/search_backend.h) on a copy of
// the model's structure that stays on the device for every property of a run.
// Plain C++ header. Bit sets travel as 64-bit words: bit i is bit i%64 of word
// i/64 (boost::dynamic_bitset's blocks), the device reads and writes the same layout.
#include <cstddef>
#include <cstdint>
#include <memory>

namespace mdpvi::gpu {

struct GraphArrays {  // host arrays of a model's structure
  std::uint32_t num_states = 0;
  std::uint64_t num_rows = 0;
  std::uint64_t num_entries = 0;
  const std::uint64_t* row_group_starts = nullptr;  // num_states + 1
  const std::uint64_t* row_starts = nullptr;        // num_rows + 1
  const std::uint32_t* columns = nullptr;           // num_entries
  // Per state t, the rows with t as a successor: pred_rows[pred_offsets[t] ..
  // pred_offsets[t+1]), each as num_states + row (graph/qualitative.h's vertex ids).
  const std::uint64_t* pred_offsets = nullptr;      // num_states + 1
  const std::uint32_t* pred_rows = nullptr;         // pred_offsets[num_states]
};

// The device memory the graph and the searches' working sets take.
std::size_t graph_footprint_bytes(std::uint64_t states, std::uint64_t rows, std::uint64_t entries,
                                  std::uint64_t pred_entries);

class DeviceGraphSearch {
 public:
  virtual ~DeviceGraphSearch() = default;
  // As graph::SearchBackend's, on word arrays (allowed_rows may be null: every row).
  // Throw DeviceError.
  virtual void backward_exists(const std::uint64_t* sources, const std::uint64_t* allowed_states,
                               const std::uint64_t* allowed_rows, std::uint64_t* reached) = 0;
  virtual void backward_forall(const std::uint64_t* sources, const std::uint64_t* allowed_states,
                               std::uint64_t* attracted) = 0;
  virtual void rows_staying_in(const std::uint64_t* inside, std::uint64_t* stays) = 0;
};

// Uploads the graph; nullptr without a usable device (or CUDA). Throws DeviceError
// (OutOfDeviceMemory when it does not fit).
std::unique_ptr<DeviceGraphSearch> upload_graph(const GraphArrays& graph);

}  // namespace mdpvi::gpu
