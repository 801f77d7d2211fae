// Built with MDPVI_ENABLE_CUDA=OFF: there is no device backend, and the chunk driver
// solves everything on the CPU.
#include "gpu/device_solver.h"
#include "gpu/graph_search.h"
#include "gpu/partitioned_sweeps.h"
#include "gpu/resident_chain.h"
#include "gpu/stationary_sweeps.h"
#include "gpu/uniformisation_steps.h"

namespace mdpvi::gpu {

std::unique_ptr<DeviceSolver> open_device() { return nullptr; }
std::unique_ptr<DeviceSolver> open_device(int) { return nullptr; }
std::unique_ptr<DeviceGraphSearch> upload_graph(const GraphArrays&) { return nullptr; }
std::optional<std::size_t> free_device_memory() { return std::nullopt; }
std::optional<WeightedSteps> weighted_steps(const ChunkMatrix&, const double*, const double*, const std::vector<double>&,
                                            std::uint64_t, double) {
  return std::nullopt;
}
std::optional<PowerSweeps> lazy_power_sweeps(const TransposedChain&, std::uint64_t, std::uint64_t,
                                             const std::function<bool(double)>&) {
  return std::nullopt;
}
std::unique_ptr<ResidentChain> make_resident_chain(const ChainRows&, std::size_t) { return nullptr; }
double measure_copy_bandwidth(std::size_t) { throw DeviceError("mdpvi was built without CUDA"); }
int usable_device_count() { return 0; }
HostSystemArrays cut_on_device(const SystemRows&) { throw DeviceError("mdpvi was built without CUDA"); }
std::unique_ptr<PartitionedDeviceSweeps> open_partitioned_sweeps(const std::vector<PartArrays>&,
                                                                 const std::vector<std::vector<PartBlock>>&, bool) {
  throw DeviceError("mdpvi was built without CUDA");
}

}  // namespace mdpvi::gpu
