// Built with MDPVI_ENABLE_CUDA=OFF: there is no device backend, and the chunk driver
// solves everything on the CPU.
#include "gpu/device_solver.h"
#include "gpu/graph_search.h"

#include <cstdlib>
#include <new>

namespace mdpvi::gpu {

std::unique_ptr<DeviceSolver> open_device() { return nullptr; }
std::unique_ptr<DeviceGraphSearch> upload_graph(const GraphArrays&) { return nullptr; }
std::optional<std::size_t> free_device_memory() { return std::nullopt; }
double measure_copy_bandwidth(std::size_t) { throw DeviceError("mdpvi was built without CUDA"); }

void* allocate_pinned(std::size_t bytes) {
  void* p = std::malloc(bytes == 0 ? 1 : bytes);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void free_pinned(void* pointer) noexcept { std::free(pointer); }

}  // namespace mdpvi::gpu
