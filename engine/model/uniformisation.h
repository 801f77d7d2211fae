#pragma once
// A CTMC as the checker keeps it: its uniformised DTMC P = I + Q / q, where Q is the
// generator (the rates R off the diagonal, minus each state's exit rate on it) and q
// is at least every state's exit rate. P moves as the CTMC jumps, at the ticks of a
// Poisson process of rate q (Jensen's uniformisation), so:
//  - P has the CTMC's graph (plus self-loops), hence its Prob0/Prob1 sets, SCCs and
//    bottom SCCs, its unbounded reachability probabilities and its stationary
//    distributions: every DTMC algorithm answers these for the CTMC;
//  - the state after time t is that after N ~ Poisson(q t) steps of P: the transient
//    analyses (engine/check/transient.h) weigh P^k by Poisson probabilities.
// Reward structures stay as the builder made them, rates: a state's reward per unit
// of time, and per row the transition rewards times their rates.
#include "engine/model/sparse_mdp.h"

namespace mdpvi {

// The smallest uniformisation rate: the largest rate of leaving a state (self-loops do
// not leave), or 1 where nothing leaves any state.
double uniformisation_rate(const SparseMdp& ctmc);

// Replaces the rates of ctmc (type ctmc, one row per state, not yet uniformised) by the
// probabilities of its uniformised DTMC at uniformisation_rate(ctmc): each row's
// self-loops become one entry, last in the row, where its probability is positive.
// Sets ctmc.uniformisation_rate; the type stays ctmc. Throws std::invalid_argument if
// the model is not such a CTMC.
void uniformise(SparseMdp& ctmc);

// The CTMC's jumps from its uniformised DTMC: each state's row without the self-loop
// uniformisation gave it (a rate back into the state is no jump either), the rest
// renormalised: the embedded DTMC. A state that leaves nowhere keeps its loop, as a
// DTMC's deadlock does. CTL's path quantifiers range over these paths: the
// uniformised chain's self-loops would add paths that never leave a state it leaves.
// Pre: uniformised is a uniformised CTMC (SparseMdp::uniformisation_rate > 0).
SparseMdp embedded_chain(const SparseMdp& uniformised);

}  // namespace mdpvi
