#include "engine/solve/bellman.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>

namespace mdpvi {

namespace {

template <Optimization direction, ConvergenceCriterion criterion, typename Read>
double sweep_serial(const MaybeSystem& system, std::uint64_t begin, std::uint64_t end, const double* x_in,
                    double* x_out, const Read& read) {
  double largest = 0.0;
  for (std::uint64_t s = begin; s < end; ++s) {
    double value = bellman_value<direction>(system, s, x_in, read);
    largest = std::max(largest, value_change<criterion>(x_in[s], value));
    x_out[s] = value;
  }
  return largest;
}

template <Optimization direction, ConvergenceCriterion criterion, typename Read>
double sweep_parallel(const MaybeSystem& system, StateRange range, const double* x_in, double* x_out, const Read& read) {
  // Below this many states a parallel sweep costs more in scheduling than it saves.
  constexpr std::uint64_t kGrain = 2048;
  if (range.size() <= kGrain) return sweep_serial<direction, criterion>(system, range.begin, range.end, x_in, x_out, read);
  return oneapi::tbb::parallel_reduce(
      oneapi::tbb::blocked_range<std::uint64_t>(range.begin, range.end, kGrain), 0.0,
      [&](const oneapi::tbb::blocked_range<std::uint64_t>& part, double largest) {
        return std::max(largest,
                        sweep_serial<direction, criterion>(system, part.begin(), part.end(), x_in, x_out, read));
      },
      [](double a, double b) { return std::max(a, b); });
}

template <Optimization direction, ConvergenceCriterion criterion, typename Read>
IntervalSweep interval_serial(const MaybeSystem& system, std::uint64_t begin, std::uint64_t end, IntervalIterates x,
                              const Read& read) {
  IntervalSweep result;
  for (std::uint64_t s = begin; s < end; ++s) {
    const auto [swept, raised] = bellman_pair<direction>(system, s, x.lower_in, x.upper_in, read);
    double lower = std::max(x.lower_in[s], swept);
    double upper = std::min(x.upper_in[s], raised);
    result.width = std::max(result.width, interval_width<criterion>(lower, upper));
    result.upper_raised = result.upper_raised || raised > x.upper_in[s] * (1 + kRaiseTolerance);
    result.lower_lowered = result.lower_lowered || swept < x.lower_in[s] * (1 - kRaiseTolerance);
    result.crossed = result.crossed || upper < lower;
    x.lower_out[s] = lower;
    x.upper_out[s] = upper;
  }
  return result;
}

template <Optimization direction, ConvergenceCriterion criterion, typename Read>
IntervalSweep interval_parallel(const MaybeSystem& system, StateRange range, IntervalIterates x, const Read& read) {
  constexpr std::uint64_t kGrain = 2048;  // as sweep_parallel
  if (range.size() <= kGrain) return interval_serial<direction, criterion>(system, range.begin, range.end, x, read);
  return oneapi::tbb::parallel_reduce(
      oneapi::tbb::blocked_range<std::uint64_t>(range.begin, range.end, kGrain), IntervalSweep{},
      [&](const oneapi::tbb::blocked_range<std::uint64_t>& part, IntervalSweep sum) {
        return sum += interval_serial<direction, criterion>(system, part.begin(), part.end(), x, read);
      },
      [](IntervalSweep a, const IntervalSweep& b) { return a += b; });
}

// The one place where the runtime options become template parameters.
template <template <Optimization, ConvergenceCriterion> class Kernel, typename... Args>
auto dispatch(Optimization direction, ConvergenceCriterion criterion, Args&&... args) {
  using C = ConvergenceCriterion;
  using O = Optimization;
  if (direction == O::minimize) {
    return criterion == C::relative ? Kernel<O::minimize, C::relative>::run(args...)
                                    : Kernel<O::minimize, C::absolute>::run(args...);
  }
  return criterion == C::relative ? Kernel<O::maximize, C::relative>::run(args...)
                                  : Kernel<O::maximize, C::absolute>::run(args...);
}

// Each kernel reads the values through the reader of the system's form (one visit a sweep).
template <Optimization d, ConvergenceCriterion c>
struct SerialKernel {
  static double run(const MaybeSystem& system, StateRange range, const double* x_in, double* x_out) {
    return system.values.visit(
        [&](const auto& read) { return sweep_serial<d, c>(system, range.begin, range.end, x_in, x_out, read); });
  }
};

template <Optimization d, ConvergenceCriterion c>
struct ParallelKernel {
  static double run(const MaybeSystem& system, StateRange range, const double* x_in, double* x_out) {
    return system.values.visit([&](const auto& read) { return sweep_parallel<d, c>(system, range, x_in, x_out, read); });
  }
};

template <Optimization d, ConvergenceCriterion c>
struct IntervalSerialKernel {
  static IntervalSweep run(const MaybeSystem& system, StateRange range, IntervalIterates x) {
    return system.values.visit(
        [&](const auto& read) { return interval_serial<d, c>(system, range.begin, range.end, x, read); });
  }
};

template <Optimization d, ConvergenceCriterion c>
struct IntervalParallelKernel {
  static IntervalSweep run(const MaybeSystem& system, StateRange range, IntervalIterates x) {
    return system.values.visit([&](const auto& read) { return interval_parallel<d, c>(system, range, x, read); });
  }
};

}  // namespace

IntervalSweep interval_sweep_reference(const MaybeSystem& system, StateRange range, Optimization direction,
                                       ConvergenceCriterion criterion, IntervalIterates x) {
  return dispatch<IntervalSerialKernel>(direction, criterion, system, range, x);
}

IntervalSweep interval_sweep_parallel(const MaybeSystem& system, StateRange range, Optimization direction,
                                      ConvergenceCriterion criterion, IntervalIterates x) {
  return dispatch<IntervalParallelKernel>(direction, criterion, system, range, x);
}

double bellman_sweep_reference(const MaybeSystem& system, StateRange range, Optimization direction,
                               ConvergenceCriterion criterion, const double* x_in, double* x_out) {
  return dispatch<SerialKernel>(direction, criterion, system, range, x_in, x_out);
}

double bellman_sweep_parallel(const MaybeSystem& system, StateRange range, Optimization direction,
                              ConvergenceCriterion criterion, const double* x_in, double* x_out) {
  return dispatch<ParallelKernel>(direction, criterion, system, range, x_in, x_out);
}

}  // namespace mdpvi
