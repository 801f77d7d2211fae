#pragma once
// CTL's path quantifiers on an MDP or DTMC, as graph searches: E [ path ] holds where
// some path (under some choices) satisfies it, A [ path ] where every path does,
// probability aside: A [ F psi ] fails where a path avoids psi forever, even one of
// probability 0. The paths are those of P[...]: X, U and F with step bounds; G, W and
// R come as complements with the quantifier swapped (io/property.h); and F G and G F,
// whose A forms are complements of E forms.
#include "engine/model/sparse_mdp.h"
#include "engine/model/state_set.h"
#include "graph/search_backend.h"

#include <cstdint>
#include <optional>

namespace mdpvi {

// The states with some choice (exists) or with all choices (forall) having some
// successor (exists) or all successors (forall) in `states`: EX and AX.
StateSet ctl_next(const SparseMdp& mdp, bool forall, const StateSet& states);

// E [ F G phi ]: the states with a path that from some point stays in phi forever:
// those that reach EG phi, the largest set inside phi where every state has a
// successor in the set (a state without choices has no path on).
StateSet exists_eventually_always(const SparseMdp& mdp, const graph::SearchBackend& search, const StateSet& phi);

// E [ G F phi ]: the states with a path through phi infinitely often: those that reach
// an SCC of the whole graph with a cycle (two states or more, or a self-loop) through
// a phi state.
StateSet exists_always_eventually(const SparseMdp& mdp, const graph::SearchBackend& search, const StateSet& phi);

// E/A [ phi U[lower, upper] psi ] (upper: none for unbounded; lower 0 for U<=k and U).
// Pre: lower <= upper where upper is given.
StateSet ctl_until(const SparseMdp& mdp, const graph::SearchBackend& search, bool forall, const StateSet& phi,
                   const StateSet& psi, std::uint64_t lower, std::optional<std::uint64_t> upper);

}  // namespace mdpvi
