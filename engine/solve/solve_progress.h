#pragma once
// What a long solve says while it runs. The sweep loops (CPU and GPU alike) note
// their sweeps here, cheaply; while a solve is active a thread of its own logs one
// line every few seconds (after a quiet first second): the method, the sweeps so
// far, the last change or width, and the time. Nothing is said of a solve that takes
// under a second.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace mdpvi {

class SolveProgress {
 public:
  // Reports for the solve that runs while it lives.
  explicit SolveProgress(std::string method, std::uint64_t states);
  ~SolveProgress();
  SolveProgress(const SolveProgress&) = delete;
  SolveProgress& operator=(const SolveProgress&) = delete;

  // sweeps more, the last one's largest change or width (from any thread).
  void note(std::uint64_t sweeps, double measure);

 private:
  void report_until_stopped();

  std::string method_;
  std::uint64_t states_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::atomic<std::uint64_t> sweeps_{0};
  std::atomic<double> measure_{0.0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread reporter_;
};

// progress->note, where there is a progress to tell (a solve made outside the chunk
// driver, in a test, has none).
inline void note_progress(SolveProgress* progress, std::uint64_t sweeps, double measure) {
  if (progress != nullptr) progress->note(sweeps, measure);
}

}  // namespace mdpvi
