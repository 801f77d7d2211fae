#pragma once
// The sweep kernels, one per method, each a few lines over gpu/state_reduce.cuh.
// A new method's kernel goes here; its CPU reference is in engine/solve/bellman.h
// and tests/device_solver_test.cpp holds them equivalent. Internal to gpu/.
#include "engine/numeric/optimistic_guess.h"
#include "gpu/state_reduce.cuh"

#include <limits>

namespace mdpvi::gpu::detail {

// Value iteration (reference: bellman_sweep_reference): x_out = opt(P x_in + b) and
// the sweep's largest change (relative: over the new value, where it is not 0), over
// the window's states.
template <int G, bool kMaximize, bool kRelative, bool kOverRows, bool kView>
__global__ void __launch_bounds__(kBlockSize)
    sweep_kernel(DeviceChunk m, Window w, const double* __restrict__ d_b, const double* __restrict__ d_x_in,
                 double* __restrict__ d_x_out, unsigned long long* d_change) {
  const LaneGroup<G> group;
  const double* const x[1] = {d_x_in};
  const double* const b[1] = {d_b};
  double largest_change = 0.0;
  for_each_state<G>(w.first, w.end, [&](std::uint64_t s) {
    const double best = optimize_over_choices<G, kMaximize, 1, kOverRows, kView>(m, group, s, x, b).v[0];
    if (!group.leader()) return;
    double change = fabs(best - d_x_in[s]);
    if (kRelative && best != 0.0) change /= fabs(best);
    largest_change = fmax(largest_change, change);
    d_x_out[s] = best;
  });
  block_max_into(largest_change, d_change);
}

// The iterates a level pass reads (x, with their b) and writes (both buffers).
template <int K>
struct PassVectors {
  const double* x[K];
  const double* b[K];
  double* first[K];
  double* second[K];
};

// Interval iteration's width targets over a window: one per state, or one for the
// whole window where its states share it (a window inside one height level, whose
// targets are its level's: no 4-byte array per state; bench/NOTES.md, session 32).
struct WidthTargets {
  const float* __restrict__ per_state = nullptr;
  float uniform = 0.0f;
  __device__ float operator[](std::uint64_t s) const { return per_state ? per_state[s] : uniform; }
};

enum IntervalFlag : unsigned { kAboveTarget = 1u, kUpperRaised = 2u, kCrossed = 4u, kLowerLowered = 8u };
constexpr unsigned kAllIntervalFlags = kAboveTarget | kUpperRaised | kCrossed | kLowerLowered;

// As engine/solve/bellman.h's kRaiseTolerance, the same expression (gpu/ does not
// include the engine's headers); the equivalence test compares the flags both produce.
constexpr double kRaiseTolerance = 8 * std::numeric_limits<double>::epsilon();

// Interval iteration (reference: interval_sweep_reference): both iterates in one
// pass. Per state: lower = max(lower, B lower), upper = min(upper, B upper), the
// width (relative to the lower value where it is positive) and the flags; per
// block one atomicMax of the width (clamped at 0) and one atomicOr of the flags.
template <int G, bool kMaximize, bool kRelative, bool kOverRows, bool kView>
__global__ void __launch_bounds__(kBlockSize)
    interval_kernel(DeviceChunk m, Window w, const double* __restrict__ d_b_lower, const double* __restrict__ d_b_upper,
                    WidthTargets targets, const double* __restrict__ d_lower_in,
                    const double* __restrict__ d_upper_in, double* __restrict__ d_lower_out,
                    double* __restrict__ d_upper_out, unsigned long long* d_width, unsigned* d_flags) {
  const LaneGroup<G> group;
  const double* const x[2] = {d_lower_in, d_upper_in};
  const double* const b[2] = {d_b_lower, d_b_upper};
  double widest = 0.0;
  unsigned flags = 0;
  for_each_state<G>(w.first, w.end, [&](std::uint64_t s) {
    const Values<2> best = optimize_over_choices<G, kMaximize, 2, kOverRows, kView>(m, group, s, x, b);
    if (!group.leader()) return;
    const double lower = fmax(d_lower_in[s], best.v[0]);
    const double upper = fmin(d_upper_in[s], best.v[1]);
    double width = upper - lower;
    if (kRelative && lower > 0.0) width /= lower;
    if (width > targets[s]) flags |= kAboveTarget;
    if (best.v[1] > d_upper_in[s] * (1 + kRaiseTolerance)) flags |= kUpperRaised;
    if (best.v[0] < d_lower_in[s] * (1 - kRaiseTolerance)) flags |= kLowerLowered;
    if (upper < lower) flags |= kCrossed;
    widest = fmax(widest, width);
    d_lower_out[s] = lower;
    d_upper_out[s] = upper;
  });
  block_max_into(widest, d_width);
  block_or_into(flags, kAllIntervalFlags, d_flags);
}

// One exact update of an acyclic level (reference: the CPU's update of a trivial SCC,
// bellman_value / bellman_pair): each state of the window from the values below it,
// which are final, for K iterates at once (value iteration 1, interval iteration 2).
// No state of the window reads another, so the update is in place; it writes both
// buffers of each iterate, which then agree again.
template <int G, bool kMaximize, int K, bool kOverRows, bool kView>
__global__ void __launch_bounds__(kBlockSize)
    level_pass_kernel(DeviceChunk m, Window w, PassVectors<K> v) {
  const LaneGroup<G> group;
  for_each_state<G>(w.first, w.end, [&](std::uint64_t s) {
    const Values<K> best = optimize_over_choices<G, kMaximize, K, kOverRows, kView>(m, group, s, v.x, v.b);
    if (!group.leader()) return;
    for (int i = 0; i < K; ++i) {
      v.first[i][s] = best.v[i];
      v.second[i][s] = best.v[i];
    }
  });
}

// Optimistic value iteration's guess (reference: the CPU's, with the same
// guessed_upper) over the window: per state, from the lower value and the one kept
// in the upper iterate a window of sweeps before, the upper guess into both buffers
// of the upper iterate, which then agree.
__global__ void __launch_bounds__(kBlockSize)
    guess_kernel(Window w, const double* __restrict__ d_lower, double* __restrict__ d_upper_first,
                 double* __restrict__ d_upper_second, WidthTargets targets, GuessParameters p) {
  for (std::uint64_t s = w.first + blockIdx.x * blockDim.x + threadIdx.x; s < w.end; s += gridDim.x * blockDim.x) {
    const double lower = d_lower[s];
    const double upper = guessed_upper(lower, fmin(lower, d_upper_first[s]), targets[s], p);
    d_upper_first[s] = d_upper_second[s] = upper;
  }
}

// value into states [w.first, w.end) of both buffers.
__global__ void __launch_bounds__(kBlockSize)
    fill_kernel(Window w, double value, double* __restrict__ d_first, double* __restrict__ d_second) {
  for (std::uint64_t s = w.first + blockIdx.x * blockDim.x + threadIdx.x; s < w.end; s += gridDim.x * blockDim.x) {
    d_first[s] = d_second[s] = value;
  }
}

using SweepKernel = void (*)(DeviceChunk, Window, const double*, const double*, double*, unsigned long long*);
using IntervalKernel = void (*)(DeviceChunk, Window, const double*, const double*, WidthTargets, const double*,
                                const double*, double*, double*, unsigned long long*, unsigned*);

struct SweepKernels {
  template <int G, bool Maximize, bool Relative, bool OverRows, bool View>
  static SweepKernel get() { return sweep_kernel<G, Maximize, Relative, OverRows, View>; }
};
struct IntervalKernels {
  template <int G, bool Maximize, bool Relative, bool OverRows, bool View>
  static IntervalKernel get() { return interval_kernel<G, Maximize, Relative, OverRows, View>; }
};
// The pass has no convergence measure: "relative" does not matter.
template <int K>
struct LevelPassKernels {
  template <int G, bool Maximize, bool Relative, bool OverRows, bool View>
  static void (*get())(DeviceChunk, Window, PassVectors<K>) { return level_pass_kernel<G, Maximize, K, OverRows, View>; }
};

}  // namespace mdpvi::gpu::detail
