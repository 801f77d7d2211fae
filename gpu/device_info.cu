#include "gpu/device_info.h"

#include <cuda_runtime.h>

namespace mdpvi::gpu {

bool built_with_cuda() { return true; }

std::string cuda_runtime_version() {
  int version = 0;
  if (cudaRuntimeGetVersion(&version) != cudaSuccess) return "unknown";
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::vector<DeviceInfo> list_devices() {
  std::vector<DeviceInfo> devices;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error for later calls
    return devices;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, i) != cudaSuccess) continue;
    devices.push_back({i, properties.name, properties.totalGlobalMem, properties.major, properties.minor});
  }
  return devices;
}

}  // namespace mdpvi::gpu
