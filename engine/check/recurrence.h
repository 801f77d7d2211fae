#pragma once
// P [ path ] where the path says only which end component a run stays in at last:
// G F phi, F G phi over state formulas, conjunctions of G F, disjunctions of F G, and
// their negations. These are answered on the model itself: no automaton and no product.
// The limit-deterministic automaton of G F phi has an initial and an accepting
// component, so its product holds every model state twice, and its accepting end
// components are a decomposition of that second copy; the model's own maximal end
// components answer the same question on half the states.
//
// Almost every run of a finite MDP ends in an end component, visiting each of its
// states infinitely often (de Alfaro's thesis, Stanford 1997; Baier and Katoen,
// "Principles of Model Checking", MIT Press 2008, chapter 10, on repeated reachability
// and persistence), so:
//   Pmax(G F B1 & ... & G F Bk) = Pmax(F U), U the states of the maximal end
//                 components that meet every Bi;
//   Pmax(F G C1 | ... | F G Cm) = Pmax(F U), U the states of the maximal end
//                 components of the sub-MDPs of each Cj's states (their choices that
//                 stay in Cj);
//   Pmin of either is 1 - Pmax of the other over the complements.
// Any target between U and the states from which the path holds almost surely gives
// the same maximum; recurrence.cpp takes the latter, which are found by searches alone
// (Prob1E rounds for G F, one Prob0E search for F G), not by decomposing the model into
// end components.
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

// The condition on the end component a run stays in at last.
struct Recurrence {
  enum class Kind {
    infinitely_often,   // G F B for every B of sets: the component meets each
    eventually_forever  // F G C for some C of sets: the component lies in one
  };
  Kind kind;
  std::vector<StateSet> sets;
};

// formula as a recurrence, where it is one: G F phi or F G phi (unbounded) with phi a
// boolean combination of atoms; a conjunction of G Fs (or of F Gs: F G (C & D)); a
// disjunction of F Gs (or of single G Fs: G F (B | D)); or the negation of one
// (!G F phi is F G !phi). nullopt for any other path. atoms[i]: where the formula's state
// formula i holds.
std::optional<Recurrence> recurrence_of(const PathFormula& formula, const std::vector<StateSet>& atoms);

// Any Boolean combination of G F and F G over state formulas, which recurrence_of
// refuses where it mixes both kinds ((F G "a") | (G F "b"), (G F "a") & (F G "b")), as
// a disjunction of terms, each G F B1 & ... & G F Bk & (F G C1 | ... | F G Cm). A run
// that meets the disjunction ends in an end component where one term holds: inside
// some Cj and meeting every Bi. Those components lie among the states from which a
// scheduler surely stays in Cj and meets every Bi almost surely (graph::almost_sure_buchi
// within Cj; Chatterjee, Jurdziński and Henzinger's Streett games have the general
// case), so Pmax of the path is Pmax of reaching any term's such states; Pmin is 1 -
// Pmax of the negation's terms. A DTMC's end components are its bottom SCCs: either.
struct RecurrenceTerm {
  std::vector<StateSet> infinitely_often;    // the Bi
  std::vector<StateSet> eventually_forever;  // the Cj; none: no F G part
};
struct RecurrenceUnion {
  std::vector<RecurrenceTerm> terms;  // of the path, or of its negation
  bool of_the_negation = false;       // the path's probability is 1 - the terms'
};
std::optional<RecurrenceUnion> recurrence_union_of(const PathFormula& formula, const std::vector<StateSet>& atoms,
                                                   Optimization direction, bool chain);
NumericResult compute_recurrence_union_probabilities(const SparseMdp& mdp, const graph::SearchBackend& search,
                                                     const RecurrenceUnion& path, const SolverOptions& options,
                                                     const DeviceOptions& device);

// Beside them, the paths that are a plain until over state formulas, unbounded: F psi
// (phi: every state) and phi U psi, and G phi as the complement of F !phi. A rewritten
// path often is one ((F a) | (F b) is F (a | b), (G a) & (G b) is G (a & b):
// engine/automata/ltl_simplify.h); it takes the reachability pipeline, with no
// automaton and no product.
struct PlainUntil {
  StateSet phi, psi;
  bool complemented = false;  // the path's probability is 1 - phi U psi's, the other way
};
std::optional<PlainUntil> plain_until_of(const PathFormula& formula, const std::vector<StateSet>& atoms);

// The path's probability from every state, maximal or minimal (a DTMC's direction is
// ignored), with the reachability pipeline's bounds. search is the model's backend: its
// end components are found on its device where it has one.
NumericResult compute_recurrence_probabilities(const SparseMdp& mdp, const graph::SearchBackend& search,
                                               Optimization direction, const Recurrence& path,
                                               const SolverOptions& options, const DeviceOptions& device);

}  // namespace mdpvi
