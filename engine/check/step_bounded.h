#pragma once
// Properties over a fixed number of steps: P[phi U<=k psi], the first a steps of
// P[phi U[a,b] psi] and P[phi U>=a psi], P[X phi], R[C<=k] and R[I=k]. Value iteration from the right start vector, exactly k Jacobi sweeps over
// all relevant states at once: step i's value needs step i-1's values everywhere,
// so the topological (SCC by SCC) order does not apply.
#include "engine/check/reachability.h"

namespace mdpvi {

// Pre: phi, psi have num_states bits; steps >= 0.
NumericResult compute_bounded_until(const SparseMdp& mdp, const graph::SearchBackend& search,
                                    Optimization direction, const StateSet& phi, const StateSet& psi,
                                    std::uint64_t steps, const SolverOptions& options,
                                    const DeviceOptions& device = {});

// Steps before the rest of a path: given result.values (and its bounds, where the
// solve gave them) for what must hold from step k on, the values at step 0 when every
// state of steps 0..k-1 satisfies phi. k backward steps over all states:
//   y_0 = values, y_i(s) = phi(s) ? opt over choices of sum P(s,s') y_{i-1}(s') : 0.
// The lower bound of phi U[a,b] psi and phi U>=a psi (on the CPU, all cores).
void prepend_steps_within(const SparseMdp& mdp, Optimization direction, const StateSet& phi, std::uint64_t steps,
                          NumericResult& result);

// The probability that the next state satisfies phi.
NumericResult compute_next(const SparseMdp& mdp, Optimization direction, const StateSet& phi);

// Expected reward collected in the first k steps (state rewards of the states left,
// choice rewards of the choices taken), step i's counting discount^i.
NumericResult compute_cumulative_reward(const SparseMdp& mdp, Optimization direction,
                                        const RewardStructure& rewards, std::uint64_t steps,
                                        const SolverOptions& options, const DeviceOptions& device = {},
                                        double discount = 1.0);

// Expected state reward of the state reached after exactly k steps (on the CPU).
NumericResult compute_instantaneous_reward(const SparseMdp& mdp, Optimization direction,
                                           const RewardStructure& rewards, std::uint64_t steps,
                                           const SolverOptions& options);

}  // namespace mdpvi
