#pragma once
// What -v says of a build: the wall time and page faults of each phase, how busy the
// threads were in the blocks' work, and where the first phase's thread time went.
// Beside a phase's wall time, the blocks' busy time shows how much of the threads'
// time goes to waiting.
#include "engine/model/stopwatch.h"

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdint>

namespace mdpvi {

// Adds the time since the last lap to one of a few counters (none: reads no clock).
class PartClock {
 public:
  explicit PartClock(std::atomic<std::int64_t>* totals) : totals_(totals) {
    if (totals_ != nullptr) last_ = std::chrono::steady_clock::now();
  }
  void lap(int part) {
    if (totals_ == nullptr) return;
    const auto now = std::chrono::steady_clock::now();
    totals_[part].fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(now - last_).count(),
                            std::memory_order_relaxed);
    last_ = now;
  }

 private:
  std::atomic<std::int64_t>* totals_;
  std::chrono::steady_clock::time_point last_;
};

template <typename Work>
void timed_into(double& total, Work work) {
  auto start = std::chrono::steady_clock::now();
  work();
  total += seconds_since(start);
}

// The phases: 0 expand and look up, 1 claims, 2 number and write, 3 finish; the
// first three run over blocks. Counted only for -v (verbose): a deep, narrow model
// has a wave per state, and on some machines a clock read costs more than a state.
struct BuildPhases {
  explicit BuildPhases(bool verbose) : verbose(verbose) {}

  // Adds a phase's wall time and, with count_faults, its page faults (a fault costs
  // microseconds, more with many threads faulting at once). Counting them is two
  // getrusage calls, each a pass over every thread's run time: the caller leaves out
  // the waves of one block, for a deep, narrow model has a wave per state (the chain
  // of a million states built 7x slower with -v for them).
  template <typename Work>
  void timed(int phase, Work work, bool count_faults = true) {
    if (!verbose) return work();
    if (!count_faults) return timed_into(seconds[phase], work);
    const long before = minor_faults();
    timed_into(seconds[phase], work);
    faults[phase] += minor_faults() - before;
  }
  // Adds work's wall time to total.
  template <typename Work>
  void add(double& total, Work work) {
    if (!verbose) return work();
    timed_into(total, work);
  }
  // The counters a PartClock adds to: none where nothing is counted.
  std::atomic<std::int64_t>* busy_clock() { return verbose ? busy_ns : nullptr; }
  std::atomic<std::int64_t>* part_clock() { return verbose ? part_ns : nullptr; }

  static long minor_faults() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt;
  }

  const bool verbose;
  double seconds[4] = {0, 0, 0, 0};
  long faults[4] = {0, 0, 0, 0};                       // the process's minor page faults in each
  std::atomic<std::int64_t> busy_ns[3] = {0, 0, 0};    // the blocks' work in the first three
  // The threads' time in the parts of the first phase (expand, repeats, look up,
  // merge), which tells which part slows down when many threads share the table.
  std::atomic<std::int64_t> part_ns[4] = {0, 0, 0, 0};
  // Work outside the blocks: growing (rehashing) the table in the first phase,
  // populating ahead (beside the three phases), and the waves' wait for that.
  double table_growth_s = 0, populate_s = 0, populate_wait_s = 0;
};

}  // namespace mdpvi
