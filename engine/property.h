#pragma once
// The properties the checker answers, as trees built by io/'s property parser.
#include "engine/expression.h"

namespace mdpvi {

enum class Optimization { minimize, maximize };

// Pmin=? [ left U right ] or Pmax=? [ left U right ]; "F right" is "true U right".
// left and right are state formulas: Boolean expressions over labels, variables,
// constants and the model's formulas.
struct ReachabilityQuery {
  Optimization direction = Optimization::minimize;
  bool direction_given = true;  // false for "P=?", which only a DTMC answers
  Expression left = Expression::boolean(true);
  Expression right;
};

}  // namespace mdpvi
