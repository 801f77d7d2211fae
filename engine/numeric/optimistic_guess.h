#pragma once
// Optimistic value iteration's guess of an upper iterate, written once for the CPU
// (engine/solve/interval_iteration.cpp) and the device's guess kernel
// (gpu/sweep_kernels.cuh). Plain C++: the engine includes it.
//
// A guess is made once the lower iterate L seems within kLowerDistance of its target
// of the fixed point. One more sweep gives each state's last change d = B(L) - L.
// Value iteration approaches its fixed point along d, shrinking by the rate per
// sweep (as it does once one eigenvector dominates), so the fixed point lies near
// B(L) + d * rate / (1 - rate). The guess goes kExtrapolationMargin past that, and
// kGuessOffset of the target above it: then B(U) <= U where the extrapolation
// holds (B(U) - U = about -margin * rate * d), which verification must show, and
// the width is at most 0.5 * 1.25 + 0.25 = 0.875 of the target. Without a rate the
// guess is B(L) plus 0.75 of the target. Never above bound.
#ifdef __CUDACC__
#define MDPVI_HOST_DEVICE __host__ __device__
#else
#define MDPVI_HOST_DEVICE
#endif

namespace mdpvi {

inline constexpr double kLowerDistance = 0.5;
inline constexpr double kExtrapolationMargin = 0.25;
inline constexpr double kGuessOffset = 0.25;
inline constexpr double kGuessOffsetWithoutRate = 0.75;

// What every state's guess shares.
struct GuessParameters {
  double rate = 1.0;     // the lower iterate's convergence rate (1: unknown)
  double bound = 0.0;    // the known upper bound (infinity: none)
  bool relative = true;  // the target is relative to the value
};

// The guess for a state whose lower value moved from earlier to swept (>= earlier)
// in the last sweep, with width target `target`.
MDPVI_HOST_DEVICE inline double guessed_upper(double swept, double earlier, double target, const GuessParameters& p) {
  const double change = swept - earlier;
  const bool extrapolate = p.rate < 1.0;
  const double offset = (extrapolate ? kGuessOffset : kGuessOffsetWithoutRate) * target;
  const double ahead = extrapolate ? change * p.rate / (1.0 - p.rate) * (1.0 + kExtrapolationMargin) : 0.0;
  const double guess = swept + ahead + (p.relative ? swept * offset : offset);
  return guess < p.bound ? guess : p.bound;
}

}  // namespace mdpvi
