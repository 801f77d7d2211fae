#pragma once
// A number per state, of a model (a property's values and their bounds) or of a
// system (a solver's iterates), and the passes that fill and copy one on all cores.
// Its constructor and resize leave the numbers unset: a model-sized vector is first
// written by every core, not zeroed and faulted in by one, which leaves the other
// cores waiting on a large model.
#include "engine/model/pod_vector.h"
#include "engine/model/state_set.h"

#include <cstddef>

namespace mdpvi {

using StateNumbers = PodVector<double>;

// n copies of value.
StateNumbers filled(std::size_t n, double value);

// Per state of set's size: inside where the state is in set, else outside.
StateNumbers numbers_on(const StateSet& set, double inside, double outside = 0.0);

// to[0, count) = from[0, count).
void parallel_copy(const double* from, std::size_t count, double* to);

// A new vector holding from[0, count).
StateNumbers copy_of(const double* from, std::size_t count);

}  // namespace mdpvi
