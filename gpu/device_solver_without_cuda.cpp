// Built with MDPVI_ENABLE_CUDA=OFF: there is no device backend, and the chunk driver
// solves everything on the CPU.
#include "gpu/device_solver.h"
#include "gpu/graph_search.h"

namespace mdpvi::gpu {

std::unique_ptr<DeviceSolver> open_device() { return nullptr; }
std::unique_ptr<DeviceGraphSearch> upload_graph(const GraphArrays&) { return nullptr; }
std::optional<std::size_t> free_device_memory() { return std::nullopt; }
double measure_copy_bandwidth(std::size_t) { throw DeviceError("mdpvi was built without CUDA"); }

}  // namespace mdpvi::gpu
