#pragma once
// Multi-objective queries of MDPs, multi(...): whether one scheduler meets several
// bounds at once (achievability), or the best value of one objective among the
// schedulers that meet the others (numerical), or with two or more such objectives
// their Pareto front. Objectives are reachability probabilities (phi U psi, and G, W,
// R as their complements), LTL paths (co-safe, safety, G F phi, F G phi, and any other
// through its limit-deterministic automaton) and expected total rewards (R [ C ], and
// R [ C<=k ] with a step counter in the product), each maximised or minimised.
//
// The method is the linear program of Etessami, Kwiatkowska, Vardi and Yannakakis
// ("Multi-objective model checking of Markov decision processes", LMCS 4(4), 2008),
// solved by GLPK: the model is paired with each objective's tracker (an until's status:
// pending, met or failed; a co-safe path's state in its automaton's deterministic first
// part; any other path's state in its limit-deterministic automaton, whose jumps are
// the scheduler's choices), its maximal end components collapsed with a choice to stay
// forever (beside a reward objective, those that earn nothing)
// (engine/solve/end_component_quotient.h), after which every run stops somewhere; the
// variables are each choice's expected number of uses, held to the flow of probability
// from the initial state; a path's probability is the flow into stops where it is met
// (G F phi: stops in end components with a phi state, where a scheduler that stays
// visits every state infinitely often; F G phi: stops where the scheduler has committed
// to phi states, each row having a committing copy; another path: stops in end
// components of its automaton's accepting part that see every mark of its guess), a
// total reward each choice's uses times its reward.
// The answer is exact up to the LP's floating point tolerance (no bound is claimed).
#include "engine/model/path_formula.h"
#include "engine/model/sparse_mdp.h"
#include "io/property.h"

#include <optional>
#include <stdexcept>
#include <vector>

namespace mdpvi {

struct MultiObjective {
  bool reward = false;
  StateSet phi, psi;                         // probability: phi U psi
  bool complement = false;                   // probability: the value is 1 - P(phi U psi)
  // Or an LTL path that is co-safe or safety, over atoms (where each state formula holds).
  std::optional<PathFormula> ltl;
  std::vector<StateSet> atoms;
  const RewardStructure* rewards = nullptr;  // reward: R [ C ] of these
  // reward: R [ C<=k ]: earned in the first k steps only (the product counts them).
  std::optional<std::uint32_t> reward_steps;
  std::optional<Optimization> query;         // =?: the objective to optimise
  std::optional<Comparison> comparison;      // else: its bound
  double threshold = 0.0;
};

struct MultiObjectiveAnswer {
  bool numerical = false;  // a value (one =?), else whether the bounds are achievable
  bool achievable = false;
  double value = 0.0;
  // One =? whose other objectives' bounds no scheduler meets: value is NaN, as PRISM's.
  bool bounds_unmet = false;
  // Two =? or more: the Pareto front's vertices, each the queried objectives' values in
  // their order, sorted (numerical is then false).
  std::vector<std::vector<double>> pareto;
};

// At the model's one initial state. With several queries, the Pareto front is found
// exactly, a vertex by each weighted sum that finds one (engine/check/pareto_front.h:
// the weights normal to the known vertices' facets). Throws std::runtime_error where
// the question has no answer here: several initial states, a total reward to maximise
// that an end component earns beside other reward objectives or queries, constraints
// no scheduler meets under two queries or more, an unbounded optimum, a front of more
// than 4096 vertices, or more than three objectives tracked as F G (F G to maximise, G F
// to minimise). A scheduler may stay forever only in end components that earn no
// reward of any objective; a least reward that only a stay where it alone earns could
// meet the bounds with is infinite, and so is a greatest reward (the only reward
// objective, the one query) that an end component earns which a scheduler meeting the
// bounds enters.
MultiObjectiveAnswer check_multi_objective(const SparseMdp& mdp, const std::vector<MultiObjective>& objectives);

}  // namespace mdpvi
