#pragma once
// Optimistic value iteration's guess of an upper iterate, written once for the CPU
// (engine/solve/interval_iteration.cpp) and the device's guess kernel
// (gpu/sweep_kernels.cuh). Plain C++: the engine includes it.
//
// A guess is made once the lower iterate L seems within kLowerDistance of its target
// of the fixed point. kGuessWindow more sweeps give each state's change d = B^w(L) - L
// over them. Value iteration approaches its fixed point along d, shrinking by r = the
// rate per sweep to the power w per window (as it does once one eigenvector
// dominates), so the fixed point lies near B^w(L) + d * r / (1 - r). The guess goes
// kExtrapolationMargin past that, and kGuessOffset of the target above it: then
// B(U) <= U where the extrapolation holds, which verification must show, and the
// width is at most 0.5 * 1.25 + 0.25 = 0.875 of the target. Without a rate the
// guess is B^w(L) plus 0.75 of the target. Never above bound.
//
// Why a window and not the last sweep's change: a periodic chain's values move in
// turns (leader election's rounds), so a state's last change can be near 0 while it
// is far from its fixed point. Its guess then falls below the fixed point, and as
// the upper iterate never rises, no later sweep can verify it: the guess fails only
// once the lower iterate crosses it, a whole verification budget later. Over 8
// sweeps periods 2, 4 and 8 cancel (the convergence rate is measured over 8 sweeps
// for the same reason: engine/solve/method_policy.cpp's sweep_lower).
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
inline constexpr unsigned kGuessWindow = 8;

// What every state's guess shares.
struct GuessParameters {
  double rate = 1.0;     // the lower iterate's convergence rate over the window (1: unknown)
  double bound = 0.0;    // the known upper bound (infinity: none)
  bool relative = true;  // the target is relative to the value
};

// The guess for a state whose lower value moved from earlier to swept (>= earlier)
// over the window, with width target `target`.
MDPVI_HOST_DEVICE inline double guessed_upper(double swept, double earlier, double target, const GuessParameters& p) {
  const double change = swept - earlier;
  const bool extrapolate = p.rate < 1.0;
  const double offset = (extrapolate ? kGuessOffset : kGuessOffsetWithoutRate) * target;
  const double ahead = extrapolate ? change * p.rate / (1.0 - p.rate) * (1.0 + kExtrapolationMargin) : 0.0;
  const double guess = swept + ahead + (p.relative ? swept * offset : offset);
  return guess < p.bound ? guess : p.bound;
}

}  // namespace mdpvi
