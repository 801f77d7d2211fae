#pragma once
// PRISM's filters: one value from a property's values over a set of states.
#include "engine/check/property_checker.h"

namespace mdpvi {

// Throws LocatedError (at `at` in `source`) when the operator does not fit the
// values' type, or needs a state and states is empty (state: exactly one).
PropertyValue apply_filter(FilterOp op, const StateValues& values, const StateSet& states, const SparseMdp& mdp,
                           const std::string& source, SourcePosition at);

// PRISM's default when a property has no filter: over the initial states, "forall"
// for a Boolean property, the value for one initial state, the range for several.
PropertyValue apply_default_filter(const StateValues& values, const SparseMdp& mdp, const std::string& source,
                                   SourcePosition at);

}  // namespace mdpvi
