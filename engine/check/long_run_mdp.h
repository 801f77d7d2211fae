#pragma once
// Long-run averages of an MDP: Smin/Smax=? [ phi ] and R{..}min/max=? [ S ], the best
// or worst long-run share of time in phi, or reward per step, over all schedulers.
//
// After Ashok, Chatterjee, Daca, Kretinsky and Meggendorfer, "Value iteration for
// long-run average reward in Markov decision processes" (CAV 2017): every run ends in
// a maximal end component (MEC), inside which the optimal mean payoff is one number,
// the MEC's gain. Value iteration finds it, bounded on both sides by the least and
// the largest change of a sweep (Odoni's bounds, which hold where the gain is the same
// in every state, as in a MEC); each state stays put with probability 1/2 in those
// sweeps, which keeps the gains and makes the changes settle (no periodic chains).
// Then the best (worst) gain to end in is a total reward on the MDP with its MECs
// collapsed (engine/solve/end_component_quotient.h), where each MEC may stop, earning
// its gain, or leave.
#include "engine/check/reachability.h"

namespace mdpvi {

// per_step: the reward of each state and choice (for S [ phi ]: 1 in phi's states).
// The bounds, where the method gives them, add each MEC gain's own.
// Throws NotConvergedError when a gain does not settle within options.stop.max_sweeps.
NumericResult compute_long_run_mdp(const SparseMdp& mdp, const graph::SearchBackend& search, Optimization direction,
                                   const RewardStructure& per_step, const SolverOptions& options,
                                   const DeviceOptions& device = {});

}  // namespace mdpvi
