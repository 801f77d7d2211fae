#include "engine/check/transient.h"

#include "engine/check/rewards.h"
#include "engine/model/stopwatch.h"
#include "engine/numeric/poisson_weights.h"
#include "engine/solve/uniformisation_sweeps.h"
#include "graph/qualitative.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>

namespace mdpvi {

namespace {

// Each Poisson tail is cut below this share of epsilon: far below what is reported, at
// a cost of a few more steps (the tails fall faster than geometrically).
constexpr double kTruncationShare = 1e-6;

double truncation(const SolverOptions& options) { return options.stop.epsilon * kTruncationShare; }

PoissonWeights weights_for(const SparseMdp& ctmc, double t, const SolverOptions& options) {
  if (!(ctmc.uniformisation_rate > 0.0)) throw std::invalid_argument("a time bound needs a uniformised CTMC");
  return poisson_weights(ctmc.uniformisation_rate * t, truncation(options));
}

// Bounds around result.values, each sound: below and above it by the given widths,
// within [0, ceiling], at the states that moved (all where none are given). The others'
// values are exact (a target's 1, the 0 of a state that cannot reach it): widened, a
// threshold of 0 or 1 could not be decided there, where PRISM's graph analysis decides it.
void bound_values(NumericResult& result, double below, double above, double ceiling, const StateSet* moved = nullptr) {
  result.lower = copy_of(result.values.data(), result.values.size());
  result.upper = copy_of(result.values.data(), result.values.size());
  for (std::size_t s = 0; s < result.values.size(); ++s) {
    if (moved && !moved->test(s)) continue;
    result.lower[s] = std::max(0.0, result.lower[s] - below);
    result.upper[s] = std::min(ceiling, result.upper[s] + above);
  }
}

double largest(const StateNumbers& values) {
  double most = 0.0;
  for (double v : values) most = std::max(most, v);
  return most;
}

// Sum over the weighted steps of the system over `moving` (one block), started from
// start (per model state); outside holds the fixed states' values (b). With close >= 0
// the steps rise towards 1 and may stop early (weighted_steps_towards_one), and
// settled_gap gets what that leaves out.
StateNumbers summed_over(const SparseMdp& ctmc, const StateSet& moving, const StateNumbers& outside,
                         const StateNumbers& start, const std::vector<double>& weights, std::uint64_t first,
                         const DeviceOptions& device, NumericResult& result, double close = -1.0,
                         double* settled_gap = nullptr) {
  auto begin = std::chrono::steady_clock::now();
  MaybeSystem system = build_maybe_system(ctmc, single_block(moving), outside);
  result.sccs = {1, seconds_since(begin)};
  begin = std::chrono::steady_clock::now();
  StateNumbers local(system.num_states());
  for (std::uint32_t i = 0; i < system.num_states(); ++i) local[i] = start[system.model_states[i]];
  const WeightedSum sum = weighted_steps_on(system, local.data(), weights, first, close, device, result.solve);
  if (settled_gap) *settled_gap = sum.settled_gap;
  StateNumbers values = outside;
  for (std::uint32_t i = 0; i < system.num_states(); ++i) values[system.model_states[i]] = sum.sum[i];
  result.solve.time_s += seconds_since(begin);
  result.solve.stats.add_run(sum.steps);
  result.step_bounded = result.uniformised = true;
  return values;
}

// P[phi U<=t psi]: psi counts 1 from the start, states that cannot reach psi through
// phi count 0; the others move. Where every moving state reaches psi almost surely,
// the steps stop once all are within the truncation's epsilon of 1.
NumericResult until_within(const SparseMdp& ctmc, const graph::SearchBackend& search, const StateSet& phi,
                           const StateSet& psi, double t, const SolverOptions& options, const DeviceOptions& device) {
  NumericResult result;
  result.step_bounded = true;
  auto start = std::chrono::steady_clock::now();
  const StateSet no = graph::prob0a(search, phi, psi);
  const StateSet maybe = phi - psi - no;
  result.qualitative = {psi.count(), no.count(), maybe.count(), seconds_since(start), to_string(search.kind())};
  result.values = numbers_on(psi, 1.0);
  if (t == 0.0 || maybe.none()) return result;  // exact: no bounds needed
  const PoissonWeights weights = weights_for(ctmc, t, options);
  const bool almost_surely = (maybe - graph::prob1a(search, phi, psi, no)).none();
  double settled_gap = 0.0;
  result.values = summed_over(ctmc, maybe, result.values, result.values, weights.weights, weights.left, device, result,
                              almost_surely ? truncation(options) : -1.0, &settled_gap);
  bound_values(result, 0.0, weights.missing() + settled_gap, 1.0, &maybe);
  return result;
}

// Time t within phi before what result holds (its values for the path from time t):
// a state not in phi at time t > 0 fails, for it was entered before t; phi's states
// move, the others stay at 0. Bounds: the sums are linear and weigh at most 1 in
// all, so each bound moves by at most its largest gap, plus what the weights leave out.
void prepend_time_within(const SparseMdp& ctmc, const graph::SearchBackend& search, const StateSet& phi, double t,
                         const SolverOptions& options, const DeviceOptions& device, NumericResult& result) {
  if (t == 0.0) return;
  StateNumbers start = copy_of(result.values.data(), result.values.size());
  double below = 0.0, above = 0.0;
  StateSet positive(ctmc.num_states());  // the states whose path value may exceed 0
  for (std::uint32_t s = 0; s < ctmc.num_states(); ++s) {
    if (!phi.test(s)) {
      start[s] = 0.0;
      continue;
    }
    if (!result.lower.empty()) below = std::max(below, start[s] - result.lower[s]);
    if (!result.upper.empty()) above = std::max(above, result.upper[s] - start[s]);
    if (start[s] > 0.0 || (!result.upper.empty() && result.upper[s] > 0.0)) positive.set(s);
  }
  // A state that cannot reach one of those through phi stays at exactly 0.
  const StateSet moved = phi - graph::prob0a(search, phi, positive);
  const PoissonWeights weights = weights_for(ctmc, t, options);
  const double top = largest(start) + above;
  result.values =
      summed_over(ctmc, phi, filled(ctmc.num_states(), 0.0), start, weights.weights, weights.left, device, result);
  bound_values(result, below, above + weights.missing() * top, 1.0, &moved);
  result.step_bounded = true;
}

// A reward at time 0: nothing summed, exact.
NumericResult rewards_now(StateNumbers values) {
  NumericResult result;
  result.reward = result.step_bounded = true;
  result.values = std::move(values);
  return result;
}

// The weighted steps from start over every state, the sum's bounds widened by what the
// weights may overstate (below) and leave out (above).
NumericResult summed_rewards(const SparseMdp& ctmc, const StateNumbers& start, const std::vector<double>& weights,
                             std::uint64_t first, double below, double above, const DeviceOptions& device) {
  NumericResult result;
  result.reward = true;
  result.qualitative.maybe = ctmc.num_states();
  result.values = summed_over(ctmc, all_states(ctmc.num_states()), filled(ctmc.num_states(), 0.0), start, weights,
                              first, device, result);
  bound_values(result, below, above, std::numeric_limits<double>::infinity());
  return result;
}

}  // namespace

NumericResult compute_timed_until(const SparseMdp& ctmc, const graph::SearchBackend& search, const StateSet& phi,
                                  const StateSet& psi, const TimeWindow& window, const SolverOptions& options,
                                  const DeviceOptions& device) {
  NumericResult result =
      window.last ? until_within(ctmc, search, phi, psi, *window.last - window.first, options, device)
                  : compute_until_probabilities(ctmc, search, Optimization::minimize, phi, psi, options, device);
  prepend_time_within(ctmc, search, phi, window.first, options, device, result);
  return result;
}

NumericResult compute_reward_at_time(const SparseMdp& ctmc, const RewardStructure& rates, double t,
                                     const SolverOptions& options, const DeviceOptions& device) {
  require_fit_rewards(rates, "instantaneous rewards (R[I=t])");
  StateNumbers start = filled(ctmc.num_states(), 0.0);
  if (!rates.state_rewards.empty()) {
    for (std::uint32_t s = 0; s < ctmc.num_states(); ++s) start[s] = rates.state_rewards[s];
  }
  if (t == 0.0) return rewards_now(std::move(start));
  const PoissonWeights weights = weights_for(ctmc, t, options);
  return summed_rewards(ctmc, start, weights.weights, weights.left, 0.0, weights.missing() * largest(start), device);
}

// With N ~ Poisson(q t), the time spent by t in the state after k steps has the
// expectation P(N > k) / q, so R[C<=t] = sum over k of P(N > k) / q * P^k r.
// P(N > k) is taken as 1 minus the weights up to k, which overstates it by at most
// what the weights leave out, for each k weighed; the steps after the right end are
// left out, and their weights, P(N > k) for k > right, sum to at most the right tail
// times r / (1 - r), r = q t / (right + 2) (the tail falls at least geometrically there).
NumericResult compute_reward_until_time(const SparseMdp& ctmc, const RewardStructure& rates, double t,
                                        const SolverOptions& options, const DeviceOptions& device) {
  require_fit_rewards(rates, "cumulative rewards (R[C<=t])");
  const StateNumbers start = reward_per_state(ctmc, rates);  // rates: the state's plus its transitions'
  if (t == 0.0) return rewards_now(filled(ctmc.num_states(), 0.0));
  const PoissonWeights poisson = weights_for(ctmc, t, options);
  const double q = ctmc.uniformisation_rate;
  std::vector<double> weights(poisson.right() + 1);
  double below = 0.0;  // the weights up to k
  for (std::uint64_t k = 0; k < weights.size(); ++k) {
    if (k >= poisson.left) below += poisson.weights[k - poisson.left];
    weights[k] = std::max(0.0, 1.0 - below) / q;
  }
  const double ratio = q * t / static_cast<double>(poisson.right() + 2);
  const double most = largest(start);
  const double over = static_cast<double>(weights.size()) * poisson.missing() / q * most;
  const double under = poisson.right_tail * ratio / (1.0 - ratio) / q * most;
  return summed_rewards(ctmc, start, weights, 0, over, under, device);
}

RewardStructure rewards_per_step(const SparseMdp& ctmc, const RewardStructure& rates) {
  RewardStructure per_step;
  per_step.name = rates.name;
  per_step.first_negative = rates.first_negative;
  StateNumbers state_rewards = reward_per_state(ctmc, rates);
  for (double& r : state_rewards) r /= ctmc.uniformisation_rate;
  per_step.state_rewards = CompactValues(std::move(state_rewards));
  return per_step;
}

}  // namespace mdpvi
