#include "engine/solve/policy_steps.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace mdpvi {

namespace {

double row_worth(const MaybeSystem& system, const PolicyImprovement& step, std::uint64_t row, const double* x) {
  if (step.objective == RowObjective::values) return row_value(system, row, x);
  double steps = 1.0;
  for (std::uint64_t k = system.row_starts[row]; k < system.row_starts[row + 1]; ++k) {
    const std::uint32_t column = system.columns[k];
    if (column >= step.range.begin && column < step.range.end) steps += system.values[k] * x[column - step.range.begin];
  }
  return steps;
}

// Whether candidate beats incumbent, by more than the tolerance where the incumbent is kept.
bool better(const PolicyImprovement& step, double candidate, double incumbent) {
  const double margin =
      step.keep ? step.tolerance * std::max(1.0, std::max(std::abs(candidate), std::abs(incumbent))) : 0.0;
  return step.direction == Optimization::minimize ? candidate < incumbent - margin : candidate > incumbent + margin;
}

std::uint64_t improve_serial(const MaybeSystem& system, const PolicyImprovement& step, std::uint64_t begin,
                             std::uint64_t end, const double* x, std::uint64_t* chosen) {
  std::uint64_t changed = 0;
  for (std::uint64_t s = begin; s < end; ++s) {
    std::uint64_t& row = chosen[s - step.range.begin];
    const std::uint64_t rows_begin = system.row_group_starts[s], rows_end = system.row_group_starts[s + 1];
    std::uint64_t best_row = step.keep ? row : rows_begin;
    double best = row_worth(system, step, best_row, x);
    for (std::uint64_t r = rows_begin; r < rows_end; ++r) {
      if (r == best_row) continue;
      const double value = row_worth(system, step, r, x);
      if (better(step, value, best)) {
        best = value;
        best_row = r;
      }
    }
    changed += step.keep && best_row != row;
    row = best_row;
  }
  return changed;
}

}  // namespace

std::uint64_t improve_policy_reference(const MaybeSystem& system, const PolicyImprovement& step, const double* x,
                                       std::uint64_t* chosen) {
  return improve_serial(system, step, step.range.begin, step.range.end, x, chosen);
}

std::uint64_t improve_policy_parallel(const MaybeSystem& system, const PolicyImprovement& step, const double* x,
                                      std::uint64_t* chosen) {
  constexpr std::uint64_t kGrain = 2048;  // as the Bellman sweeps'
  return oneapi::tbb::parallel_reduce(
      oneapi::tbb::blocked_range<std::uint64_t>(step.range.begin, step.range.end, kGrain), std::uint64_t{0},
      [&](const oneapi::tbb::blocked_range<std::uint64_t>& part, std::uint64_t changed) {
        return changed + improve_serial(system, step, part.begin(), part.end(), x, chosen);
      },
      std::plus<>());
}

}  // namespace mdpvi
