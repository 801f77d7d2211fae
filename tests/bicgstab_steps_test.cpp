// engine/numeric/bicgstab_steps.h's decisions (convergence on the true residual, restarts after a
// breakdown, the iteration limit) on dense systems small enough to check by hand, and
// the CPU backend (engine/solve/krylov_system.h) against a dense one.
#include "engine/solve/krylov_system.h"
#include "engine/numeric/bicgstab_steps.h"
#include "random_systems.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace mdpvi {
namespace {

// A dense A (not necessarily I - M: a test may make BiCGStab break down) and the eight
// vectors, each step written out plainly.
class DenseBackend {
 public:
  DenseBackend(std::vector<std::vector<double>> a, std::vector<double> c) : a_(std::move(a)), n_(c.size()) {
    for (auto& v : vectors_) v.assign(n_, 0.0);
    at(KrylovVector::c) = std::move(c);
  }
  std::vector<double>& at(KrylovVector v) { return vectors_[static_cast<std::size_t>(v)]; }

  void apply(KrylovVector in, KrylovVector out) {
    std::vector<double> y(n_, 0.0);
    for (std::size_t i = 0; i < n_; ++i) {
      for (std::size_t j = 0; j < n_; ++j) y[i] += a_[i][j] * at(in)[j];
    }
    at(out) = y;
    ++products;
  }
  double dot(KrylovVector a, KrylovVector b) {
    double sum = 0.0;
    for (std::size_t i = 0; i < n_; ++i) sum += at(a)[i] * at(b)[i];
    return sum;
  }
  double max_abs(KrylovVector a) {
    double m = 0.0;
    for (double v : at(a)) m = larger_keeping_nan(m, std::abs(v));
    return m;
  }
  void copy(KrylovVector from, KrylovVector to) { at(to) = at(from); }
  void zero(KrylovVector a) { std::fill(at(a).begin(), at(a).end(), 0.0); }
  void combine(KrylovVector y, KrylovVector a, double s, KrylovVector b) {
    for (std::size_t i = 0; i < n_; ++i) at(y)[i] = at(a)[i] + s * at(b)[i];
  }
  void update_direction(double beta, double omega) {
    for (std::size_t i = 0; i < n_; ++i) {
      at(KrylovVector::p)[i] = at(KrylovVector::r)[i] + beta * (at(KrylovVector::p)[i] - omega * at(KrylovVector::v)[i]);
    }
  }
  void update_solution(double alpha, double omega) {
    for (std::size_t i = 0; i < n_; ++i) {
      at(KrylovVector::x)[i] += alpha * at(KrylovVector::p)[i] + omega * at(KrylovVector::s)[i];
    }
  }

  int products = 0;

