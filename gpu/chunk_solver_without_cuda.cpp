#include "gpu/chunk_solver.h"

#include <cstdlib>
#include <new>
#include <string>

// Built with MDPVI_ENABLE_CUDA=OFF: there is never a device, so the engine never
// calls the solving functions; if something does, it is told so.
namespace mdpvi::gpu {

namespace {
[[noreturn]] void no_cuda() { throw DeviceError("mdpvi was built without CUDA"); }
}  // namespace

std::size_t chunk_footprint_bytes(std::uint64_t states, std::uint64_t rows, std::uint64_t entries) {
  return (states + 1) * 8 + (rows + 1) * 8 + entries * (4 + 8) + rows * 8 + states * 8 * 2 + 256;
}
std::optional<std::size_t> free_device_memory() { return std::nullopt; }
std::string device_name() { return "no device"; }
int choose_group_size(const ChunkMatrix&) { return 1; }
ChunkSolveStats solve_chunk_on_device(const ChunkMatrix&, const SweepSettings&, double*) { no_cuda(); }
double sweep_once_on_device(const ChunkMatrix&, const SweepSettings&, const double*, double*) { no_cuda(); }
double measure_copy_bandwidth(std::size_t) { no_cuda(); }
IntervalChunkStats solve_chunk_interval_on_device(const ChunkMatrix&, const IntervalInputs&, const SweepSettings&,
                                                  double*, double*) {
  no_cuda();
}
IntervalSweepResult interval_sweep_once_on_device(const ChunkMatrix&, const IntervalInputs&, const SweepSettings&,
                                                  const double*, const double*, double*, double*) {
  no_cuda();
}

}  // namespace mdpvi::gpu

namespace mdpvi::gpu {

void* allocate_pinned(std::size_t bytes) {
  void* p = std::malloc(bytes == 0 ? 1 : bytes);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void free_pinned(void* pointer) noexcept { std::free(pointer); }

struct ChunkPipeline::Slot {};
struct ChunkPipeline::Streams {};
ChunkPipeline::ChunkPipeline() { no_cuda(); }
ChunkPipeline::~ChunkPipeline() = default;
int ChunkPipeline::upload(const ChunkMatrix&) { no_cuda(); }
ChunkSolveStats ChunkPipeline::solve(int, const double*, const SweepSettings&, double*) { no_cuda(); }

}  // namespace mdpvi::gpu
