#pragma once
// A CTMC's time-bounded operators (CSL), by uniformisation: the CTMC is kept as its
// uniformised DTMC P at rate q (engine/model/uniformisation.h), and the state at time t
// is that after N ~ Poisson(q t) steps of P. So a value at time t is the sum over k of
// P(N = k) times the value after k steps, truncated where each Poisson tail falls
// below a millionth of epsilon (engine/numeric/poisson_weights.h). The weights leave
// out only non-negative terms, and how much weight is known, so every result comes
// with sound bounds: [sum, sum + what is left out times the largest value] (R[C<=t]
// also widens below, transient.cpp says why). The unbounded operators (U, F, S) are
// the uniformised DTMC's, answered as a DTMC's.
#include "engine/check/reachability.h"

#include <optional>

namespace mdpvi {

// The times of an until: [first, last]; no last: unbounded above (U>=t).
struct TimeWindow {
  double first = 0.0;
  std::optional<double> last;
};

// P[phi U[first,last] psi] of a uniformised CTMC.
// Pre: ctmc.uniformisation_rate > 0; phi and psi have num_states bits; 0 <= first <= last.
NumericResult compute_timed_until(const SparseMdp& ctmc, const graph::SearchBackend& search, const StateSet& phi,
                                  const StateSet& psi, const TimeWindow& window, const SolverOptions& options,
                                  const DeviceOptions& device = {});

// R[I=t]: the expected state reward (a rate) of the state at time t, as PRISM's, which
// leaves transition rewards out.
NumericResult compute_reward_at_time(const SparseMdp& ctmc, const RewardStructure& rates, double t,
                                     const SolverOptions& options, const DeviceOptions& device = {});

// R[C<=t]: the expected reward until time t: state rewards per unit of time, transition
// rewards per transition.
NumericResult compute_reward_until_time(const SparseMdp& ctmc, const RewardStructure& rates, double t,
                                        const SolverOptions& options, const DeviceOptions& device = {});

// The reward structure of the uniformised chain whose expected total is the CTMC's:
// per step, the expected reward of the time a step takes, (state rate + transition
// rate) / q. R[F phi] and R[C] of the CTMC are those of its uniformised chain with it.
RewardStructure rewards_per_step(const SparseMdp& ctmc, const RewardStructure& rates);

}  // namespace mdpvi
