#pragma once
// Expected total reward, R{...}min/max=? [ C ]: the sum over a whole path of the
// state rewards of the states it leaves and the choice rewards of the choices it
// takes, which is infinite where some reward is collected forever.
//   Rmin: a scheduler must end up, almost surely, in an end component that collects
//   nothing (the zero-reward MECs, Z); it is R[F Z] with Z's values 0, and infinite
//   outside Prob1E(F Z).
//   Rmax: infinite where an end component with a positive reward inside can be
//   reached at all; elsewhere every end component collects nothing, and each is
//   collapsed with an extra choice to stop there at no cost, so the quotient has no
//   end components left and value iteration from 0 gives the total.
// A DTMC has one scheduler: its BSCCs are its end components, and the Rmin way applies.
#include "engine/check/reachability.h"

namespace mdpvi {

// Pre: rewards are finite and not negative (require_fit_rewards).
NumericResult compute_total_reward(const SparseMdp& mdp, const graph::SearchBackend& search, Optimization direction,
                                   const RewardStructure& rewards, const SolverOptions& options,
                                   const DeviceOptions& device = {});

}  // namespace mdpvi
