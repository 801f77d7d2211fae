#pragma once
// BiCGStab (van der Vorst 1992) on (I - M) x = c, written once over a vector backend:
// the CPU (engine/solve/bicgstab.cpp, oneTBB) and the device (gpu/krylov.cu, cuSPARSE
// and CUB) differ only in how they apply the matrix and reduce vectors, so both take
// the same steps, restarts and stopping decisions. Plain C++: the engine includes it.
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
#include <cmath>
#include <cstdint>

namespace mdpvi {

enum class KrylovVector { c, x, r, r_hat, p, v, s, t };

struct KrylovLimits {
  std::uint64_t max_iterations = 10000;
  // Restarts from the current x (a fresh shadow residual) after a breakdown, before
  // giving up: a vanishing rho or (r_hat, v) only says this Krylov space has run dry.
  unsigned max_restarts = 4;
  double epsilon = 1e-6;
  bool relative = true;  // the residual against epsilon times the largest |x|
};

struct KrylovRun {
  std::uint64_t iterations = 0;
  unsigned restarts = 0;
  bool converged = false;
  bool broke_down = false;  // the last restart broke down too (or a value became NaN)
  double residual = 0.0;    // the last residual's largest entry
};

namespace bicgstab_detail {

// rho = (r_hat, r) counts as vanished below this fraction of |r_hat| |r|: the two
// have become orthogonal to working precision and the recurrences lose all meaning.
constexpr double kOrthogonal = 1e-14;

template <typename Backend>
double tolerance(Backend& a, const KrylovLimits& limits) {
  if (!limits.relative) return limits.epsilon;
  const double largest = a.max_abs(KrylovVector::x);
  return limits.epsilon * (largest > 0.0 ? largest : 1.0);
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
// tolerance, max_iterations have run, or a breakdown follows max_restarts restarts.
// Convergence is claimed on the true residual c - (I - M) x only: the recurrence's r
// drifts from it in rounding, and a drifted r that looks converged restarts instead.
template <typename Backend>
KrylovRun run_bicgstab(Backend& a, const KrylovLimits& limits) {
  using bicgstab_detail::kOrthogonal;
  using V = KrylovVector;
  KrylovRun run;
  double r_hat_norm = 0.0, rho = 1.0, alpha = 1.0, omega = 1.0;
  bool residual_is_true = true;
  const auto start = [&] {
    run.residual = bicgstab_detail::start(a);
    residual_is_true = true;
    r_hat_norm = std::sqrt(a.dot(V::r_hat, V::r_hat));
    rho = alpha = omega = 1.0;
  };
  start();
  while (true) {
    const bool finite = std::isfinite(run.residual);
    const bool small = finite && run.residual <= bicgstab_detail::tolerance(a, limits);
    if (small && residual_is_true) {
      run.converged = true;
      return run;
    }
    bool breakdown = !finite;
    if (small) {  // drifted: a restart checks the true residual at the top
      ++run.restarts;
      start();
      continue;
    }
    if (!breakdown && run.iterations >= limits.max_iterations) return run;
    if (!breakdown) {
      ++run.iterations;
      const double rho_next = a.dot(V::r_hat, V::r);
      const double r_norm = std::sqrt(a.dot(V::r, V::r));
      breakdown = !std::isfinite(rho_next) || std::abs(rho_next) <= kOrthogonal * r_hat_norm * r_norm;
      if (!breakdown) {
        const double beta = (rho_next / rho) * (alpha / omega);
        rho = rho_next;
        a.update_direction(beta, omega);
        a.apply(V::p, V::v);
        const double r_hat_v = a.dot(V::r_hat, V::v);
        breakdown = !std::isfinite(r_hat_v) || r_hat_v == 0.0;
        if (!breakdown) {
          alpha = rho / r_hat_v;
          a.combine(V::s, V::r, -alpha, V::v);
          a.apply(V::s, V::t);
          const double tt = a.dot(V::t, V::t);
          omega = tt > 0.0 ? a.dot(V::t, V::s) / tt : 0.0;
          a.update_solution(alpha, omega);
          a.combine(V::r, V::s, -omega, V::t);
          run.residual = a.max_abs(V::r);
          residual_is_true = false;
          // omega = 0: s is already the residual of x + alpha p, but the next beta
          // would divide by it.
          breakdown = omega == 0.0 || !std::isfinite(omega);
        }
      }
    }
    if (!breakdown) continue;
    if (run.restarts >= limits.max_restarts) {
      run.broke_down = true;
      start();  // say the true residual
      run.converged = std::isfinite(run.residual) && run.residual <= bicgstab_detail::tolerance(a, limits);
      return run;
    }
    ++run.restarts;
    start();
  }
}

}  // namespace mdpvi
