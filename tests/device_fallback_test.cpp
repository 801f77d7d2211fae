// A device that fails an allocation mid-run costs time, never the answer: the graph
// searches and the chunks it was to take fall back to the CPU. Failures are injected
// (gpu/allocation_faults.h) at each allocation of a run in turn, once and for good.
// Skipped without a device.
#include "gpu/allocation_faults.h"
#include "gpu/device_solver.h"
#include "reference_instances.h"
#include "engine/pipeline/check_run.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>

namespace mdpvi {
namespace {

// Sets the injection variable for one run, and clears it whatever happens.
class InjectedFailures {
 public:
  explicit InjectedFailures(const std::string& value) {
    gpu::restart_device_allocation_count();
    setenv(gpu::kFailDeviceAllocationsVariable, value.c_str(), 1);
  }
  ~InjectedFailures() { unsetenv(gpu::kFailDeviceAllocationsVariable); }
  InjectedFailures(const InjectedFailures&) = delete;
  InjectedFailures& operator=(const InjectedFailures&) = delete;
};

// The allocations to fail: the first six (the graph's upload and its first searches),
// then six spread over the rest (chunks and their prefetches). A wider first version
// (22 points each way, with and without chunks: 88 runs) took 148 s on the H100; every
// run answered as PRISM.
std::set<std::uint64_t> failure_points(std::uint64_t allocations) {
  std::set<std::uint64_t> points;
  for (std::uint64_t n = 1; n <= std::min<std::uint64_t>(6, allocations); ++n) points.insert(n);
  for (std::uint64_t k = 1; k <= 6; ++k) points.insert(std::max<std::uint64_t>(1, allocations * k / 6));
  return points;
}

TEST(DeviceFallback, AnswersAreUnchangedWhenADeviceAllocationFails) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  if (!test::have_shared()) GTEST_SKIP();
  const nlohmann::json& expected = test::reference().at("coin4_2");
  {
    pipeline::CheckOptions options = test::reference_check(expected);
    options.device = {SolverKind::gpu, std::size_t{30000}};  // chunks, some of them prefetched
    options.search = graph::SearchKind::gpu;
    gpu::restart_device_allocation_count();
    test::expect_matches_reference(pipeline::run_check(options), expected);
    const std::uint64_t allocations = gpu::device_allocations_counted();
    ASSERT_GT(allocations, 4u) << "the run must use the device";
    for (std::uint64_t n : failure_points(allocations)) {
      for (const std::string& value : {std::to_string(n), std::to_string(n) + "-"}) {
        SCOPED_TRACE("MDPVI_TEST_FAIL_DEVICE_ALLOCATIONS=" + value + " of " + std::to_string(allocations));
        InjectedFailures failures(value);
        const pipeline::CheckReport report = pipeline::run_check(options);
        EXPECT_EQ(test::expect_matches_reference(report, expected),
                  static_cast<int>(expected.at("properties").size()));
      }
    }
  }
}

// "N" fails the N-th allocation only; "N-" that one and every later one.
TEST(DeviceFallback, InjectionFailsTheAllocationsItNames) {
  {
    InjectedFailures failures("2");
    EXPECT_NO_THROW(gpu::count_device_allocation());
    EXPECT_THROW(gpu::count_device_allocation(), gpu::OutOfDeviceMemory);
    EXPECT_NO_THROW(gpu::count_device_allocation());
    EXPECT_EQ(gpu::device_allocations_counted(), 3u);
  }
  {
    InjectedFailures failures("2-");
    EXPECT_NO_THROW(gpu::count_device_allocation());
    EXPECT_THROW(gpu::count_device_allocation(), gpu::OutOfDeviceMemory);
    EXPECT_THROW(gpu::count_device_allocation(), gpu::OutOfDeviceMemory);
  }
  EXPECT_NO_THROW(gpu::count_device_allocation());  // unset: counted only
}

}  // namespace
}  // namespace mdpvi
