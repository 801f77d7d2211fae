#pragma once
// One Bellman sweep over a range of states of a MaybeSystem:
//   x_out(s) = opt over the rows r of s of ( b(r) + sum_k P(r,k) * x_in(column k) )
// and the largest change, absolute or relative. Two implementations with the same
// contract: a plain serial loop (the reference the others are tested against) and a
// oneTBB-parallel one; gpu/ adds a CUDA one.
#include "engine/model/optimization.h"
#include "engine/solve/maybe_system.h"
#include "engine/solve/solve_request.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace mdpvi {

struct StateRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  std::uint64_t size() const { return end - begin; }
};

// The kernels below read entry k's value through read(k): CompactValues::visit's
// reader for the system's form, chosen once per sweep, so that a loop over entries
// does not switch on the form per entry (a plain array's reader is the array).
// Without one, they read system.values[k].
struct ReadSystemValue {
  const CompactValues& values;
  double operator()(std::uint64_t k) const { return values[k]; }
};

// One row's value b(r) + sum_k P(r,k) * x(column k) (an empty row: b(r)).
template <typename Read>
inline double row_value(const MaybeSystem& system, std::uint64_t row, const double* x, const Read& read) {
  double value = system.row_constants[row];
  for (std::uint64_t k = system.row_starts[row]; k < system.row_starts[row + 1]; ++k) {
    value += read(k) * x[system.columns[k]];
  }
  return value;
}

inline double row_value(const MaybeSystem& system, std::uint64_t row, const double* x) {
  return row_value(system, row, x, ReadSystemValue{system.values});
}

// Pre: every state of the range has at least one row; x_in and x_out do not overlap
// on the range.
template <Optimization direction, typename Read>
inline double bellman_value(const MaybeSystem& system, std::uint64_t state, const double* x_in, const Read& read) {
  double best = direction == Optimization::minimize ? std::numeric_limits<double>::infinity()
                                                    : -std::numeric_limits<double>::infinity();
  for (std::uint64_t r = system.row_group_starts[state]; r < system.row_group_starts[state + 1]; ++r) {
    const double value = row_value(system, r, x_in, read);
    best = direction == Optimization::minimize ? std::min(best, value) : std::max(best, value);
  }
  return best;
}

template <Optimization direction>
inline double bellman_value(const MaybeSystem& system, std::uint64_t state, const double* x_in) {
  return bellman_value<direction>(system, state, x_in, ReadSystemValue{system.values});
}

// bellman_value of two iterates at once (interval iteration's lower and upper),
// reading the state's rows once; each the same sums as bellman_value's.
template <Optimization direction, typename Read>
inline std::pair<double, double> bellman_pair(const MaybeSystem& system, std::uint64_t state, const double* lower,
                                              const double* upper, const Read& read) {
  constexpr double worst = direction == Optimization::minimize ? std::numeric_limits<double>::infinity()
                                                               : -std::numeric_limits<double>::infinity();
  double best_lower = worst, best_upper = worst;
  for (std::uint64_t r = system.row_group_starts[state]; r < system.row_group_starts[state + 1]; ++r) {
    double value_lower = system.row_constants[r], value_upper = system.row_constants[r];
    for (std::uint64_t k = system.row_starts[r]; k < system.row_starts[r + 1]; ++k) {
      const double p = read(k);
      value_lower += p * lower[system.columns[k]];
      value_upper += p * upper[system.columns[k]];
    }
    if constexpr (direction == Optimization::minimize) {
      best_lower = std::min(best_lower, value_lower);
      best_upper = std::min(best_upper, value_upper);
    } else {
      best_lower = std::max(best_lower, value_lower);
      best_upper = std::max(best_upper, value_upper);
    }
  }
  return {best_lower, best_upper};
}

template <Optimization direction>
inline std::pair<double, double> bellman_pair(const MaybeSystem& system, std::uint64_t state, const double* lower,
                                              const double* upper) {
  return bellman_pair<direction>(system, state, lower, upper, ReadSystemValue{system.values});
}

// The change of one state's value; relative changes divide by the new value (PRISM's
// measure), except at 0 where the absolute change is used.
template <ConvergenceCriterion criterion>
inline double value_change(double old_value, double new_value) {
  double change = std::abs(new_value - old_value);
  if constexpr (criterion == ConvergenceCriterion::relative) {
    if (new_value != 0.0) change /= std::abs(new_value);
  }
  return change;
}

// Interval iteration keeps two iterates: lower from below and upper from above the
// fixed point. A sweep applies the Bellman operator to each and keeps them monotone
// (lower never falls, upper never rises), which keeps both sound even when an upper
// start is not a post-fixed point.
struct IntervalIterates {
  const double* lower_in;
  const double* upper_in;
  double* lower_out;
  double* upper_out;
};

// How far apart the iterates are at one state: absolute, or relative to the lower
// value (absolute where it is 0).
template <ConvergenceCriterion criterion>
inline double interval_width(double lower, double upper) {
  double width = upper - lower;
  if constexpr (criterion == ConvergenceCriterion::relative) {
    if (lower > 0.0) width /= lower;
  }
  return width;
}

// Returns the largest change over the range.
double bellman_sweep_reference(const MaybeSystem& system, StateRange range, Optimization direction,
                               ConvergenceCriterion criterion, const double* x_in, double* x_out);
double bellman_sweep_parallel(const MaybeSystem& system, StateRange range, Optimization direction,
                              ConvergenceCriterion criterion, const double* x_in, double* x_out);

// Whether B raised an upper value: by more than a few units in the last place, which
// is what summing in another order (or with fused multiply-adds, on the GPU) can do
// to a value that B leaves unchanged. Exact comparison would never verify a guess
// that is a fixed point at some state.
inline constexpr double kRaiseTolerance = 8 * std::numeric_limits<double>::epsilon();

struct IntervalSweep {
  double width = 0.0;         // the largest width over the range afterwards
  bool upper_raised = false;  // B(upper_in) > upper_in somewhere: upper_in was not shown an upper bound
  bool crossed = false;       // upper below lower somewhere: the upper start was no upper bound
  // B(lower_in) < lower_in somewhere (by more than kRaiseTolerance): lower_in was not
  // shown a lower bound. Only a lower start that is a guess needs this (policy
  // iteration's); computed by this file's sweeps, not by the parts' or the device's,
  // whose lower iterates rise from below.
  bool lower_lowered = false;

  IntervalSweep& operator+=(const IntervalSweep& o) {
    width = std::max(width, o.width);
    upper_raised = upper_raised || o.upper_raised;
    lower_lowered = lower_lowered || o.lower_lowered;
    crossed = crossed || o.crossed;
    return *this;
  }
};

// Both iterates, one sweep.
IntervalSweep interval_sweep_reference(const MaybeSystem& system, StateRange range, Optimization direction,
                                       ConvergenceCriterion criterion, IntervalIterates x);
IntervalSweep interval_sweep_parallel(const MaybeSystem& system, StateRange range, Optimization direction,
                                      ConvergenceCriterion criterion, IntervalIterates x);

}  // namespace mdpvi
