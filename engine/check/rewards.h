#pragma once
// Expected total reward until a target is reached, R{...}min/max=? [ F target ]:
// the reward of a path is the sum of the state rewards of the states it leaves and
// the choice rewards of the choices it takes before its first target state.
// As PRISM defines it, the value is infinite where the target is not reached with
// probability 1: for Rmin where no scheduler reaches it almost surely (outside
// Prob1E), for Rmax where some scheduler misses it with positive probability
// (outside Prob1A). Those states come from the graph algorithms; the rest is
// solved by topological value iteration from 0.
#include "engine/check/reachability.h"

#include <string>

namespace mdpvi {

// PRISM's check before expected rewards over an unbounded horizon (R[F], R[C]): the
// rewards must be finite and not negative (the graph analysis and the fixed point
// assume it). Throws std::runtime_error naming the first reward that is not, and the
// operator (`what`).
void require_fit_rewards(const RewardStructure& rewards, const std::string& what);

// Each state's reward in a chain (one row per state): its state reward plus its row's.
StateNumbers reward_per_state(const SparseMdp& chain, const RewardStructure& rewards);

// R[F target], or with constraint R[constraint U target]: the reward until the path
// first satisfies it, infinite where it does not almost surely (under the best
// scheduler for Rmin, every one for Rmax), as PRISM reads co-safe reward paths.
// Pre: target (and constraint) have num_states bits.
NumericResult compute_reachability_reward(const SparseMdp& mdp, const graph::SearchBackend& search,
                                          Optimization direction, const RewardStructure& rewards,
                                          const StateSet& target, const SolverOptions& options,
                                          const DeviceOptions& device = {}, const StateSet* constraint = nullptr);

}  // namespace mdpvi
