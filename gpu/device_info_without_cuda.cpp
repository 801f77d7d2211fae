#include "gpu/device_info.h"

// Used when mdpvi is built with MDPVI_ENABLE_CUDA=OFF.
namespace mdpvi::gpu {

bool built_with_cuda() { return false; }

std::string cuda_runtime_version() { return "none"; }

std::vector<DeviceInfo> list_devices() { return {}; }

}  // namespace mdpvi::gpu
