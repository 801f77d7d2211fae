#include "engine/solve/uniformisation_sweeps.h"

#include "engine/solve/bellman.h"
#include "engine/model/parallel_indices.h"
#include "gpu/partitioned_sweeps.h"
#include "gpu/uniformisation_steps.h"

#include <oneapi/tbb/parallel_reduce.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace mdpvi {

namespace {

void require_one_row_per_state(const MaybeSystem& system) {
  if (system.on_device || system.num_rows() != system.num_states()) {
    throw std::invalid_argument("uniformisation sweeps need a host system with one row per state");
  }
}

template <typename Read>
WeightedSum weighted_steps_read(const MaybeSystem& system, const double* start, const std::vector<double>& weights,
                                std::uint64_t first, double close, const Read& read);

}  // namespace

// One pass over the states per step: each adds its weighted value to the sum and
// computes its next value (none after the last step weighed); where asked, the pass
// also finds the least next value, to stop once all are within `close` of 1.
WeightedSum weighted_steps_towards_one(const MaybeSystem& system, const double* start,
                                       const std::vector<double>& weights, std::uint64_t first, double close) {
  require_one_row_per_state(system);
  return system.values.visit(
      [&](const auto& read) { return weighted_steps_read(system, start, weights, first, close, read); });
}

namespace {

template <typename Read>
WeightedSum weighted_steps_read(const MaybeSystem& system, const double* start, const std::vector<double>& weights,
                                std::uint64_t first, double close, const Read& read) {
  const std::size_t n = system.num_states();
  WeightedSum out;
  StateNumbers x = copy_of(start, n), next(n);
  out.sum = filled(n, 0.0);
  const std::uint64_t end = first + weights.size();  // one past the last step weighed
  for (std::uint64_t k = 0; k < end; ++k) {
    const double weight = k >= first ? weights[k - first] : 0.0;
    const bool more = k + 1 < end;
    const auto step = [&](std::size_t i) {
      out.sum[i] += weight * x[i];
      if (more) next[i] = row_value(system, i, x.data(), read);  // row i of A x + b: one row a state
    };
    out.steps = k + 1;
    if (close < 0.0 || !more || k + 1 < first) {
      parallel_indices(0, n, 4096, step);
      x.swap(next);
      continue;
    }
    using Range = oneapi::tbb::blocked_range<std::size_t>;
    const double least = oneapi::tbb::parallel_reduce(
        Range(0, n, 4096), 1.0,
        [&](const Range& part, double low) {
          for (std::size_t i = part.begin(); i < part.end(); ++i) {
            step(i);
            low = std::min(low, next[i]);
          }
          return low;
        },
        [](double a, double b) { return std::min(a, b); });
    x.swap(next);
    if (1.0 - least > close) continue;
    // Settled: the steps after k weigh what is left, with values between x and 1.
    double rest = 0.0;
    for (std::uint64_t j = k + 1; j < end; ++j) rest += weights[j - first];
    parallel_indices(0, n, 4096, [&](std::size_t i) { out.sum[i] += rest * x[i]; });
    out.settled_gap = rest * (1.0 - least);
    return out;
  }
  return out;
}

}  // namespace

StateNumbers weighted_steps(const MaybeSystem& system, const double* start, const std::vector<double>& weights,
                            std::uint64_t first) {
  return weighted_steps_towards_one(system, start, weights, first, -1.0).sum;
}

namespace {

std::optional<WeightedSum> on_device(const MaybeSystem& system, const double* start, const std::vector<double>& weights,
                                     std::uint64_t first, double close, const DeviceOptions& device, SolveReport& report) {
  if (!use_device_for(system.num_states(), device)) return std::nullopt;
  // The steps read plain values (gpu/uniformisation_steps.h).
  const PodVector<double> plain = system.values.index_bytes() == 0 ? PodVector<double>() : system.values.expanded();
  const gpu::ChunkMatrix matrix{system.num_states(), system.num_rows(), system.columns.size(), system.row_group_starts.data(),
                                system.row_starts.data(), system.columns.data(),
                                plain.empty() ? system.values.plain_data() : plain.data()};
  try {
    std::optional<gpu::WeightedSteps> steps =
        gpu::weighted_steps(matrix, system.row_constants.data(), start, weights, first, close);
    if (!steps) return std::nullopt;
    add_device_run(report, {system.num_states(), system.columns.size(), steps->steps, steps->upload_s, steps->solve_s,
                            steps->device_bytes, steps->in_use_bytes});
    WeightedSum sum;
    sum.sum = copy_of(steps->sum.data(), steps->sum.size());
    sum.steps = steps->steps;
    if (steps->settled) sum.settled_gap = steps->rest * (1.0 - steps->least);
    return sum;
  } catch (const gpu::DeviceError& error) {
    spdlog::warn("{}; the uniformisation steps run on the CPU instead", error.what());
    return std::nullopt;
  }
}

}  // namespace

WeightedSum weighted_steps_on(const MaybeSystem& system, const double* start, const std::vector<double>& weights,
                              std::uint64_t first, double close, const DeviceOptions& device, SolveReport& report) {
  require_one_row_per_state(system);
  if (std::optional<WeightedSum> sum = on_device(system, start, weights, first, close, device, report)) return std::move(*sum);
  return weighted_steps_towards_one(system, start, weights, first, close);
}

StateNumbers weighted_steps_reference(const MaybeSystem& system, const double* start,
                                      const std::vector<double>& weights, std::uint64_t first) {
  require_one_row_per_state(system);
  const std::size_t n = system.num_states();
  std::vector<double> x(start, start + n), next(n), sum(n, 0.0);
  for (std::uint64_t k = 0; k < first + weights.size(); ++k) {
    if (k >= first) {
      for (std::size_t i = 0; i < n; ++i) sum[i] += weights[k - first] * x[i];
    }
    for (std::size_t i = 0; i < n; ++i) {
      next[i] = system.row_constants[i];
      for (std::uint64_t e = system.row_starts[i]; e < system.row_starts[i + 1]; ++e) {
        next[i] += system.values[e] * x[system.columns[e]];
      }
    }
    x.swap(next);
  }
  return copy_of(sum.data(), n);
}

}  // namespace mdpvi
