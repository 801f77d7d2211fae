#pragma once
// Wall-clock seconds for the phase times mdpvi reports. Plain C++: gpu/ includes it.
#include <chrono>

namespace mdpvi {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Says when a progress line is due: first after a quiet second, then every five
// (a run shorter than a second says nothing).
class ProgressClock {
 public:
  bool due() {
    const auto now = std::chrono::steady_clock::now();
    if (now < next_) return false;
    next_ = now + std::chrono::seconds(5);
    return true;
  }
  double elapsed_s() const { return seconds_since(start_); }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point next_ = start_ + std::chrono::seconds(1);
};

}  // namespace mdpvi
