// BiCGStab (van der Vorst 1992) as a MethodPolicy, for DTMCs: every SCC's states
// satisfy the linear system x = M x + c, with M the SCC's own entries and c its rows'
// constants plus the entries into SCCs already solved. BiCGStab solves (I - M) x = c
// with a Krylov method instead of Jacobi sweeps; trivial SCCs take their one exact
// update, as in value iteration. Where it breaks down (a vanishing inner product) or
// stalls, the SCC is finished by value iteration from where BiCGStab got to. On the
// CPU only: the driver keeps every chunk there. Like value iteration, it claims no
// bound: it stops when the residual is below epsilon (relative to the largest value,
// or absolute).
#include "engine/solve/method_policy.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace mdpvi {

namespace {

using Range = oneapi::tbb::blocked_range<std::size_t>;

// The SCC's linear system in local indices 0..n-1 (the SCC's states from begin).
class SccSystem {
 public:
  SccSystem(const MaybeSystem& system, StateRange range, const std::vector<double>& final_values)
      : s_(system), begin_(range.begin), n_(range.size()), c_(n_) {
    oneapi::tbb::parallel_for(Range(0, n_), [&](const Range& states) {
      for (std::size_t i = states.begin(); i < states.end(); ++i) {
        const std::uint64_t row = s_.row_group_starts[begin_ + i];
        double c = s_.row_constants[row];
        for (std::uint64_t k = s_.row_starts[row]; k < s_.row_starts[row + 1]; ++k) {
          if (!inside(s_.columns[k])) c += s_.values[k] * final_values[s_.columns[k]];
        }
        c_[i] = c;
      }
    });
  }

  std::size_t size() const { return n_; }
  const std::vector<double>& constants() const { return c_; }

  // out = (I - M) in.
  void apply(const std::vector<double>& in, std::vector<double>& out) const {
    oneapi::tbb::parallel_for(Range(0, n_), [&](const Range& states) {
      for (std::size_t i = states.begin(); i < states.end(); ++i) {
        const std::uint64_t row = s_.row_group_starts[begin_ + i];
        double mx = 0.0;
        for (std::uint64_t k = s_.row_starts[row]; k < s_.row_starts[row + 1]; ++k) {
          if (inside(s_.columns[k])) mx += s_.values[k] * in[s_.columns[k] - begin_];
        }
        out[i] = in[i] - mx;
      }
    });
  }

 private:
  bool inside(std::uint32_t column) const { return column >= begin_ && column < begin_ + n_; }

  const MaybeSystem& s_;
  std::uint64_t begin_;
  std::size_t n_;
  std::vector<double> c_;
};

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  return oneapi::tbb::parallel_reduce(
      Range(0, a.size()), 0.0,
      [&](const Range& r, double sum) {
        for (std::size_t i = r.begin(); i < r.end(); ++i) sum += a[i] * b[i];
        return sum;
      },
      std::plus<>());
}

double largest_magnitude(const std::vector<double>& a) {
  double m = 0.0;
  for (double v : a) m = std::max(m, std::abs(v));
  return m;
}

// y = a + s * b, elementwise.
void add_scaled(const std::vector<double>& a, double s, const std::vector<double>& b, std::vector<double>& y) {
  oneapi::tbb::parallel_for(Range(0, a.size()), [&](const Range& r) {
    for (std::size_t i = r.begin(); i < r.end(); ++i) y[i] = a[i] + s * b[i];
  });
}

struct KrylovRun {
  std::uint64_t iterations = 0;
  bool converged = false;
  double residual = 0.0;  // the last residual's largest entry
};

