#pragma once
// The CUDA side of gpu/device_system.h: the system's arrays, or its view over the
// resident graph, and how they are built from it. Internal to gpu/.
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

// What a system is made of beside the model's structure, on the device
// (gpu/graph_search.h's SystemInputs): its states in order, and what b is made of.
struct SystemSources {
  DeviceArray<std::uint32_t> order{0};            // the system's states, model indices
  DeviceArray<unsigned long long> marked{0};      // per model state
  double marked_value = 1.0, unmarked_value = 0.0;
  DeviceValueArray state_rewards, choice_rewards;  // or none

  RowConstants constants(const DeviceValues& model_values) const {
    return {model_values, marked.get(), marked_value, unmarked_value, state_rewards.view(), choice_rewards.view()};
  }
};

// A system kept as a view (SystemStorage::view): its sources and the local index of
// each model state (kOutsideChunk: not in the system); the model's arrays are the
// resident graph's, which outlives the solve.
struct SystemView {
  SystemSources sources;
  DeviceArray<std::uint32_t> local{0};
  DeviceGraph graph{};
  DeviceValues values{};
  std::size_t table_size = 0;

  std::uint64_t bytes() const {
    return (sources.order.size() + local.size()) * sizeof(std::uint32_t) + sources.marked.size() * sizeof(unsigned long long) +
           sources.state_rewards.bytes() + sources.choice_rewards.bytes();
  }

  DeviceChunk chunk(std::uint32_t count) const {
    DeviceChunk c{count, graph.d_row_group_starts, nullptr, graph.d_columns, values};
    c.view_row_starts = graph.d_row_starts;
    c.d_order = sources.order.get();
    c.d_local = local.get();
    c.constants = sources.constants(values);
    return c;
  }
};

class CudaDeviceSystem final : public DeviceSystem {
 public:
  CudaDeviceSystem(std::uint32_t states, const SystemSizes& sizes, unsigned index_bytes,
                   std::vector<std::uint64_t> self_loop_words, std::unique_ptr<SystemArrays> arrays)
      : DeviceSystem(states, sizes, SystemStorage::copy, index_bytes == 0 ? 8u : index_bytes, std::move(self_loop_words)),
        arrays_(std::move(arrays)) {}
  CudaDeviceSystem(std::uint32_t states, const SystemSizes& sizes, unsigned index_bytes,
                   std::vector<std::uint64_t> self_loop_words, std::shared_ptr<SystemView> view)
      : DeviceSystem(states, sizes, SystemStorage::view, index_bytes == 0 ? 8u : index_bytes, std::move(self_loop_words)),
        view_(std::move(view)) {}
  bool holds_arrays() const override { return arrays_ != nullptr || view_ != nullptr; }
  HostSystemArrays download() const override;
  // For DeviceSolver::adopt, by storage. Throw std::logic_error once taken.
  std::unique_ptr<SystemArrays> take();
  std::shared_ptr<SystemView> take_view();

 private:
  std::unique_ptr<SystemArrays> arrays_;
  std::shared_ptr<SystemView> view_;
};

// The system of the states sources.order[0, count) (local state i is model state
// order[i]), as engine/solve/maybe_system.cpp's build_system: the same rows kept,
// the entries into the system's states in the model's order, b summed in the same
// order; copied, or kept as a view (which takes the sources). On the default stream,
// done when it returns. Throws DeviceError.
// table_size: the entries of model_values's table, copied into the system's where the
// model's values are indexed.
std::unique_ptr<DeviceSystem> build_device_system(const DeviceGraph& graph, const DeviceValues& model_values,
                                                  std::size_t table_size, SystemSources&& sources, std::uint32_t count,
                                                  SystemStorage storage, int sm_count);

}  // namespace mdpvi::gpu::detail