 private:
  std::vector<std::vector<double>> a_;
  std::size_t n_;
  std::array<std::vector<double>, 8> vectors_;
};

KrylovLimits tight() { return {1000, 4, 1e-13, false}; }

void expect_outcome(const KrylovRun& run, bool converged, bool broke_down, std::uint64_t iterations) {
  EXPECT_EQ(run.converged, converged);
  EXPECT_EQ(run.broke_down, broke_down);
  EXPECT_EQ(run.iterations, iterations);
}

// x0 = 1/2 x1 + 1/4, x1 = 1/3 x0 + 1/3 x2 + 1/3, x2 = 1/2 x0: by hand, x1 = x0/2 + 1/3,
// so x0 = x0/4 + 5/12, x0 = 5/9 (and x1 = 11/18, x2 = 5/18).
TEST(BicgstabSteps, SolvesANonsymmetricSystem) {
  DenseBackend a({{1, -0.5, 0}, {-1.0 / 3, 1, -1.0 / 3}, {-0.5, 0, 1}}, {0.25, 1.0 / 3, 0});
  const KrylovRun run = run_bicgstab(a, tight());
  ASSERT_TRUE(run.converged);
  EXPECT_FALSE(run.broke_down);
  EXPECT_LE(run.iterations, 3u);  // exact arithmetic: at most n
  const std::vector<double>& x = a.at(KrylovVector::x);
  EXPECT_NEAR(x[0], 0.5 * x[1] + 0.25, 1e-13);
  EXPECT_NEAR(x[1], (x[0] + x[2] + 1) / 3, 1e-13);
  EXPECT_NEAR(x[2], 0.5 * x[0], 1e-13);
  EXPECT_NEAR(x[0], 5.0 / 9, 1e-13);
}

// Each iteration is told, with the residual it left (what -v's progress line shows).
TEST(BicgstabSteps, TellsEachIteration) {
  DenseBackend a({{1, -0.5, 0}, {-1.0 / 3, 1, -1.0 / 3}, {-0.5, 0, 1}}, {0.25, 1.0 / 3, 0});
  std::vector<double> told;
  KrylovLimits limits = tight();
  limits.on_iteration = [&](double residual) { told.push_back(residual); };
  const KrylovRun run = run_bicgstab(a, limits);
  ASSERT_TRUE(run.converged);
  ASSERT_FALSE(run.broke_down);
  ASSERT_GE(run.iterations, 1u);
  EXPECT_EQ(told.size(), run.iterations);
  EXPECT_LE(told.back(), limits.epsilon);  // the recurrence's, which converged
}

// A start that solves the system needs no iteration.
TEST(BicgstabSteps, StopsAtOnceOnASolution) {
  DenseBackend a({{1, -0.5}, {0, 1}}, {0.75, 0.5});
  a.at(KrylovVector::x) = {1.0, 0.5};
  const KrylovRun run = run_bicgstab(a, tight());
  EXPECT_TRUE(run.converged);
  EXPECT_EQ(run.iterations, 0u);
  EXPECT_EQ(run.restarts, 0u);
}

// A rotation: (r, A r) = 0 for every r, so every start breaks down at its first step.
// After max_restarts restarts the run gives up, unconverged, for value iteration.
TEST(BicgstabSteps, GivesUpAfterItsRestartsOnABreakdown) {
  DenseBackend a({{0, 1}, {-1, 0}}, {1, 2});
  KrylovLimits limits = tight();
  limits.max_restarts = 3;
  const KrylovRun run = run_bicgstab(a, limits);
  expect_outcome(run, false, true, 4);  // one step per start
  EXPECT_EQ(run.restarts, 3u);
}

// A backend whose rho vanishes at every period-th iteration, as a Krylov space that
// runs dry would, while the true residual falls between the breakdowns.
class BreaksDownEvery : public DenseBackend {
 public:
  BreaksDownEvery(DenseBackend a, int period) : DenseBackend(std::move(a)), period_(period) {}
  double dot(KrylovVector a, KrylovVector b) {
    const bool rho = a == KrylovVector::r_hat && b == KrylovVector::r;
    return rho && ++rhos_ % period_ == 0 ? 0.0 : DenseBackend::dot(a, b);
  }

