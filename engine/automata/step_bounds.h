#pragma once
// Step-bounded operators inside an LTL path, unfolded into X, so that the automaton
// construction (engine/automata/ltl_automaton.h) sees unbounded operators only:
//   phi U<=k psi = psi | (phi & X (phi U<=k-1 psi)), phi U<=0 psi = psi;
//   G<=k phi = phi & X G<=k-1 phi;  F<=k phi = phi | X F<=k-1 phi;
//   an interval [a, b] or a lower bound a: a steps of phi (for U), then X^a of the rest;
//   W and R bounded as complements of U: phi W psi = !((!psi) U (!phi & !psi)),
//   phi R psi = !((!phi) U (!psi)).
#include "engine/model/path_formula.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace mdpvi::automata {

// Bounds above this are refused: the unfolding is linear in them, the automaton may not be.
constexpr std::uint64_t kMostUnfoldedSteps = 1000;
// Nested bounds multiply: an unfolding past this many operators is refused.
constexpr std::size_t kMostUnfoldedNodes = 1000000;

// formula with each bound looked up in steps (by the node's bound numbers).
// Throws std::invalid_argument for an empty interval, a bound above kMostUnfoldedSteps or
// an unfolding past kMostUnfoldedNodes.
PathFormula unfold_step_bounds(const PathFormula& formula, const std::vector<std::uint64_t>& steps);

}  // namespace mdpvi::automata
