#pragma once
// gpu/device_solver.h's WindowRows counted on the device, for a resident chunk whose
// host arrays are gone (an adopted system): its windows get lanes of their own as an
// uploaded chunk's do. Internal to gpu/.
#include "gpu/cuda_support.cuh"

namespace mdpvi::gpu::detail {

// States [first, end) of m (clamped to its states); squares only where asked. On the
// default stream, done when it returns. Throws DeviceError.
WindowRows device_window_rows(const DeviceChunk& m, std::uint64_t first, std::uint64_t end, bool with_squares,
                              int sm_count);

}  // namespace mdpvi::gpu::detail
