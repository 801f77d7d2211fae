#pragma once
// Policy iteration's improvement step (Howard 1960): at each state of a range, the
// row that is best under given values. Two implementations with one contract: a
// plain serial loop, the reference, and a oneTBB-parallel one.
#include "engine/model/optimization.h"
#include "engine/solve/bellman.h"
#include "engine/solve/maybe_system.h"

#include <cstdint>

namespace mdpvi {

// A state keeps the row it has unless another is better by more than a tolerance,
// relative to the larger value (absolute below 1): rows that tie in exact arithmetic
// differ in rounding, and switching between them would never let the policy settle.
inline constexpr double kSwitchTolerance = 1e-10;

// What a row is worth.
enum class RowObjective {
  // b(r) + sum_k P(r,k) x(column k), x indexed by the system's local states.
  values,
  // 1 + the sum over the row's entries inside the range only, x indexed from the
  // range's first state: the expected steps before leaving the range, where x holds
  // them (b and the entries leaving the range ignored).
  steps_to_leave,
};

struct PolicyImprovement {
  StateRange range;
  Optimization direction = Optimization::minimize;
  RowObjective objective = RowObjective::values;
  // With keep, chosen holds a row of each state and a state moves to another only
  // where that is better by more than tolerance; without, each state takes its best
  // row (the first of equals).
  bool keep = true;
  double tolerance = kSwitchTolerance;
};

// chosen: one absolute row number per state of the range, in range order. Pre: every
// state of the range has a row. Returns how many states took another row (with keep;
// 0 without).
std::uint64_t improve_policy_reference(const MaybeSystem& system, const PolicyImprovement& step, const double* x,
                                       std::uint64_t* chosen);
std::uint64_t improve_policy_parallel(const MaybeSystem& system, const PolicyImprovement& step, const double* x,
                                      std::uint64_t* chosen);

}  // namespace mdpvi
