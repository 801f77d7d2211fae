#pragma once
// Which CUDA devices this process can use. Plain C++ header: no CUDA types leak out.
#include <cstddef>
#include <string>
#include <vector>

namespace mdpvi::gpu {

struct DeviceInfo {
  int index = 0;
  std::string name;
  std::size_t total_memory_bytes = 0;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
};

// True when mdpvi was built with CUDA.
bool built_with_cuda();
// The CUDA runtime mdpvi was built with ("13.0"), or "none" without CUDA.
std::string cuda_runtime_version();

// The devices the CUDA runtime reports; empty without a driver, a device or CUDA
// support. Never throws: "no device" is an answer, not an error.
std::vector<DeviceInfo> list_devices();

}  // namespace mdpvi::gpu
