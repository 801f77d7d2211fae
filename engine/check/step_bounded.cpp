#include "engine/check/step_bounded.h"

#include "engine/model/stopwatch.h"
#include "graph/qualitative.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <chrono>

namespace mdpvi {

namespace {

// k steps are k sweeps, whatever the method: a fixed number of steps has exact values.
SolverOptions exactly(std::uint64_t steps, SolverOptions options) {
  options.stop = StopRule::exactly(steps);
  return options;
}

}  // namespace

NumericResult compute_bounded_until(const SparseMdp& mdp, const graph::SearchBackend& search,
                                         Optimization direction, const StateSet& phi, const StateSet& psi,
                                         std::uint64_t steps, const SolverOptions& options,
                                         const DeviceOptions& device) {
  NumericResult result;
  result.step_bounded = true;
  auto start = std::chrono::steady_clock::now();
  // Where psi cannot be reached at all, it cannot be reached within k steps either.
  StateSet no = graph::prob0a(search, phi, psi);
  StateSet maybe = phi - psi - no;
  result.qualitative = {psi.count(), no.count(), steps == 0 ? 0 : maybe.count(), seconds_since(start),
                        to_string(search.kind())};

  result.values = numbers_on(psi, 1.0);
  if (steps == 0 || maybe.none()) return result;
  start = std::chrono::steady_clock::now();
  MaybeSystem system = build_maybe_system(mdp, single_block(maybe), result.values);
  result.sccs = {1, seconds_since(start)};
  solve_into({.system = system, .direction = direction, .options = exactly(steps, options)}, device, result);
  return result;
}

namespace {

// One backward step of prepend_steps_within: from (the values at step i) into next
// (those at step i-1).
void step_within(const SparseMdp& mdp, Optimization direction, const StateSet& phi, const StateNumbers& from,
                 StateNumbers& next) {
  using States = oneapi::tbb::blocked_range<std::uint32_t>;
  oneapi::tbb::parallel_for(States(0, mdp.num_states()), [&](const States& states) {
    for (std::uint32_t s = states.begin(); s < states.end(); ++s) {
      if (!phi.test(s)) {
        next[s] = 0.0;
        continue;
      }
      double best = 0.0;
      for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
        double sum = 0.0;
        for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) sum += mdp.values[k] * from[mdp.columns[k]];
        const bool first = r == mdp.row_group_starts[s];
        best = first ? sum : direction == Optimization::minimize ? std::min(best, sum) : std::max(best, sum);
      }
      next[s] = best;
    }
  });
}

}  // namespace

void prepend_steps_within(const SparseMdp& mdp, Optimization direction, const StateSet& phi, std::uint64_t steps,
                          NumericResult& result) {
  auto start = std::chrono::steady_clock::now();
  StateNumbers next(mdp.num_states());  // step_within writes every state
  for (StateNumbers* values : {&result.values, &result.lower, &result.upper}) {
    if (values->empty()) continue;
    for (std::uint64_t i = 0; i < steps; ++i) {
      step_within(mdp, direction, phi, *values, next);
      values->swap(next);
    }
  }
  result.solve.stats.iterations += steps;
  result.solve.time_s += seconds_since(start);
}

NumericResult compute_next(const SparseMdp& mdp, Optimization direction, const StateSet& phi) {
  NumericResult result;
  result.step_bounded = true;
  auto start = std::chrono::steady_clock::now();
  result.values.resize(mdp.num_states());
  for (std::uint32_t s = 0; s < mdp.num_states(); ++s) {
    double best = direction == Optimization::minimize ? 1.0 : 0.0;
    for (std::uint64_t r = mdp.row_group_starts[s]; r < mdp.row_group_starts[s + 1]; ++r) {
      double p = 0.0;
      for (std::uint64_t k = mdp.row_starts[r]; k < mdp.row_starts[r + 1]; ++k) {
        if (phi.test(mdp.columns[k])) p += mdp.values[k];
      }
      best = direction == Optimization::minimize ? std::min(best, p) : std::max(best, p);
    }
    result.values[s] = best;
  }
  result.solve.stats.iterations = 1;
  result.solve.time_s = seconds_since(start);
  return result;
}

NumericResult compute_cumulative_reward(const SparseMdp& mdp, Optimization direction,
                                             const RewardStructure& rewards, std::uint64_t steps,
                                             const SolverOptions& options, const DeviceOptions& device,
                                             double discount) {
  NumericResult result;
  result.reward = true;
  result.step_bounded = true;
  result.values.assign(mdp.num_states(), 0.0);
  if (steps == 0) return result;
  auto start = std::chrono::steady_clock::now();
  StateSet all = all_states(mdp.num_states());
  result.qualitative.maybe = all.count();
  MaybeSystem system = build_maybe_system(mdp, single_block(all), result.values, &rewards);
  if (discount != 1.0) discount_entries(system, discount);
  result.sccs = {1, seconds_since(start)};
  solve_into({.system = system, .direction = direction, .options = exactly(steps, options)}, device, result);
  return result;
}

NumericResult compute_instantaneous_reward(const SparseMdp& mdp, Optimization direction,
                                           const RewardStructure& rewards, std::uint64_t steps,
                                           const SolverOptions& options) {
  NumericResult result;
  result.reward = true;
  result.step_bounded = true;
  result.values = rewards.state_rewards.expanded();
  result.values.resize(mdp.num_states(), 0.0);  // no state rewards: all 0
  if (steps == 0) return result;
  auto start = std::chrono::steady_clock::now();
  StateSet all = all_states(mdp.num_states());
  result.qualitative.maybe = all.count();
  MaybeSystem system = build_maybe_system(mdp, single_block(all), result.values);  // b = 0: no outside
  result.sccs = {1, seconds_since(start)};
  // The start vector is the state rewards, in the system's order (all states, in
  // index order).
  const StateNumbers start_values = result.values;
  solve_into({.system = system, .direction = direction, .options = exactly(steps, options), .start_values = &start_values},
             {SolverKind::cpu}, result);
  return result;
}

}  // namespace mdpvi
