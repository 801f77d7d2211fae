#pragma once
// What Prob0/Prob1 return (graph/qualitative.h), in a header of its own so that the
// stages that only read the sets do not include Boost.Graph.
#include "engine/model/state_set.h"

namespace mdpvi::graph {

// The partition of the states for one optimisation direction.
struct QualitativePartition {
  StateSet yes;    // probability 1
  StateSet no;     // probability 0
  StateSet maybe;  // the rest: solved numerically
};

// The searches' graph (graph/qualitative.h), declared for those who only pass it on.
struct ChoicePredecessorGraph;

}  // namespace mdpvi::graph
