#pragma once
// Discounted expected rewards, R{...}min/max=? [ C{discount=d} ] and
// [ F{discount=d} target ] for 0 <= d < 1: the sum over a path of d^i times step i's
// reward (the state reward of the state left, the choice reward of the choice taken),
// up to the target's first visit where there is one. The Bellman operator
//   x(s) = opt over choices a of ( r(s, a) + d * sum_t P(s, a, t) x(t) ),  x = 0 on the target,
// is a contraction by d, so every value is finite and the fixed point unique: no
// Prob0/Prob1, no end components (they describe the undiscounted paths). Every
// state outside the target is solved, its SCCs in order, from 0 below and from
// max r / (1 - d) above (Puterman 1994, ch. 6). d = 1 is the undiscounted property.
#include "engine/check/reachability.h"

namespace mdpvi {

// Pre: rewards are finite and not negative (require_fit_rewards), 0 <= discount < 1;
// target null: none (R[C]).
NumericResult compute_discounted_reward(const SparseMdp& mdp, const graph::SearchBackend& search,
                                        Optimization direction, const RewardStructure& rewards, const StateSet* target,
                                        double discount, const SolverOptions& options, const DeviceOptions& device = {});

}  // namespace mdpvi
