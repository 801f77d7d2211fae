#pragma once
// Wall-clock seconds for the phase times mdpvi reports. Plain C++: gpu/ includes it.
#include <chrono>

namespace mdpvi {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace mdpvi