 private:
  int period_, rhos_ = 0;
};

// x_i = left x_{i-1} + right x_{i+1} + 0.01 over n states.
DenseBackend tridiagonal(std::size_t n, double left, double right) {
  std::vector<std::vector<double>> m(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i) {
    m[i][i] = 1;
    if (i > 0) m[i][i - 1] = -left;
    if (i + 1 < n) m[i][i + 1] = -right;
  }
  return DenseBackend(m, std::vector<double>(n, 0.01));
}

// Breakdowns after progress cost no restart of the limit: with one restart allowed,
// a run that breaks down every 3 iterations still converges, after many more restarts.
TEST(BicgstabSteps, RestartsAfterProgressAreFree) {
  BreaksDownEvery a(tridiagonal(40, 0.3, 0.3), 3);
  KrylovLimits limits = tight();
  limits.max_restarts = 1;
  const KrylovRun run = run_bicgstab(a, limits);
  EXPECT_TRUE(run.converged);
  EXPECT_FALSE(run.broke_down);
  EXPECT_GT(run.restarts, 1u);
  const std::vector<double>& x = a.at(KrylovVector::x);
  for (std::size_t i = 1; i + 1 < x.size(); ++i) EXPECT_NEAR(x[i], 0.3 * (x[i - 1] + x[i + 1]) + 0.01, 1e-12);
}

// A NaN in the system is a breakdown, never a converged answer.
TEST(BicgstabSteps, ANanIsNeverConverged) {
  DenseBackend a({{1, 0}, {0, 1}}, {NAN, 1});
  const KrylovRun run = run_bicgstab(a, tight());
  EXPECT_FALSE(run.converged);
  EXPECT_TRUE(run.broke_down);
}

// The CPU backend: a NaN in x while every other entry of x and of the residual is
// already right must not read as converged because a reduction dropped the NaN
// (cluster N=512's stationary system once came back as NaN that way, on the device).
TEST(KrylovSystem, ANanInTheSolutionIsNeverConverged) {
  MaybeSystem system = test::empty_system();
  for (std::uint32_t s = 0; s < 2; ++s) test::append_one_row_state(system, {{s, 0.5}}, 0.0);
  const std::vector<double> start{std::nan(""), 0.0};
  KrylovSystem a(system, {0, 2}, start.data());
  EXPECT_FALSE(run_bicgstab(a, tight()).converged);
}

TEST(BicgstabSteps, StopsAtTheIterationLimit) {
  DenseBackend a = tridiagonal(30, 0.0, 0.9);  // a chain: about 30 iterations
  KrylovLimits limits = tight();
  limits.max_iterations = 2;
  expect_outcome(run_bicgstab(a, limits), false, false, 2);
}

// The CPU backend against the dense one, step for step: the same iterates after each
// of the first iterations (fewer than n: later, one run may meet a zero residual that
// rounding keeps from the other), and the same solution, on DTMC systems of every shape (rows longer than a warp,
// self-loops, odd sizes, a range that leaves entries outside it), with values plain
// and indexed (SystemValues::as_model).
TEST(KrylovSystem, BicgstabIsEquivalentToRef) {
  for (std::uint32_t n : {1u, 2u, 31u, 33u, 257u}) {
    for (bool indexed : {false, true}) {
      MaybeSystem system = test::first_rows_only(test::random_system(n, 40 + n));
      if (indexed) ASSERT_TRUE(system.values.compress());
      std::vector<double> values(n);
      for (std::uint32_t s = 0; s < n; ++s) values[s] = 0.01 * (s % 7);
      for (StateRange range : {StateRange{0, n}, StateRange{n / 3, n}}) {
        std::vector<std::vector<double>> dense(range.size(), std::vector<double>(range.size(), 0.0));
        std::vector<double> c(range.size());
        for (std::uint64_t i = 0; i < range.size(); ++i) {
          const std::uint64_t s = range.begin + i, row = system.row_group_starts[s];
          dense[i][i] += 1.0;
          c[i] = system.row_constants[row];
          for (std::uint64_t k = system.row_starts[row]; k < system.row_starts[row + 1]; ++k) {
            const std::uint32_t col = system.columns[k];
            if (col >= range.begin && col < range.end) {
              dense[i][col - range.begin] -= system.values[k];
            } else {
              c[i] += system.values[k] * values[col];
            }
          }
        }
        for (std::uint64_t steps : {1u, 2u, 5u, 0u}) {
          if (steps >= range.size()) continue;
          SCOPED_TRACE(testing::Message() << "n = " << n << ", from " << range.begin << ", steps " << steps);
          DenseBackend reference(dense, c);
          std::copy(values.begin() + range.begin, values.begin() + range.end, reference.at(KrylovVector::x).begin());
          KrylovSystem actual(system, range, values.data());
          // 0: to convergence.
          const KrylovLimits limits = steps == 0 ? tight() : KrylovLimits{steps, 0, 0.0, false};
          const KrylovRun expected_run = run_bicgstab(reference, limits);
          const KrylovRun actual_run = run_bicgstab(actual, limits);
          if (steps > 0) {
            EXPECT_EQ(actual_run.iterations, expected_run.iterations);
          } else {
            EXPECT_TRUE(actual_run.converged);
          }
          const std::vector<double>& expected = reference.at(KrylovVector::x);
          for (std::size_t i = 0; i < expected.size(); ++i) {
            ASSERT_NEAR(actual.solution()[i], expected[i], 1e-9 * std::max(1.0, std::abs(expected[i])))
                << "state " << i;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace mdpvi
