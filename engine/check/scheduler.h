#pragma once
// An optimal memoryless scheduler of an unbounded reachability probability
// (Pmin/Pmax [phi U psi]) or expected reward (Rmin/Rmax [F target]), read off the
// property's value in every state: what --export-scheduler writes.
//
// The choice attaining the optimum in each state (the greedy one) is not always
// optimal. In an end component whose states share one value, a greedy choice may
// stay forever: Pmax then never reaches the target, and Rmin collects a finite
// reward without reaching it, which PRISM counts as infinite. For those two, the
// optimal choices are taken backwards from the target, so that each state's choice
// leads nearer to it. Pmin is greedy: staying forever is as good as the minimum
// allows. Rmax is greedy on its finite states, which reach the target under every
// scheduler; its infinite states take choices that miss the target with positive
// probability.
#include "engine/model/optimization.h"
#include "engine/model/sparse_mdp.h"
#include "engine/model/state_numbers.h"

#include <cstdint>
#include <vector>

namespace mdpvi {

struct ReachabilityQuery {
  Optimization direction = Optimization::maximize;
  const StateSet* phi = nullptr;             // probabilities: phi of phi U psi (nullptr: every state)
  const StateSet* target = nullptr;          // psi, or the reward's target
  const RewardStructure* rewards = nullptr;  // set for an expected reward
};

struct Scheduler {
  std::vector<std::uint32_t> choice;  // per state: its choice's index within its row group

  std::uint64_t row(const SparseMdp& mdp, std::uint32_t state) const { return mdp.row_group_starts[state] + choice[state]; }
};

// values: the query's value per state (infinity where a reward is infinite).
// tolerance: how far the values may lie from the true ones (the solve's bound); a
// choice whose value lies within it of its state's value counts as attaining it.
// Pre: values and the query's sets have one entry per state; a target is given.
Scheduler optimal_scheduler(const SparseMdp& mdp, const ReachabilityQuery& query, const StateNumbers& values,
                            double tolerance);

// The DTMC the scheduler induces: each state keeps its chosen row, with that row's
// rewards and action; labels, initial states and valuations are kept.
SparseMdp induced_dtmc(const SparseMdp& mdp, const Scheduler& scheduler);

}  // namespace mdpvi
