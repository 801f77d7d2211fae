#pragma once
// The almost-sure winning set of a generalised Büchi objective on an MDP, G F B1 & ...
// & G F Bk: the greatest Z, within the candidates, from each state of which a
// scheduler surely stays in Z and reaches each Bi within Z almost surely (Prob1E,
// SearchBackend::stay_and_reach). At the fixed point a scheduler reaches B1, stays,
// reaches B2, and so on, never leaving Z; and every end component that meets every Bi
// lies in each round's Z (it can stay where it is, and its states reach each Bi inside
// it by its own rows). So Pmax(G F B1 & ... & G F Bk) = Pmax(F Z), with no
// decomposition into end components. With no sets, Z is the states that can stay in
// the candidates forever. de Alfaro's thesis, Stanford 1997; Chatterjee, Jurdziński and
// Henzinger, "Quantitative stochastic parity games", SODA 2004.
#include "engine/model/sparse_mdp.h"
#include "graph/search_backend.h"

#include <vector>

namespace mdpvi::graph {

// Pre: the candidates hold every end component that meets every set.
StateSet almost_sure_buchi(const SearchBackend& search, const std::vector<StateSet>& sets, StateSet candidates);

}  // namespace mdpvi::graph
