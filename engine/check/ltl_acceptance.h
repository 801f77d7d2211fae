#pragma once
// The pairs of an LTL product (ltl_product.h) from which some scheduler has the path
// accepted almost surely: the target of Pmax's reachability in the product, and of
// E [ path ]'s search in the product of edges. Every accepting end component (a
// maximal end component of the accepting part that sees every mark of its guess) lies
// among them, and from each of them the path holds almost surely, so both targets give
// the same maximum.
#include "engine/check/ltl_product.h"
#include "graph/search_backend.h"

namespace mdpvi {

// The pairs whose automaton state accepts everything, and the almost-sure winning set
// of the accepting part's generalised Büchi condition (graph/almost_sure_buchi.h): one
// set per mark, its pairs that see the mark or whose guess does not need it. A run
// that stays in the accepting part keeps its guess (a jump is never undone), so it
// meets every mark of its guess infinitely often. Found by Prob1E rounds alone.
StateSet almost_surely_accepted(const LtlProduct& product, const graph::SearchBackend& search);

// The reference: those pairs whose automaton state accepts everything, and the accepting
// end components, by decomposing the accepting part into maximal end components.
StateSet accepting_end_components(const LtlProduct& product, const graph::SearchBackend& search);

}  // namespace mdpvi
