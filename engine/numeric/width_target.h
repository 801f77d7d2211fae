#pragma once
// Interval iteration's width targets in the form the device keeps them, 4 bytes a
// state (the fifth model-sized vector of a sound solve, beside two buffers per
// iterate). Made so on the host too (engine/solve/interval_iteration.cpp), so that the
// CPU and the device compare widths with the same targets. Plain C++.
#include <cmath>

namespace mdpvi {

// The largest float at most target (target >= 0). A tighter target keeps
// interval_iteration.cpp's argument (every state ends within 2*epsilon): an SCC
// still terminates where its rounded target stays above the rounded targets of what
// it reads. The targets of successive counts c-1 and c (2*epsilon*c/H) are a
// relative 1/c apart, above a float's relative step (2^-23) while c < 2^23; past that,
// two neighbours may round to one float, and an SCC whose inputs end exactly at its
// target may not get below it: its solve then stops unconverged at its sweep limit,
// and says so.
inline double width_target_as_float(double target) {
  float rounded = static_cast<float>(target);
  if (static_cast<double>(rounded) > target) rounded = std::nextafter(rounded, 0.0f);
  return static_cast<double>(rounded);
}

}  // namespace mdpvi
