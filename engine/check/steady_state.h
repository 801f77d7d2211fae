#pragma once
// Long-run values of a DTMC: S=? [ phi ], the long-run probability of being in phi,
// and R=? [ S ], the long-run average reward per step. Each bottom SCC B has its
// stationary distribution pi_B (a linear system solved by BiCGStab, to 1e-8 of epsilon;
// where it gives up, power iteration on the lazy embedded chain (I + E) / 2, which has
// no period and whose distribution, divided by each state's leaving probability, is the
// chain's) and its value, the pi_B-weighted average of the
// per-state values. Every other state's value is the BSCC values weighted by the
// probabilities of reaching each: one linear system x = P x over the transient states,
// with x fixed to its BSCC's value on each BSCC, solved as the reachability systems are.
// The stationary distributions carry no error bound, so neither do the results.
#include "engine/check/reachability.h"
#include "engine/model/state_numbers.h"

#include <vector>

namespace mdpvi {

// The bottom SCCs of a chain with their stationary distributions: the same for every
// S and R[S] of a model, so the pipeline keeps them between its properties.
struct StationaryDistributions {
  double epsilon = 0.0;                             // what they were solved to; 0: not yet
  std::vector<std::vector<std::uint32_t>> bottoms;  // each BSCC's states
  std::vector<std::vector<double>> pi;              // their probabilities, in that order
  SccPlanSummary sccs;                              // how the BSCCs were found
  SolveReport report;                               // and solved (where, the sweeps)
};

// state_values: per state, 1 or 0 (S, for phi) or its reward per step (R[S]).
// Pre: mdp is a DTMC (one choice per state); state_values has num_states entries.
// kept: distributions solved before (used where solved to options' epsilon, else
// solved again into it), or none. Throws NotConvergedError when a stationary
// distribution does not settle within options.stop.max_sweeps.
NumericResult compute_long_run(const SparseMdp& mdp, const graph::SearchBackend& search,
                               const StateNumbers& state_values, const SolverOptions& options,
                               const DeviceOptions& device = {}, StationaryDistributions* kept = nullptr);

}  // namespace mdpvi
