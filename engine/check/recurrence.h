#pragma once
// P [ G F phi ] and P [ F G phi ] over a state formula phi, on the model itself: no
// automaton and no product. The limit-deterministic automaton of G F phi has an initial
// and an accepting component, so its product holds every model state twice, and its
// accepting end components are a decomposition of that second copy; the model's own
// maximal end components answer the same question on half the states.
//
// For a finite MDP (de Alfaro's thesis, Stanford 1997, on end components; Baier and
// Katoen, "Principles of Model Checking", MIT Press 2008, chapter 10, on the limiting
// properties of MDPs: repeated reachability and persistence):
//   Pmax(G F B) = Pmax(F U), U the states of the maximal end components that hold a
//                 state of B (staying there, a scheduler visits each of their states
//                 infinitely often);
//   Pmax(F G B) = Pmax(F U), U the states of the maximal end components of the
//                 sub-MDP of B's states (its choices that stay in B);
//   Pmin of either is 1 - Pmax of the other over the complement of B.
// A DTMC's end components are its bottom SCCs, so the maximum is its probability.
#include "engine/check/numeric_result.h"
#include "engine/model/path_formula.h"
#include "engine/model/sparse_mdp.h"
#include "engine/solve/solve_request.h"
#include "graph/search_backend.h"

#include <optional>
#include <vector>

namespace mdpvi {

struct DeviceOptions;

// A path G F B (infinitely_often) or F G B (eventually_forever), B a set of states.
struct Recurrence {
  enum class Kind { infinitely_often, eventually_forever };
  Kind kind;
  StateSet states;
};

// formula as a recurrence, where it is G F phi or F G phi (unbounded) with phi a
// boolean combination of atoms, or the negation of one (!G F phi is F G !phi);
// nullopt for any other path. atoms[i]: where the formula's state formula i holds.
std::optional<Recurrence> recurrence_of(const PathFormula& formula, const std::vector<StateSet>& atoms);

// The path's probability from every state, maximal or minimal (a DTMC's direction is
// ignored), with the reachability pipeline's bounds. search is the model's backend: its
// end components are found on its device where it has one.
NumericResult compute_recurrence_probabilities(const SparseMdp& mdp, const graph::SearchBackend& search,
                                               Optimization direction, const Recurrence& path,
                                               const SolverOptions& options, const DeviceOptions& device);

}  // namespace mdpvi