// BiCGStab on (I - M) x = c from x (updated in place), until the residual's largest
// entry is within tolerance(x), at most budget iterations.
template <typename Tolerance>
KrylovRun bicgstab(const SccSystem& a, std::vector<double>& x, std::uint64_t budget, const Tolerance& tolerance) {
  const std::size_t n = a.size();
  std::vector<double> r(n), r_hat(n), p(n, 0.0), v(n, 0.0), s(n), t(n), ax(n);
  a.apply(x, ax);
  add_scaled(a.constants(), -1.0, ax, r);
  r_hat = r;
  double rho = 1.0, alpha = 1.0, omega = 1.0;
  KrylovRun run;
  run.residual = largest_magnitude(r);
  while (run.iterations < budget) {
    if (run.residual <= tolerance(x)) {
      run.converged = true;
      return run;
    }
    ++run.iterations;
    const double rho_next = dot(r_hat, r);
    if (rho_next == 0.0 || !std::isfinite(rho_next)) return run;  // breakdown
    const double beta = (rho_next / rho) * (alpha / omega);
    rho = rho_next;
    oneapi::tbb::parallel_for(Range(0, n), [&](const Range& range) {
      for (std::size_t i = range.begin(); i < range.end(); ++i) p[i] = r[i] + beta * (p[i] - omega * v[i]);
    });
    a.apply(p, v);
    const double r_hat_v = dot(r_hat, v);
    if (r_hat_v == 0.0 || !std::isfinite(r_hat_v)) return run;
    alpha = rho / r_hat_v;
    add_scaled(r, -alpha, v, s);
    a.apply(s, t);
    const double tt = dot(t, t);
    omega = tt == 0.0 ? 0.0 : dot(t, s) / tt;
    oneapi::tbb::parallel_for(Range(0, n), [&](const Range& range) {
      for (std::size_t i = range.begin(); i < range.end(); ++i) x[i] += alpha * p[i] + omega * s[i];
    });
    add_scaled(s, -omega, t, r);
    run.residual = largest_magnitude(r);
    if (omega == 0.0 || !std::isfinite(run.residual)) return run;
  }
  run.converged = run.residual <= tolerance(x);
  return run;
}

class BicgstabPolicy final : public MethodPolicy {
 public:
  explicit BicgstabPolicy(const SolveRequest& request) : r_(request), stop_(request.options.stop) {}

  bool has_upper_iterate() const override { return false; }
  bool runs_on_device() const override { return false; }
  std::size_t footprint_bytes(std::uint64_t states, std::uint64_t rows, std::uint64_t entries) const override {
    return plain_sweep_bytes(states, rows, entries);
  }

  void solve_sccs_on_cpu(std::size_t first_scc, std::size_t end_scc, Iterates& x, SolveStats& stats) override {
    const MaybeSystem& system = r_.system;
    const auto range_of = [&](std::size_t scc) { return StateRange{system.scc_starts[scc], system.scc_starts[scc + 1]}; };
    for_each_level(
        system, first_scc, end_scc,
        [&](std::size_t scc) { solve_trivial_scc(r_, range_of(scc), x); },
        [&](std::size_t scc) { solve_scc(range_of(scc), x, stats); });
  }

  gpu::ChunkSolveStats solve_chunk_on_device(const DeviceChunkJob&, Iterates&, SolveStats&) override {
    throw gpu::DeviceError("BiCGStab runs on the CPU only");
  }

 private:
  void solve_scc(StateRange range, Iterates& x, SolveStats& stats) {
    ++stats.iterated_sccs;
    const SccSystem a(r_.system, range, x.lower);
    std::vector<double> local(x.lower.begin() + range.begin, x.lower.begin() + range.end);
    const bool relative = stop_.criterion == ConvergenceCriterion::relative;
    const auto tolerance = [&](const std::vector<double>& values) {
      return stop_.epsilon * (relative ? std::max(largest_magnitude(values), 1e-300) : 1.0);
    };
    const KrylovRun run = bicgstab(a, local, stop_.max_sweeps, tolerance);
    std::copy(local.begin(), local.end(), x.lower.begin() + range.begin);
    x.sync(range);
    stats.add_run(run.iterations);
    if (run.converged) return;
    // Broken down or stalled: value iteration finishes from here.
    const LowerRun sweeps = sweep_lower(r_, range, x, stop_.epsilon, stop_.max_sweeps);
    stats.add_run(sweeps.sweeps);
    if (sweeps.change >= stop_.epsilon) {
      report_not_converged(stats, {"BiCGStab, then value iteration", "an SCC", run.iterations + sweeps.sweeps,
                                   range.size(), "last change", sweeps.change, stop_.epsilon});
    }
  }

  const SolveRequest& r_;
  const StopRule& stop_;
};

}  // namespace

std::unique_ptr<MethodPolicy> make_bicgstab_policy(const SolveRequest& request) {
  return std::make_unique<BicgstabPolicy>(request);
}

}  // namespace mdpvi
