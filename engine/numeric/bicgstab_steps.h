#pragma once
// BiCGStab (van der Vorst 1992) on (I - M) x = c, written once over a vector backend:
// the CPU (engine/solve/krylov_system.h, oneTBB) and the device (gpu/krylov.cu) differ
// only in how they apply the matrix and reduce vectors, so both take the same steps,
// restarts and stopping decisions. Plain C++: the engine includes it.
//
// A backend holds the vectors named by KrylovVector, each of the system's size, and
// provides:
//   void apply(KrylovVector in, KrylovVector out);  // out = (I - M) in
//   double dot(KrylovVector a, KrylovVector b);
//   double max_abs(KrylovVector a);                 // the largest |entry| (0 when empty)
//   void copy(KrylovVector from, KrylovVector to);
//   void zero(KrylovVector a);
//   void combine(KrylovVector y, KrylovVector a, double s, KrylovVector b);  // y = a + s b
//   void update_direction(double beta, double omega);  // p = r + beta (p - omega v)
//   void update_solution(double alpha, double omega);  // x += alpha p + omega s
// and may provide fused forms of the steps that follow one another, each equal to
// the plain steps it replaces (bicgstab_detail's defaults), so that a backend bound by
// memory reads each vector once where the steps would read it several times; one
// that does says so with `static constexpr bool kFusedSteps = true;` and has all of:
//   std::pair<double, double> dot_pair(a, b, c, d);       // (a.b, c.d)
//   double apply_dot(in, out, with);                      // apply(in, out); with.out
//   std::pair<double, double> apply_dots(in, out);        // apply(in, out); (out.out, out.in)
//   std::pair<double, double> finish_step(alpha, omega);  // update_solution; r = s - omega t;
//                                                         // (max |r|, max |x|)
#include <cmath>
#include <cstdint>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace mdpvi {

enum class KrylovVector { c, x, r, r_hat, p, v, s, t };

struct KrylovLimits {
  std::uint64_t max_iterations = 10000;
  // Restarts from the current x (a fresh shadow residual) after a breakdown that has
  // not brought the true residual down to kRestartProgress of what it was at the last
  // restart, before giving up: a vanishing rho or (r_hat, v) only says this Krylov
  // space has run dry. A restart after progress is free (max_iterations bounds them):
  // a consensus model's scheduler needs a dozen on its way down, where an
  // ill-conditioned system stalls at one residual restart after restart.
  unsigned max_restarts = 4;
  double epsilon = 1e-6;
  bool relative = true;  // the residual against epsilon times the largest |x|
  // Told after each iteration, with the recurrence's residual (its largest entry): for
  // progress reports. May be empty.
  std::function<void(double residual)> on_iteration{};
};

struct KrylovRun {
  std::uint64_t iterations = 0;
  unsigned restarts = 0;
  bool converged = false;
  bool broke_down = false;  // the last restart broke down too (or a value became NaN)
  double residual = 0.0;    // the last residual's largest entry
};

// The larger of two, NaN where either is (std::max would drop a NaN on one side): a NaN
// in x or r must reach the convergence test, which then refuses it. The backends'
// largest-entry reductions use it.
inline double larger_keeping_nan(double a, double b) { return a > b || a != a ? a : b; }

namespace bicgstab_detail {

// rho = (r_hat, r) counts as vanished below this fraction of |r_hat| |r|: the two
// have become orthogonal to working precision and the recurrences lose all meaning.
constexpr double kOrthogonal = 1e-14;

// A restart whose true residual is at most this fraction of the last restart's made
// progress (KrylovLimits::max_restarts).
constexpr double kRestartProgress = 0.5;

// epsilon, relative to largest (max |x|) where the limits ask for it.
inline double tolerance(double largest, const KrylovLimits& limits) {
  if (!limits.relative) return limits.epsilon;
  return limits.epsilon * (largest > 0.0 ? largest : 1.0);
}

// Whether Backend has the fused steps (C++17: the device's code is compiled so).
template <typename Backend, typename = void>
struct FusesSteps : std::false_type {};
template <typename Backend>
struct FusesSteps<Backend, std::void_t<decltype(Backend::kFusedSteps)>> : std::bool_constant<Backend::kFusedSteps> {};

// The fused steps, or the plain ones where a backend has no fused form.
template <typename Backend>
std::pair<double, double> dot_pair(Backend& a, KrylovVector x, KrylovVector y, KrylovVector z, KrylovVector w) {
  if constexpr (FusesSteps<Backend>::value) {
    return a.dot_pair(x, y, z, w);
  } else {
    return {a.dot(x, y), a.dot(z, w)};
  }
}
template <typename Backend>
double apply_dot(Backend& a, KrylovVector in, KrylovVector out, KrylovVector with) {
  if constexpr (FusesSteps<Backend>::value) {
    return a.apply_dot(in, out, with);
  } else {
    a.apply(in, out);
    return a.dot(with, out);
  }
}
template <typename Backend>
std::pair<double, double> apply_dots(Backend& a, KrylovVector in, KrylovVector out) {
  if constexpr (FusesSteps<Backend>::value) {
    return a.apply_dots(in, out);
  } else {
    a.apply(in, out);
    return {a.dot(out, out), a.dot(out, in)};
  }
}
template <typename Backend>
std::pair<double, double> finish_step(Backend& a, double alpha, double omega) {
  if constexpr (FusesSteps<Backend>::value) {
    return a.finish_step(alpha, omega);
  } else {
    a.update_solution(alpha, omega);
    a.combine(KrylovVector::r, KrylovVector::s, -omega, KrylovVector::t);
    return {a.max_abs(KrylovVector::r), a.max_abs(KrylovVector::x)};
  }
}

// r = c - (I - M) x, r_hat = r, p = v = 0; returns |r|_inf.
template <typename Backend>
double start(Backend& a) {
  a.apply(KrylovVector::x, KrylovVector::t);
  a.combine(KrylovVector::r, KrylovVector::c, -1.0, KrylovVector::t);
  a.copy(KrylovVector::r, KrylovVector::r_hat);
  a.zero(KrylovVector::p);
  a.zero(KrylovVector::v);
  return a.max_abs(KrylovVector::r);
}

}  // namespace bicgstab_detail

