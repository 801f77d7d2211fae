#include "engine/solve/krylov_system.h"

#include "engine/model/parallel_indices.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace mdpvi {

KrylovLimits krylov_limits(const StopRule& stop) {
  KrylovLimits limits;
  limits.max_iterations = stop.max_sweeps;
  limits.epsilon = stop.epsilon;
  limits.relative = stop.criterion == ConvergenceCriterion::relative;
  return limits;
}

namespace {

using Range = oneapi::tbb::blocked_range<std::size_t>;

// Below many states a loop runs on one thread: a BiCGStab iteration is about
// ten passes, and on a small SCC the tasks of each would cost more than its work.
constexpr std::size_t kGrain = 4096;

Range whole(std::size_t n) { return Range(0, n, kGrain); }

}  // namespace

KrylovSystem::KrylovSystem(const MaybeSystem& system, StateRange range, const std::uint64_t* rows)
    : s_(system), begin_(range.begin), n_(range.size()), rows_(rows) {
  for (auto& v : vectors_) v.assign(n_, 0.0);
}

KrylovSystem::KrylovSystem(const MaybeSystem& system, StateRange range, const double* values, const std::uint64_t* rows)
    : KrylovSystem(system, range, rows) {
  std::copy(values + begin_, values + begin_ + n_, at(KrylovVector::x).begin());
  std::vector<double>& c = at(KrylovVector::c);
  parallel_indices(0, n_, kGrain, [&](std::size_t i) {
    const std::uint64_t row = row_of(i);
    double sum = s_.row_constants[row];
    for (std::uint64_t k = s_.row_starts[row]; k < s_.row_starts[row + 1]; ++k) {
      if (!inside(s_.columns[k])) sum += s_.values[k] * values[s_.columns[k]];
    }
    c[i] = sum;
  });
}

KrylovSystem KrylovSystem::steps_to_leave(const MaybeSystem& system, StateRange range, const std::uint64_t* rows,
                                          const double* start) {
  KrylovSystem a(system, range, rows);
  std::fill(a.at(KrylovVector::c).begin(), a.at(KrylovVector::c).end(), 1.0);
  std::copy(start, start + a.n_, a.at(KrylovVector::x).begin());
  return a;
}

void KrylovSystem::apply(KrylovVector in, KrylovVector out) {
  const std::vector<double>& x = at(in);
  std::vector<double>& y = at(out);
  s_.values.visit([&](const auto& read) {  // the values' form chosen once, not per entry
    parallel_indices(0, n_, kGrain, [&](std::size_t i) {
      const std::uint64_t row = row_of(i);
      double mx = 0.0;
      for (std::uint64_t k = s_.row_starts[row]; k < s_.row_starts[row + 1]; ++k) {
        if (inside(s_.columns[k])) mx += read(k) * x[s_.columns[k] - begin_];
      }
      y[i] = x[i] - mx;
    });
  });
}

double KrylovSystem::dot(KrylovVector a, KrylovVector b) const {
  const std::vector<double>& u = at(a);
  const std::vector<double>& w = at(b);
  // Split the same way every run (the sum's rounding with it): the same system solves
  // to the same last bits, and policy iteration takes the same steps.
  return oneapi::tbb::parallel_deterministic_reduce(
      whole(n_), 0.0,
      [&](const Range& r, double sum) {
        for (std::size_t i = r.begin(); i < r.end(); ++i) sum += u[i] * w[i];
        return sum;
      },
      std::plus<>());
}

double KrylovSystem::max_abs(KrylovVector a) const {
  const std::vector<double>& u = at(a);
  return oneapi::tbb::parallel_reduce(
      whole(n_), 0.0,
      [&](const Range& r, double m) {
        for (std::size_t i = r.begin(); i < r.end(); ++i) m = larger_keeping_nan(m, std::abs(u[i]));
        return m;
      },
      larger_keeping_nan);
}

void KrylovSystem::copy(KrylovVector from, KrylovVector to) { at(to) = at(from); }

void KrylovSystem::zero(KrylovVector a) { std::fill(at(a).begin(), at(a).end(), 0.0); }

void KrylovSystem::combine(KrylovVector y, KrylovVector a, double s, KrylovVector b) {
  std::vector<double>& out = at(y);
  const std::vector<double>& u = at(a);
  const std::vector<double>& w = at(b);
  parallel_indices(0, n_, kGrain, [&](std::size_t i) { out[i] = u[i] + s * w[i]; });
}

void KrylovSystem::update_direction(double beta, double omega) {
  std::vector<double>& p = at(KrylovVector::p);
  const std::vector<double>& r = at(KrylovVector::r);
  const std::vector<double>& v = at(KrylovVector::v);
  parallel_indices(0, n_, kGrain, [&](std::size_t i) { p[i] = r[i] + beta * (p[i] - omega * v[i]); });
}

void KrylovSystem::update_solution(double alpha, double omega) {
  std::vector<double>& x = at(KrylovVector::x);
  const std::vector<double>& p = at(KrylovVector::p);
  const std::vector<double>& s = at(KrylovVector::s);
  parallel_indices(0, n_, kGrain, [&](std::size_t i) { x[i] += alpha * p[i] + omega * s[i]; });
}

}  // namespace mdpvi
