#pragma once
// LTL over a model: P [ path ] and Pmin/Pmax through the product of the model with a
// limit-deterministic Büchi automaton (engine/automata/path_automaton.h: LTL's own
// construction, or a HOA file's deterministic automaton made one), and E [ path ]
// and A [ path ] through the same product's graph.
//
// The product is an MDP also for a DTMC: the automaton's jumps are choices. The pairs
// from which the path is accepted almost surely (ltl_acceptance.h), among them its
// accepting end components (maximal end components in the accepting part that see
// every mark of their guess), are the target of a maximal reachability probability,
// which is the formula's probability (Sickert, Esparza, Jaax and Křetínský, CAV 2016:
// such automata are fit for MDPs). Pmin of an MDP is 1 - Pmax of the negation.
#include "engine/check/numeric_result.h"
#include "engine/model/path_formula.h"
#include "engine/model/sparse_mdp.h"
#include "engine/solve/solve_request.h"
#include "graph/search_backend.h"

#include <vector>

namespace mdpvi {

struct DeviceOptions;

// atoms[i]: where the formula's state formula i holds (num_states bits each). The
// product's graph searches run on kind's backend (the GPU's where it has room).
// A DTMC's direction is ignored (one value). fair: an MDP's minimum or maximum over
// fair schedulers only (PRISM's -fair; engine/check/fairness.h). The maximum reaches the
// accepting part's bottom SCCs that see every mark of their term (a fair scheduler stays
// only where every choice stays), the minimum is 1 - the maximum of the negation; a
// co-safe path's minimum is the fair minimum of reaching its accepting pairs (its
// maximum needs no fairness: a scheduler made fair after reaching them loses nothing).
NumericResult compute_ltl_probabilities(const SparseMdp& mdp, Optimization direction, const PathFormula& formula,
                                        const std::vector<StateSet>& atoms, const SolverOptions& options,
                                        const DeviceOptions& device,
                                        graph::SearchKind kind = graph::SearchKind::cpu_parallel, bool fair = false);

// R [ path ] for a co-safe path (only X, U and F in negation normal form; PRISM asks the
// same): the reward until the path is first satisfied (its automaton's initial component
// reaches tt), infinite where it is not almost surely, as R [ F target ] reads it
// (engine/check/rewards.h). Throws std::runtime_error for a path that is not co-safe.
NumericResult compute_ltl_reward(const SparseMdp& mdp, Optimization direction, const RewardStructure& rewards,
                                 const PathFormula& formula, const std::vector<StateSet>& atoms,
                                 const SolverOptions& options, const DeviceOptions& device,
                                 graph::SearchKind kind = graph::SearchKind::cpu_parallel);

// E [ path ]: the states from which some path satisfies it (every positive entry an
// edge; an MDP's choices taken freely). A [ path ] is !E [ !path ].
StateSet exists_ltl_path(const SparseMdp& mdp, const PathFormula& formula, const std::vector<StateSet>& atoms,
                         graph::SearchKind kind = graph::SearchKind::cpu_parallel);

}  // namespace mdpvi
