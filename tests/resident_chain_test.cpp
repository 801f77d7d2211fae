// A bottom SCC's chain resident on the device (gpu/resident_chain.h) against the cores'
// transpose, sweeps and linear solve (engine/solve/bottom_chain.h), and the stationary
// distributions it gives (engine/solve/bottom_solver.h) against the cores', on the
// shapes that break parallel passes. The device's parts are skipped without one.
#include "bottom_chains.h"
#include "engine/solve/bottom_chain.h"
#include "engine/solve/bottom_solver.h"
#include "engine/solve/chunk_driver.h"
#include "engine/solve/krylov_system.h"
#include "gpu/device_solver.h"
#include "gpu/resident_chain.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>

namespace mdpvi {
namespace {

using test::Shape;
using test::shapes;

constexpr std::size_t kNoBudget = std::numeric_limits<std::size_t>::max();

// A shape's rows in its local order, as the resident chain takes them.
struct LocalRows {
  PackedOffsets starts;
  PodVector<std::uint32_t> columns;
  CompactValues values;

  explicit LocalRows(const Shape& shape) {
    starts.push_back(0);
    PodVector<double> plain;
    for (std::uint32_t s : shape.states) {
      for (std::uint64_t k = shape.mdp.row_starts[s]; k < shape.mdp.row_starts[s + 1]; ++k) {
        columns.push_back(shape.local[shape.mdp.columns[k]]);
        plain.push_back(shape.mdp.values[k]);
      }
      starts.push_back(columns.size());
    }
    values = CompactValues(std::move(plain));
  }
  gpu::ChainRows view() const { return {starts.size() - 1, &starts, columns.data(), device_view(values)}; }
};

bool have_device() { return gpu::free_device_memory().has_value(); }

// The transpose's leaving probabilities and the sweeps, bit for bit, with the cores'
// stop (bottom_chain.h's power_sweeps_with): to convergence, cut off, and none.
TEST(ResidentChain, TransposeAndSweepsAreEquivalentToRef) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  for (const Shape& shape : shapes()) {
    if (shape.states.size() < 2) continue;
    const LocalRows rows(shape);
    const std::unique_ptr<gpu::ResidentChain> resident = gpu::make_resident_chain(rows.view(), kNoBudget);
    const BottomChain chain = transpose_bottom(shape.mdp, shape.states, shape.local);
    SCOPED_TRACE(testing::Message() << shape.states.size() << " states");
    EXPECT_EQ(resident->leaving(), chain.leaving);
    EXPECT_EQ(resident->entries(), chain.from.size());
    for (const auto& [tolerance_, sweeps_] : {std::pair{0.0, 200u}, std::pair{1e-6, 5000u}, std::pair{1e-6, 0u}}) {
      const double tolerance = tolerance_;  // copies: the lambdas below capture them
      const std::uint64_t sweeps = sweeps_;
      SCOPED_TRACE(testing::Message() << "tolerance " << tolerance << ", " << sweeps << " sweeps");
      SolveStats device_stats, cpu_stats;
      SolveReport report;
      const std::optional<gpu::PowerSweeps> device = device_power_sweeps(
          [&](std::uint64_t block_states, const std::function<bool(double)>& after_sweep) {
            return std::optional<gpu::PowerSweeps>(resident->lazy_power_sweeps(sweeps, block_states, after_sweep));
          },
          chain.size(), chain.from.size(), sweeps, tolerance, device_stats, &report, nullptr);
      const std::vector<double> cpu = lazy_power_sweeps(chain, sweeps, tolerance, cpu_stats);
      ASSERT_TRUE(device.has_value());
      EXPECT_EQ(from_embedded(device->z, resident->leaving()), cpu);
      EXPECT_EQ(device_stats.iterations, cpu_stats.iterations);
      EXPECT_EQ(device_stats.converged, cpu_stats.converged);
      // Every sweep allowed, only the likeliest state on the host: the distribution's largest.
      if (tolerance == 0.0) {
        const gpu::PowerSweeps only = resident->likeliest_after_sweeps(sweeps, 4096, [](double) { return false; });
        EXPECT_TRUE(only.z.empty());
        EXPECT_EQ(only.likeliest, std::max_element(cpu.begin(), cpu.end()) - cpu.begin());
      }
    }
  }
}

// check(shape, resident, chain, reference) for every shape of two states or more, its
// chain resident on the device and transposed on the cores, relative to the first, the
// last and a middle state.
template <typename Check>
void for_each_reference(Check check) {
  for (const Shape& shape : shapes()) {
    const std::size_t n = shape.states.size();
    if (n < 2) continue;
    const LocalRows rows(shape);
    const std::unique_ptr<gpu::ResidentChain> resident = gpu::make_resident_chain(rows.view(), kNoBudget);
    const BottomChain chain = transpose_bottom(shape.mdp, shape.states, shape.local);
    for (std::size_t reference : {std::size_t{0}, n - 1, n / 2}) {
      SCOPED_TRACE(testing::Message() << n << " states, reference " << reference);
      check(shape, *resident, chain, reference);
    }
  }
}

// The embedded system built on the device, bit for bit the cores' (bottom_chain.h).
TEST(ResidentChain, EmbeddedSystemIsEquivalentToRef) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  for_each_reference([](const Shape& shape, gpu::ResidentChain& resident, const BottomChain& chain,
                        std::size_t reference) {
    const gpu::HostSystemArrays device = resident.download_embedded(reference);
    const MaybeSystem cpu = embedded_system(chain, shape.states, reference);
    EXPECT_EQ(device.row_starts, std::vector<std::uint64_t>(cpu.row_starts.begin(), cpu.row_starts.end()));
    EXPECT_EQ(device.columns, std::vector<std::uint32_t>(cpu.columns.begin(), cpu.columns.end()));
    ASSERT_EQ(device.values.size(), cpu.values.size());
    for (std::size_t k = 0; k < device.values.size(); ++k) ASSERT_EQ(device.values[k], cpu.values[k]) << k;
    EXPECT_EQ(device.row_constants, std::vector<double>(cpu.row_constants.begin(), cpu.row_constants.end()));
  });
}

