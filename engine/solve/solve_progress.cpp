#include "engine/solve/solve_progress.h"

#include <spdlog/spdlog.h>

namespace mdpvi {

namespace {

constexpr auto kQuietFor = std::chrono::seconds(1);
constexpr auto kInterval = std::chrono::seconds(5);

}  // namespace

SolveProgress::SolveProgress(std::string method, std::uint64_t states)
    : method_(std::move(method)), states_(states) {
  reporter_ = std::thread([this] { report_until_stopped(); });
}

SolveProgress::~SolveProgress() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  reporter_.join();
}

void SolveProgress::note(std::uint64_t sweeps, double measure) {
  sweeps_.fetch_add(sweeps, std::memory_order_relaxed);
  measure_.store(measure, std::memory_order_relaxed);
}

void SolveProgress::report_until_stopped() {
  std::unique_lock lock(mutex_);
  auto next = start_ + kQuietFor;
  while (!wake_.wait_until(lock, next, [this] { return stopping_; })) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    spdlog::info("{}: {} sweeps so far (summed over SCCs) on {} states, last change or width {:.3g}, {:.0f} s", method_,
                 sweeps_.load(std::memory_order_relaxed), states_, measure_.load(std::memory_order_relaxed), elapsed);
    next += kInterval;
  }
}

}  // namespace mdpvi
