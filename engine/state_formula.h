#pragma once
// The states satisfying a state formula of a property.
#include "engine/property.h"
#include "engine/resolved_model.h"
#include "engine/sparse_mdp.h"

namespace mdpvi {

// What a property's names may refer to besides labels and variables.
struct PropertyScope {
  std::string source;  // file name for error messages
  ConstantValues constants;  // the model's and the properties file's
  std::map<std::string, Expression> formulas;  // the model's, expanded
};

// Throws LocatedError for unknown names, type errors, a formula that is not Boolean.
StateSet evaluate_state_formula(const Expression& formula, const SparseMdp& mdp, const PropertyScope& scope);

}  // namespace mdpvi
