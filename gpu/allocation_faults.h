#pragma once
// Injected device-allocation failures, for the tests of the CPU fallback (a device
// that fills up mid-run must cost time, never the answer). The environment variable
// MDPVI_TEST_FAIL_DEVICE_ALLOCATIONS=N makes the N-th device allocation since the
// last restart fail as on a full device (OutOfDeviceMemory); "N-" makes that one and
// every later one fail. Unset, allocations are only counted.
#include <cstdint>

namespace mdpvi::gpu {

inline constexpr const char* kFailDeviceAllocationsVariable = "MDPVI_TEST_FAIL_DEVICE_ALLOCATIONS";

// Device allocations since the last restart.
std::uint64_t device_allocations_counted();
void restart_device_allocation_count();

// Called before each device allocation: counts it, and throws OutOfDeviceMemory where
// the variable says this one fails.
void count_device_allocation();

}  // namespace mdpvi::gpu
