#pragma once
// An LTL path rewritten into an equivalent one with fewer temporal operators, before
// an automaton is built for it, as LTL translators do (Somenzi and Bloem, "Efficient
// Büchi automata from LTL formulae", CAV 2000; Etessami and Holzmann, "Optimizing
// Büchi automata", CONCUR 2000). Each temporal subformula the automaton construction
// sees doubles the guesses of its jumps (engine/automata/ltl_automaton.h), and the
// paths that are recurrences after the rewriting need no product at all
// (engine/check/recurrence.h): (G F a) & (F a) is G F a, (G !a) | (F G !a) is F G !a.
//
// The rewriting, bottom up:
//  - !!a = a; F F a = F a; G G a = G a;
//  - a suffix-invariant path p (G F, F G, and their boolean combinations: true at
//    every position of a word or at none) has X p = F p = G p = p;
//  - F a | F b = F (a | b), G a & G b = G (a & b), X a & X b = X (a & b),
//    X a | X b = X (a | b), and the recurrences F G a & F G b = F G (a & b),
//    G F a | G F b = G F (a | b);
//  - in a conjunction, a conjunct that another implies goes; in a disjunction, a
//    disjunct that implies another goes. Implication is Somenzi and Bloem's syntactic
//    one (sound, not complete), with the state formulas' own: a implies b where a's
//    states lie within b's in this model (every path of the model sees only them). One
//    rewriting's implication checks share a budget of steps, past which they answer
//    "cannot tell".
#include "engine/model/path_formula.h"

#include <cstdint>
#include <functional>

namespace mdpvi::automata {

// Whether state formula a holds only where state formula b holds (in the model).
using AtomImplies = std::function<bool(std::uint32_t a, std::uint32_t b)>;

// Paths with more nodes than this are kept as they are (the rewriting compares
// subformulas pairwise; such paths are unfolded step bounds).
inline constexpr std::size_t kMostSimplifiedNodes = 4096;

// The nodes of formula's tree.
std::size_t path_nodes(const PathFormula& formula);

// formula rewritten as above: the same paths of the model satisfy it.
PathFormula simplified(const PathFormula& formula, const AtomImplies& implies);

// Whether every path satisfying psi satisfies phi, by the syntactic rules (false where
// they cannot tell).
bool implies(const PathFormula& psi, const PathFormula& phi, const AtomImplies& atoms);

}  // namespace mdpvi::automata
