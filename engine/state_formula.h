#pragma once
#include "engine/property.h"
#include "engine/sparse_mdp.h"

namespace mdpvi {

// The states satisfying a Boolean combination of labels. Throws std::invalid_argument
// naming an unknown label.
StateSet evaluate(const StateFormula& formula, const SparseMdp& mdp);

}  // namespace mdpvi
