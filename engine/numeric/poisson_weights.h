#pragma once
// The Poisson probabilities that uniformisation weighs a CTMC's steps by: the state
// at time t is that after N ~ Poisson(q t) steps of the uniformised chain.
//
// After Fox and Glynn ("Computing Poisson probabilities", CACM 31(4), 1988): the
// probabilities are computed from the mode outward, each from its neighbour, so none
// underflows before the tails are cut; the tails are cut where a bound on each falls
// below half of epsilon. The bounds here are the geometric ones: beyond the mode the
// ratio of neighbours p(k+1)/p(k) = lambda/(k+1) only falls, and below it
// p(k-1)/p(k) = k/lambda only falls, so each tail is at most its first term over
// (1 - that ratio).
//
// The mode's probability comes from exp(-lambda + m log lambda - lgamma(m + 1)), whose
// argument loses digits as lambda grows (relative 1e-10 at lambda = 1e5), and that
// error is common to all weights. So the weights are then scaled, as Fox and Glynn
// scale theirs, to sum to 1 - missing(): the probability between the ends is at least
// that, so each weight is at most its probability, and all the probability the weights
// leave out, inside and in the tails, sums to exactly missing().
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <stdexcept>
#include <vector>

namespace mdpvi {

struct PoissonWeights {
  std::uint64_t left = 0;        // the first k weighed
  std::vector<double> weights;   // at most P(N = k), for k = left, left + 1, ..., right()
  double left_tail = 0.0;        // at least P(N < left)
  double right_tail = 0.0;       // at least P(N > right())
  // 1 - the sum of the weights: at least each tail, and their sum.
  std::uint64_t right() const { return left + weights.size() - 1; }
  double missing() const { return left_tail + right_tail; }
};

// Pre: lambda >= 0 and finite; epsilon > 0. Each tail is at most epsilon / 2.
inline PoissonWeights poisson_weights(double lambda, double epsilon) {
  if (!(lambda >= 0.0) || !std::isfinite(lambda) || !(epsilon > 0.0)) {
    throw std::invalid_argument("poisson_weights: needs a finite rate >= 0 and an epsilon > 0");
  }
  PoissonWeights out;
  if (lambda == 0.0) {
    out.weights = {1.0};
    return out;
  }
  const double half = std::max(epsilon, 1e-300) / 2;
  const double mode = std::floor(lambda);
  const double at_mode = std::exp(-lambda + mode * std::log(lambda) - std::lgamma(mode + 1.0));
  const auto m = static_cast<std::uint64_t>(mode);
  std::deque<double> weights{at_mode};
  // Rightward: stop at the first right end whose tail bound is below half.
  std::uint64_t right = m;
  double next = at_mode * lambda / static_cast<double>(m + 1);
  while (true) {
    const double ratio = lambda / static_cast<double>(right + 2);  // < 1: right + 2 > lambda
    const double tail = next / (1.0 - ratio);
    if (tail <= half) {
      out.right_tail = tail;
      break;
    }
    weights.push_back(next);
    ++right;
    next *= lambda / static_cast<double>(right + 1);
  }
  // Leftward, likewise; k = 0 has no tail below it.
  std::uint64_t left = m;
  while (left > 0) {
    const double previous = weights.front() * static_cast<double>(left) / lambda;
    const double ratio = static_cast<double>(left - 1) / lambda;  // < 1: left - 1 < lambda
    const double tail = previous / (1.0 - ratio);
    if (tail <= half) {
      out.left_tail = tail;
      break;
    }
    weights.push_front(previous);
    --left;
  }
  out.left = left;
  out.weights.assign(weights.begin(), weights.end());
  double total = 0.0;
  for (double w : out.weights) total += w;
  const double scale = (1.0 - out.missing()) / total;
  for (double& w : out.weights) w *= scale;
  return out;
}

}  // namespace mdpvi