// Iterates from the backend's x until the residual's largest entry is within the
// tolerance, max_iterations have run, or a breakdown follows max_restarts restarts
// without progress.
// Convergence is claimed on the true residual c - (I - M) x only: the recurrence's r
// drifts from it in rounding, and a drifted r that looks converged restarts instead.
template <typename Backend>
KrylovRun run_bicgstab(Backend& a, const KrylovLimits& limits) {
  using bicgstab_detail::kOrthogonal;
  using V = KrylovVector;
  KrylovRun run;
  unsigned stalled = 0;          // restarts without progress (KrylovLimits::max_restarts)
  double restart_residual = 0.0;  // the true residual at the last (re)start
  double r_hat_norm = 0.0, rho = 1.0, alpha = 1.0, omega = 1.0;
  double largest = 0.0;  // max |x|
  bool residual_is_true = true;
  const auto start = [&] {
    run.residual = bicgstab_detail::start(a);
    largest = a.max_abs(V::x);
    residual_is_true = true;
    r_hat_norm = std::sqrt(a.dot(V::r_hat, V::r_hat));
    rho = alpha = omega = 1.0;
  };
  start();
  restart_residual = run.residual;
  while (true) {
    // A solution with an entry that overflowed or became NaN is no solution, however
    // small its residual looks.
    const bool finite = std::isfinite(run.residual) && std::isfinite(largest);
    const bool small = finite && run.residual <= bicgstab_detail::tolerance(largest, limits);
    if (small && residual_is_true) {
      run.converged = true;
      return run;
    }
    bool breakdown = !finite;
    if (small) {  // drifted: a restart checks the true residual at the top
      ++run.restarts;
      start();
      restart_residual = run.residual;
      continue;
    }
    if (!breakdown && run.iterations >= limits.max_iterations) return run;
    if (!breakdown) {
      ++run.iterations;
      const auto [rho_next, r_r] = bicgstab_detail::dot_pair(a, V::r_hat, V::r, V::r, V::r);
      const double r_norm = std::sqrt(r_r);
      breakdown = !std::isfinite(rho_next) || std::abs(rho_next) <= kOrthogonal * r_hat_norm * r_norm;
      if (!breakdown) {
        const double beta = (rho_next / rho) * (alpha / omega);
        rho = rho_next;
        a.update_direction(beta, omega);
        const double r_hat_v = bicgstab_detail::apply_dot(a, V::p, V::v, V::r_hat);
        breakdown = !std::isfinite(r_hat_v) || r_hat_v == 0.0;
        if (!breakdown) {
          alpha = rho / r_hat_v;
          a.combine(V::s, V::r, -alpha, V::v);
          const auto [tt, ts] = bicgstab_detail::apply_dots(a, V::s, V::t);
          omega = tt > 0.0 ? ts / tt : 0.0;
          std::tie(run.residual, largest) = bicgstab_detail::finish_step(a, alpha, omega);
          residual_is_true = false;
          if (limits.on_iteration) limits.on_iteration(run.residual);
          // omega = 0: s is already the residual of x + alpha p, but the next beta
          // would divide by it.
          breakdown = omega == 0.0 || !std::isfinite(omega);
        }
      }
    }
    if (!breakdown) continue;
    start();  // the true residual, and a fresh shadow residual should the run go on
    const bool progressed =
        std::isfinite(run.residual) && run.residual <= bicgstab_detail::kRestartProgress * restart_residual;
    if (!progressed && stalled >= limits.max_restarts) {
      run.broke_down = true;
      run.converged = std::isfinite(run.residual) && std::isfinite(largest) &&
                      run.residual <= bicgstab_detail::tolerance(largest, limits);
      return run;
    }
    stalled += progressed ? 0 : 1;
    ++run.restarts;
    restart_residual = run.residual;
  }
}

}  // namespace mdpvi