// Its BiCGStab solve against the cores' (BiCGStab alone: no sweeps after it): both
// converge or neither does (the long ring's shift breaks BiCGStab down on both), and
// where they do, to the same solution.
TEST(ResidentChain, EmbeddedSolveIsTheCores) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  for_each_reference([](const Shape& shape, gpu::ResidentChain& resident, const BottomChain& chain,
                        std::size_t reference) {
    const std::size_t n = shape.states.size();
    SolverOptions options;
    options.method = Method::bicgstab;
    options.stop.epsilon = 1e-13;
    options.stop.max_sweeps = 5000;
    options.sweeps_after_krylov = false;
    std::vector<double> y(n - 1, 0.0);
    const gpu::KrylovChunkStats device = resident.solve_embedded(reference, krylov_limits(options.stop), y.data());
    const SolveResult cpu = solve({.system = embedded_system(chain, shape.states, reference),
                                   .direction = Optimization::minimize, .options = options},
                                  DeviceOptions{SolverKind::cpu});
    ASSERT_EQ(cpu.lower.size(), n - 1);
    ASSERT_EQ(device.stats.converged, cpu.report.stats.converged);
    if (!device.stats.converged) return;
    for (std::size_t u = 0; u < n - 1; ++u) EXPECT_NEAR(y[u], cpu.lower[u], 1e-9 * std::abs(cpu.lower[u])) << u;
  });
}

// The whole model as the BSCC (its rows uploaded as they are), a shuffled order (its
// rows gathered), and a budget too small for the device (the cores' transpose): each
// the cores' distribution.
TEST(BottomStationaryDistribution, OnTheDeviceIsTheCoresDistribution) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  SolverOptions options;
  options.stop.epsilon = 1e-10;
  for (const Shape& shape : shapes()) {
    const std::size_t n = shape.states.size();
    if (n < 2) continue;
    std::vector<std::uint32_t> in_order(n);
    std::iota(in_order.begin(), in_order.end(), 0u);
    const std::vector<std::uint32_t>* orders[] = {&in_order, &shape.states};
    for (const std::vector<std::uint32_t>* states : orders) {
      DeviceOptions cpu{SolverKind::cpu}, gpu{SolverKind::gpu}, small{SolverKind::gpu};
      small.memory_limit_bytes = 1000;
      std::vector<std::uint32_t> local(n);
      SolveReport cpu_report;
      const std::vector<double> expected =
          bottom_stationary_distribution(shape.mdp, *states, local, options, cpu, cpu_report);
      for (const DeviceOptions* device : {&gpu, &small}) {
        SCOPED_TRACE(testing::Message() << n << " states" << (states == &in_order ? ", in order" : ", shuffled")
                                        << (device == &small ? ", a budget of 1000 bytes" : ""));
        SolveReport report;
        const std::vector<double> pi =
            bottom_stationary_distribution(shape.mdp, *states, local, options, *device, report);
        ASSERT_EQ(pi.size(), n);
        EXPECT_FALSE(report.chunks.empty());
        // The long ring mixes too slowly for the sweeps allowed: neither converges, and
        // both stop at the same sweeps' distribution.
        ASSERT_EQ(report.stats.converged, cpu_report.stats.converged);
        for (std::size_t i = 0; i < n; ++i) EXPECT_NEAR(pi[i], expected[i], 1e-10) << i;
      }
    }
  }
}

}  // namespace
}  // namespace mdpvi
