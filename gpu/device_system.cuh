#pragma once
// The CUDA side of gpu/device_system.h: the system's arrays, and how they are built
// from the resident graph. Internal to gpu/.
#include "gpu/device_system.h"
#include "gpu/graph_device.cuh"

#include <memory>

namespace mdpvi::gpu::detail {

// engine/solve/maybe_system.h's arrays on the device.
// The values in the model's form: indices into its table where the model has one
// (the system's entries are the model's, so its table serves).
struct SystemArrays {
  DeviceArray<std::uint64_t> row_group_starts, row_starts;
  DeviceArray<std::uint32_t> columns;
  DeviceValueArray values;
  DeviceArray<double> row_constants;
};

class CudaDeviceSystem final : public DeviceSystem {
 public:
  CudaDeviceSystem(std::uint32_t states, std::uint64_t rows, std::uint64_t entries,
                   std::vector<std::uint64_t> self_loop_words, std::unique_ptr<SystemArrays> arrays)
      : DeviceSystem(states, rows, entries, arrays->values.index_bytes() == 0 ? 8u : arrays->values.index_bytes(),
                     std::move(self_loop_words)),
        arrays_(std::move(arrays)) {}
  bool holds_arrays() const override { return arrays_ != nullptr; }
  HostSystemArrays download() const override;
  // For DeviceSolver::adopt. Throws std::logic_error once taken.
  std::unique_ptr<SystemArrays> take();

 private:
  std::unique_ptr<SystemArrays> arrays_;
};

// What b is made of on the device (gpu/graph_search.h's SystemInputs).
struct RowConstants {
  DeviceValues model_values;           // per entry
  const unsigned long long* d_marked;  // per model state
  double marked_value, unmarked_value;
  DeviceValues state_rewards;   // per model state, or none (no array)
  DeviceValues choice_rewards;  // per row, or none
};

// The system of the states d_order[0, count) (local state i is model state
// d_order[i]), as engine/solve/maybe_system.cpp's build_system: the same rows kept,
// the entries into the system's states in the model's order, b summed in the same
// order. On the default stream, done when it returns. Throws DeviceError.
// table: the model's value table on the device, copied into the system's where the
// model's values are indexed.
std::unique_ptr<DeviceSystem> build_device_system(const DeviceGraph& graph, const RowConstants& constants,
                                                  const DeviceValueArray& model_values, const std::uint32_t* d_order,
                                                  std::uint32_t count, int sm_count);

}  // namespace mdpvi::gpu::detail
