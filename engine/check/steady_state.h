#pragma once
// Long-run values of a DTMC: S=? [ phi ], the long-run probability of being in phi,
// and R=? [ S ], the long-run average reward per step. Each bottom SCC B has its
// stationary distribution pi_B (power iteration on the lazy chain (I + P) / 2, which
// has the same one and no period; with --method bicgstab, a linear system solved by
// BiCGStab) and its value, the pi_B-weighted average of the
// per-state values. Every other state's value is the BSCC values weighted by the
// probabilities of reaching each: one linear system x = P x over the transient states,
// with x fixed to its BSCC's value on each BSCC, solved as the reachability systems are.
// The stationary distributions carry no error bound, so neither do the results.
#include "engine/check/reachability.h"
#include "engine/model/state_numbers.h"

#include <vector>

namespace mdpvi {

// state_values: per state, 1 or 0 (S, for phi) or its reward per step (R[S]).
// Pre: mdp is a DTMC (one choice per state); state_values has num_states entries.
// Throws NotConvergedError when a stationary distribution does not settle within
// options.stop.max_sweeps.
NumericResult compute_long_run(const SparseMdp& mdp, const graph::SearchBackend& search,
                               const StateNumbers& state_values, const SolverOptions& options,
                               const DeviceOptions& device = {});

}  // namespace mdpvi
