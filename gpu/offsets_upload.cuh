#pragma once
// The host's packed offsets (engine/model/packed_offsets.h) uploaded as the device
// reads them: in 4 bytes where every one is below 2^32, else in 8. Internal to gpu/.
#include "engine/model/packed_offsets.h"
#include "gpu/cuda_support.cuh"

#include <cstdint>

namespace mdpvi::gpu::detail {

// The low words, which are the offsets. Pre: host.fit_32_bits().
DeviceArray<std::uint32_t> upload_narrow(const PackedOffsets& host);
// In 8 bytes, a piece at a time: the low words widened on the device where they are
// the offsets, else written out whole on the host.
DeviceArray<std::uint64_t> upload_wide(const PackedOffsets& host, int sm_count);

}  // namespace mdpvi::gpu::detail
